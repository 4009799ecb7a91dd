// The `dropbox_delete` action (Delete File and Delete Folder): files/delete_v2.
import { defineAction, providerId, z } from '@capture/sdk';
import { Dropbox, dropboxPath } from './provider.js';

export const dropboxDelete = defineAction({
  type: 'dropbox_delete',
  title: 'Dropbox: Delete File or Folder',
  category: 'dropbox',
  description: 'Deletes a file, or a folder with everything in it, from the Dropbox of a connected dropbox account.',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path of the file or folder, e.g. /Invoices/old.pdf'),
  }),
  async execute(ctx, params) {
    const path = dropboxPath(params.path);
    const dropbox = await Dropbox.open(ctx, params.provider_id);
    const r = await dropbox.rpc<{ metadata?: { '.tag'?: string; path_display?: string } }>('files/delete_v2', { path }, `delete ${path}`);
    const kind = r.metadata?.['.tag'] === 'folder' ? 'folder' : 'file';
    ctx.log(`Deleted the Dropbox ${kind} ${r.metadata?.path_display ?? path}`);
  },
});
