// The `sftp_download` action: reads a file from the server into a variable (at most 10 MiB): text
// when it is UTF-8, else its bytes (bytesText), which uploads and responses pass on unchanged.
import { bytesText } from '@capture/sdk/bytes';
import { defineAction, variableName, z } from '@capture/sdk';
import { connectionParams, hostKeyNote, openSftp, withSsh } from './connection.js';
import { readFile } from './sftp-io.js';

export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;

export const sftpDownload = defineAction({
  type: 'sftp_download',
  title: 'SFTP Download',
  category: 'ssh',
  description:
    'Downloads a file from an SFTP (SSH) server into $<variable_name>$ (at most 10 MiB; text when UTF-8, else the bytes, which uploads, responses and base64_encode keep). Log in with a password or an SSH key pair from Providers (provider_id). At most 30 s.',
  parameters: z.object({
    ...connectionParams,
    path: z.string().trim().min(1, 'is required').max(4096),
    variable_name: variableName().default('sftp_download'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const { file, note } = await withSsh(ctx, 'downloading', async (session) => {
      const sftp = await openSftp(session);
      try {
        return { file: await readFile(sftp, params.path, MAX_DOWNLOAD_BYTES), note: hostKeyNote(ctx, session) };
      } finally {
        sftp.end();
      }
    });
    ctx.vars.set(params.variable_name, bytesText(file.data));
    ctx.log(`Downloaded ${params.path} (${file.data.length} bytes) from ${params.username}@${params.host} into $${params.variable_name}$; ${note}`);
    if (file.truncated) ctx.log(`The file is larger than 10 MiB${file.size !== undefined ? ` (${file.size} bytes)` : ''}: only its first 10 MiB were kept`);
  },
});
