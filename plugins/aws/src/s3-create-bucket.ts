// `aws_s3_create_bucket`: PUT /bucket, with a LocationConstraint outside us-east-1 (and none for
// S3-compatible stores without a region) and an optional canned ACL.
import { defineAction, providerId, z } from '@capture/sdk';
import { xmlEscape } from './client.js';
import { awsAccount } from './provider.js';
import { DEFAULT_REGION, bucketName, cannedAcl, region, s3Name, s3Request } from './s3.js';

export const awsS3CreateBucket = defineAction({
  type: 'aws_s3_create_bucket',
  title: 'AWS S3: Create Bucket',
  category: 'aws',
  description:
    'Creates an S3 bucket with the AWS provider (or its S3-compatible endpoint). Region may be left blank for compatible stores such as Google Cloud Storage. Canned ACL: private, public-read, public-read-write or authenticated-read.',
  parameters: z.object({
    provider_id: providerId(),
    region: region(),
    bucket_name: bucketName(),
    canned_acl: cannedAcl(),
  }),
  async execute(ctx, params) {
    const account = await awsAccount(ctx, params.provider_id);
    const headers: Record<string, string> = {};
    if (params.canned_acl) headers['x-amz-acl'] = params.canned_acl;
    let body: string | undefined;
    if (params.region && params.region !== DEFAULT_REGION) {
      headers['content-type'] = 'application/xml';
      body = '<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' + `<LocationConstraint>${xmlEscape(params.region)}</LocationConstraint>` + '</CreateBucketConfiguration>';
    }
    await s3Request(ctx, account, { operation: 'CreateBucket', method: 'PUT', region: params.region, bucket: params.bucket_name, headers, body });
    ctx.log(`Bucket ${s3Name(params.bucket_name)} created${params.region ? ` in ${params.region}` : ''}${params.canned_acl ? ` (ACL ${params.canned_acl})` : ''}`);
  },
});
