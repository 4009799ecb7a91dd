// `aws_s3_get_object`: GET /bucket/key into a variable, at most 10 MiB: text when it is UTF-8, else
// its bytes (bytesText), which uploads and responses pass on unchanged.
import { bytesText } from '@capture/sdk/bytes';
import { defineAction, providerId, variableName, z } from '@capture/sdk';
import { awsAccount } from './provider.js';
import { bucketName, objectKey, region, s3Name, s3Request } from './s3.js';

export const MAX_OBJECT_BYTES = 10 * 1024 * 1024;

export const awsS3GetObject = defineAction({
  type: 'aws_s3_get_object',
  title: 'AWS S3: Get Object',
  category: 'aws',
  description:
    'Reads an object of an S3 bucket (at most 10 MiB) into $<variable_name>$: text when UTF-8, else the bytes, which uploads, responses and base64_encode keep. Region may be left blank for S3-compatible stores.',
  parameters: z.object({
    provider_id: providerId(),
    region: region(),
    bucket_name: bucketName(),
    object_key: objectKey(),
    variable_name: variableName(),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const account = await awsAccount(ctx, params.provider_id);
    const name = s3Name(params.bucket_name, params.object_key);
    const res = await s3Request(ctx, account, {
      operation: 'GetObject',
      method: 'GET',
      region: params.region,
      bucket: params.bucket_name,
      key: params.object_key,
      maxBodyBytes: MAX_OBJECT_BYTES,
    });
    const declared = Number(res.headers['content-length']);
    if (res.truncated || res.body.length > MAX_OBJECT_BYTES || declared > MAX_OBJECT_BYTES) {
      throw new Error(`Object ${name} is larger than ${MAX_OBJECT_BYTES / 1024 / 1024} MiB (${Number.isFinite(declared) && declared > 0 ? `${declared} bytes` : 'too large'}); not read`);
    }
    ctx.vars.set(params.variable_name, bytesText(res.body));
    const type = res.headers['content-type'];
    ctx.log(`Object ${name} read into $${params.variable_name}$ (${res.body.length} bytes${type ? `, ${type}` : ''})`);
  },
});
