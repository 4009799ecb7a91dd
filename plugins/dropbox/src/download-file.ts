// The `dropbox_download_file` action: files/download into a variable (UTF-8 text, at most 10 MiB).
import { defineAction, providerId, variableName, z } from '@capture/sdk';
import { Dropbox, MAX_DOWNLOAD_BYTES, dropboxPath } from './provider.js';

export const dropboxDownloadFile = defineAction({
  type: 'dropbox_download_file',
  title: 'Dropbox: Download File',
  category: 'dropbox',
  description: 'Downloads a file from the Dropbox of a connected dropbox account into $<variable_name>$ (as UTF-8 text, at most 10 MiB).',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path of the file, e.g. /Invoices/latest.csv'),
    variable_name: variableName(),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const path = dropboxPath(params.path);
    const dropbox = await Dropbox.open(ctx, params.provider_id);
    const res = await dropbox.contentCall('files/download', { path }, `download ${path}`);
    let meta: { path_display?: string; size?: number } = {};
    try {
      meta = JSON.parse(res.headers['dropbox-api-result'] ?? '{}') as typeof meta;
    } catch {
      // the metadata is only used for the log line
    }
    const size = typeof meta.size === 'number' ? meta.size : res.body.length;
    const tooBig = res.truncated || res.body.length > MAX_DOWNLOAD_BYTES || size > MAX_DOWNLOAD_BYTES;
    ctx.vars.set(params.variable_name, res.body.subarray(0, MAX_DOWNLOAD_BYTES).toString('utf8'));
    ctx.log(`Downloaded ${meta.path_display ?? path} (${size} bytes) from Dropbox into $${params.variable_name}$`);
    if (tooBig) ctx.error(`${meta.path_display ?? path} is larger than 10 MiB (${size} bytes): only its first 10 MiB were kept in $${params.variable_name}$`);
  },
});
