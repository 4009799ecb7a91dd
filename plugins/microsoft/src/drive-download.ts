// The `microsoft_drive_download` action: GET /me/drive/root:/<path>:/content answers with a
// redirect to a pre-authenticated download URL, which is fetched without the account's token.
import { defineAction, providerId, variableName, z } from '@capture/sdk';
import { Graph, MAX_DOWNLOAD_BYTES, itemPath } from './provider.js';

export const microsoftDriveDownload = defineAction({
  type: 'microsoft_drive_download',
  title: 'OneDrive: Download File',
  category: 'microsoft',
  description: 'Downloads a file from the OneDrive of a connected microsoft account into $<variable_name>$ (as UTF-8 text, at most 10 MiB).',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path from the OneDrive root, e.g. Documents/report.csv'),
    variable_name: variableName().default('onedrive_file'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const path = itemPath(params.path);
    const graph = await Graph.open(ctx, params.provider_id);
    const doing = `download ${params.path}`;
    let res = await graph.send({ method: 'GET', path: `${path}/content`, doing, maxRedirects: 0, maxBodyBytes: MAX_DOWNLOAD_BYTES });
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.location;
      if (!location) throw new Error(`Microsoft Graph could not ${doing}: a redirect without a Location`);
      const target = new URL(location, res.url ?? 'https://graph.microsoft.com/').toString();
      res = await ctx.services.http.request({ method: 'GET', url: target, signal: ctx.signal, maxBodyBytes: MAX_DOWNLOAD_BYTES });
      if (res.status >= 400) throw new Error(`Could not ${doing}: the download URL answered HTTP ${res.status}`);
    }
    const size = Number(res.headers['content-length'] ?? res.body.length);
    const tooBig = res.truncated || res.body.length > MAX_DOWNLOAD_BYTES || size > MAX_DOWNLOAD_BYTES;
    ctx.vars.set(params.variable_name, res.body.subarray(0, MAX_DOWNLOAD_BYTES).toString('utf8'));
    ctx.log(`Downloaded ${params.path} (${size} bytes) from OneDrive into $${params.variable_name}$`);
    if (tooBig) ctx.error(`${params.path} is larger than 10 MiB (${size} bytes): only its first 10 MiB were kept in $${params.variable_name}$`);
  },
});
