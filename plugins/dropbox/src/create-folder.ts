// The `dropbox_create_folder` action: files/create_folder_v2.
import { defineAction, providerId, z } from '@capture/sdk';
import { Dropbox, dropboxPath } from './provider.js';

export const dropboxCreateFolder = defineAction({
  type: 'dropbox_create_folder',
  title: 'Dropbox: Create Folder',
  category: 'dropbox',
  description: 'Creates a folder (and any missing parent folders) in the Dropbox of a connected dropbox account. A folder that already exists is an error.',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Folder path, e.g. /Invoices/2024'),
  }),
  async execute(ctx, params) {
    const path = dropboxPath(params.path);
    const dropbox = await Dropbox.open(ctx, params.provider_id);
    const r = await dropbox.rpc<{ metadata?: { path_display?: string } }>('files/create_folder_v2', { path, autorename: false }, `create the folder ${path}`);
    ctx.log(`Created the Dropbox folder ${r.metadata?.path_display ?? path}`);
  },
});
