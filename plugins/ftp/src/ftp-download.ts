// The `ftp_download` action: reads a file from an FTP or FTPS server into a variable (at most
// 10 MiB: the transfer is stopped there): text when it is UTF-8, else its bytes (bytesText), which
// uploads and responses pass on unchanged.
import { Writable } from 'node:stream';
import { bytesText } from '@capture/sdk/bytes';
import { defineAction, variableName, z } from '@capture/sdk';
import { connectionParams, download, pathError, withFtp } from './connection.js';

export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;

class CapReached extends Error {}

/** Collects up to `max` bytes, then fails the transfer (which stops it). */
function collector(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const room = max - kept;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept = max;
        truncated = true;
        return callback(new CapReached('download cap reached'));
      }
      chunks.push(chunk);
      kept += chunk.length;
      callback();
    },
  });
  return { sink, result: () => ({ data: Buffer.concat(chunks), truncated }) };
}

export const ftpDownload = defineAction({
  type: 'ftp_download',
  title: 'FTP(S) Download',
  category: 'ftp',
  description:
    'Downloads a file from an FTP or FTPS (explicit TLS) server into $<variable_name>$ (at most 10 MiB; text when UTF-8, else the bytes, which uploads, responses and base64_encode keep). Passive mode, or active mode with passive: false (plain FTP). Storing the password as a Global Variable is recommended.',
  parameters: z.object({
    ...connectionParams,
    variable_name: variableName().default('ftp_download'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const file = await withFtp(ctx, async (session) => {
      const c = collector(MAX_DOWNLOAD_BYTES);
      try {
        await download(session, c.sink, params.path);
      } catch (e) {
        if (!c.result().truncated) throw pathError(e, params.path, session.where, 'downloading');
      }
      return c.result();
    });
    ctx.vars.set(params.variable_name, bytesText(file.data));
    ctx.log(`Downloaded ${params.path} (${file.data.length} bytes) from ${params.username}@${params.host}${params.ssl ? ' (FTPS)' : ''}${params.passive === false ? ' (active mode)' : ''} into $${params.variable_name}$`);
    if (file.truncated) ctx.log('The file is larger than 10 MiB: only its first 10 MiB were kept');
  },
});
