// `aws_s3_put_object` (Create Object): PUT /bucket/key with the body's bytes (textBytes: text as
// UTF-8, a file's bytes unchanged), signed payload.
import { defineAction, providerId, z } from '@capture/sdk';
import { textBytes } from '@capture/sdk/bytes';
import { awsAccount } from './provider.js';
import { bucketName, cannedAcl, objectKey, region, s3Name, s3Request } from './s3.js';

export const awsS3PutObject = defineAction({
  type: 'aws_s3_put_object',
  title: 'AWS S3: Create Object',
  category: 'aws',
  description:
    'Uploads the body (e.g. $request.content$) to an object of an S3 bucket, replacing any object with that key. The body is stored as its bytes, so a file ($request.file.<name>.content$) or binary variable arrives unchanged. Region may be left blank for S3-compatible stores. Canned ACL: private, public-read, public-read-write or authenticated-read.',
  parameters: z.object({
    provider_id: providerId(),
    region: region(),
    bucket_name: bucketName(),
    object_key: objectKey(),
    body: z.string(),
    canned_acl: cannedAcl(),
  }),
  async execute(ctx, params) {
    const account = await awsAccount(ctx, params.provider_id);
    const body = textBytes(params.body);
    const headers: Record<string, string> = {};
    if (params.canned_acl) headers['x-amz-acl'] = params.canned_acl;
    const res = await s3Request(ctx, account, { operation: 'PutObject', method: 'PUT', region: params.region, bucket: params.bucket_name, key: params.object_key, headers, body });
    const etag = res.headers.etag;
    ctx.log(`Object ${s3Name(params.bucket_name, params.object_key)} uploaded (${body.length} bytes${etag ? `, ETag ${etag}` : ''}${params.canned_acl ? `, ACL ${params.canned_acl}` : ''})`);
  },
});
