// The `dropbox_upload_file` action: files/upload (up to 150 MB in one request). Modes:
// add: never overwrites; a name already taken gets a number ("report (1).txt").
// overwrite: replaces whatever file is at the path.
// update: replaces the file at the path only if it has not changed since its revision was read
//   (Dropbox's update mode needs that revision, read with files/get_metadata); a new path is added.
import { defineAction, providerId, z } from '@capture/sdk';
import { Dropbox, DropboxError, dropboxPath } from './provider.js';

interface FileMetadata {
  '.tag'?: string;
  path_display?: string;
  rev?: string;
  size?: number;
}

export const dropboxUploadFile = defineAction({
  type: 'dropbox_upload_file',
  title: 'Dropbox: Upload File',
  category: 'dropbox',
  description:
    'Uploads body (as UTF-8 text) to a path in the Dropbox of a connected dropbox account. Mode add keeps existing files (a taken name gets a number), overwrite replaces them, update replaces the current revision.',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Destination path, e.g. /Uploads/$request.uuid$.json'),
    body: z.string().describe('The file content'),
    mode: z.enum(['add', 'overwrite', 'update']),
  }),
  async execute(ctx, params) {
    const path = dropboxPath(params.path);
    const dropbox = await Dropbox.open(ctx, params.provider_id);
    let mode: unknown = params.mode;
    let autorename = params.mode === 'add';
    if (params.mode === 'update') {
      const current = await currentRevision(dropbox, path);
      if (current) mode = { '.tag': 'update', update: current };
      else mode = 'add';
      autorename = false;
    }
    const res = await dropbox.contentCall('files/upload', { path, mode, autorename, mute: false }, `upload ${path}`, Buffer.from(params.body, 'utf8'));
    let meta: FileMetadata = {};
    try {
      meta = JSON.parse(res.body.toString('utf8')) as FileMetadata;
    } catch {
      // only used for the log line
    }
    const saved = meta.path_display ?? path;
    ctx.log(`Uploaded ${saved} to Dropbox (${meta.size ?? Buffer.byteLength(params.body)} bytes${meta.rev ? `, revision ${meta.rev}` : ''})`);
    if (saved.toLowerCase() !== path.toLowerCase()) ctx.log(`${path} was taken, so the file was saved as ${saved}`);
  },
});

/** The revision of the file at `path`, or undefined when nothing is there. */
async function currentRevision(dropbox: Dropbox, path: string): Promise<string | undefined> {
  try {
    const meta = await dropbox.rpc<FileMetadata>('files/get_metadata', { path }, `read the revision of ${path}`);
    if (meta['.tag'] === 'folder') throw new Error(`Dropbox could not upload ${path}: that path is a folder`);
    return meta.rev;
  } catch (e) {
    if (e instanceof DropboxError && e.summary?.startsWith('path/not_found')) return undefined;
    throw e;
  }
}
