// `aws_s3_delete_object`: DELETE /bucket/key. S3 answers 204 whether or not the key existed.
import { defineAction, providerId, z } from '@capture/sdk';
import { awsAccount } from './provider.js';
import { bucketName, objectKey, region, s3Name, s3Request } from './s3.js';

export const awsS3DeleteObject = defineAction({
  type: 'aws_s3_delete_object',
  title: 'AWS S3: Delete Object',
  category: 'aws',
  description: 'Deletes an object of an S3 bucket (S3 does not report whether it existed). Region may be left blank for S3-compatible stores.',
  parameters: z.object({
    provider_id: providerId(),
    region: region(),
    bucket_name: bucketName(),
    object_key: objectKey(),
  }),
  async execute(ctx, params) {
    const account = await awsAccount(ctx, params.provider_id);
    await s3Request(ctx, account, { operation: 'DeleteObject', method: 'DELETE', region: params.region, bucket: params.bucket_name, key: params.object_key });
    ctx.log(`Object ${s3Name(params.bucket_name, params.object_key)} deleted`);
  },
});
