// The `ftp_upload` action: stores the content (variables replaced) at the path on an FTP or FTPS
// server, replacing the file. A relative path is relative to the login directory. The content is
// stored as its bytes (textBytes), so a file's bytes ($request.file.x.content$, a download) arrive
// unchanged.
import { defineAction, z } from '@capture/sdk';
import { textBytes } from '@capture/sdk/bytes';
import { connectionParams, pathError, upload, withFtp } from './connection.js';

export const ftpUpload = defineAction({
  type: 'ftp_upload',
  title: 'FTP(S) Upload',
  category: 'ftp',
  description:
    'Uploads a file to an FTP or FTPS (explicit TLS) server: the content, variables replaced, is stored at the path (relative to the login directory), replacing the file. The content is stored as its bytes, so a file ($request.file.<name>.content$) or binary variable arrives unchanged. Passive mode, or active mode with passive: false (plain FTP). Storing the password as a Global Variable is recommended.',
  parameters: z.object({
    ...connectionParams,
    content: z.string(),
  }),
  async execute(ctx, params) {
    const data = textBytes(params.content);
    await withFtp(ctx, async (session) => {
      try {
        await upload(session, data, params.path);
      } catch (e) {
        throw pathError(e, params.path, session.where, 'uploading');
      }
    });
    ctx.log(`Uploaded ${data.length} bytes to ${params.path} on ${params.username}@${params.host}${params.ssl ? ' (FTPS)' : ''}${params.passive === false ? ' (active mode)' : ''}`);
  },
});
