import { definePlugin } from '@capture/sdk';
import { awsCfInvalidate } from './cf-invalidate.js';
import { awsProvider } from './provider.js';
import { awsS3CreateBucket } from './s3-create-bucket.js';
import { awsS3DeleteObject } from './s3-delete-object.js';
import { awsS3GetObject } from './s3-get-object.js';
import { awsS3PutObject } from './s3-put-object.js';

export default definePlugin({
  name: '@capture/plugin-aws',
  providers: [awsProvider],
  actions: [awsS3CreateBucket, awsS3PutObject, awsS3GetObject, awsS3DeleteObject, awsCfInvalidate],
});
