// The `sftp_upload` action: writes the content (variables replaced) to a file on the server,
// replacing it. A relative path is relative to the login directory. The content is written as its
// bytes (textBytes), so a file's bytes ($request.file.x.content$, a download) arrive unchanged.
import { defineAction, z } from '@capture/sdk';
import { textBytes } from '@capture/sdk/bytes';
import { connectionParams, hostKeyNote, openSftp, withSsh } from './connection.js';
import { writeFile } from './sftp-io.js';

export const sftpUpload = defineAction({
  type: 'sftp_upload',
  title: 'SFTP Upload',
  category: 'ssh',
  description:
    'Uploads a file to an SFTP (SSH) server: the content, variables replaced, is written to the path (relative to the login directory), replacing the file. The content is written as its bytes, so a file ($request.file.<name>.content$) or binary variable arrives unchanged. Log in with a password or an SSH key pair from Providers (provider_id). At most 30 s.',
  parameters: z.object({
    ...connectionParams,
    path: z.string().trim().min(1, 'is required').max(4096),
    content: z.string(),
  }),
  async execute(ctx, params) {
    const data = textBytes(params.content);
    const note = await withSsh(ctx, 'uploading', async (session) => {
      const sftp = await openSftp(session);
      try {
        await writeFile(sftp, params.path, data);
      } finally {
        sftp.end();
      }
      return hostKeyNote(ctx, session);
    });
    ctx.log(`Uploaded ${data.length} bytes to ${params.path} on ${params.username}@${params.host}; ${note}`);
  },
});
