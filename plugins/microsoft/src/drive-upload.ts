// The `microsoft_drive_upload` action: PUT /me/drive/root:/<path>:/content (simple upload; an
// existing file is replaced, missing folders are created).
import { defineAction, optionalText, providerId, variableName, z } from '@capture/sdk';
import { Graph, itemPath } from './provider.js';

export const microsoftDriveUpload = defineAction({
  type: 'microsoft_drive_upload',
  title: 'OneDrive: Upload File',
  category: 'microsoft',
  description:
    'Uploads content (as UTF-8 text; default: the request body as received) to a path in the OneDrive of a connected microsoft account, replacing a file already there. With variable_name, $<variable_name>$ holds the uploaded item as JSON ($<variable_name>.webUrl$, $<variable_name>.id$...).',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path from the OneDrive root, e.g. Webhooks/$request.uuid$.json'),
    content_type: optionalText().describe("Content-Type of the file (default: the request's, for the request body; else text/plain)"),
    content: optionalText().describe('The file content (default: the request body)'),
    variable_name: variableName().optional(),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const path = itemPath(params.path);
    const fromRequest = params.content === undefined;
    const body = fromRequest ? ctx.rawBody : Buffer.from(params.content ?? '', 'utf8');
    const contentType = params.content_type?.trim() || (fromRequest ? ctx.request.headers['content-type']?.[0] : undefined) || 'text/plain; charset=utf-8';
    const graph = await Graph.open(ctx, params.provider_id);
    const item = await graph.json<{ id?: string; name?: string; size?: number; webUrl?: string }>({
      method: 'PUT',
      path: `${path}/content`,
      body,
      contentType,
      doing: `upload ${params.path}`,
    });
    if (params.variable_name) ctx.vars.set(params.variable_name, JSON.stringify(item));
    ctx.log(`Uploaded ${params.path} to OneDrive (${item.size ?? body.length} bytes)${item.webUrl ? `: ${item.webUrl}` : ''}`);
  },
});
