// The `dropbox_get_link` action: a temporary download link (files/get_temporary_link, valid for
// four hours) or a shared link (sharing/create_shared_link_with_settings; an existing shared link of
// the file is reused).
import { defineAction, providerId, variableName, z } from '@capture/sdk';
import { Dropbox, DropboxError, dropboxPath } from './provider.js';

const blankIsUnset = <T extends [string, ...string[]]>(values: T) =>
  z
    .union([z.enum(values), z.literal('')])
    .nullish()
    .transform((v) => (v ? v : undefined));

interface SharedLink {
  url?: string;
  path_lower?: string;
}

export const dropboxGetLink = defineAction({
  type: 'dropbox_get_link',
  title: 'Dropbox: Get Link',
  category: 'dropbox',
  description:
    'Puts a link to a file of a connected dropbox account in $<variable_name>$: a temporary download link (type temporary, the default; valid for 4 hours) or a shared link (type share_link) visible to share_audience (public, team or no_one; default public).',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path of the file, e.g. /Invoices/latest.pdf'),
    variable_name: variableName().default('dropbox_link'),
    type: blankIsUnset(['share_link', 'temporary']).describe('temporary (default) or share_link'),
    share_audience: blankIsUnset(['public', 'team', 'no_one']).describe('Who can open a shared link (default public)'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const path = dropboxPath(params.path);
    const dropbox = await Dropbox.open(ctx, params.provider_id);
    let link: string | undefined;
    if ((params.type ?? 'temporary') === 'temporary') {
      const r = await dropbox.rpc<{ link?: string }>('files/get_temporary_link', { path }, `make a temporary link to ${path}`);
      link = r.link;
      if (link) ctx.log(`Made a temporary Dropbox link to ${path} (valid for 4 hours) in $${params.variable_name}$`);
    } else {
      const audience = params.share_audience ?? 'public';
      link = await sharedLink(dropbox, path, audience);
      if (link) ctx.log(`Got a shared Dropbox link to ${path} (audience ${audience}) in $${params.variable_name}$`);
    }
    if (!link) throw new Error(`Dropbox answered without a link for ${path}`);
    ctx.vars.set(params.variable_name, link);
  },
});

/** A new shared link, or the one the file already has (Dropbox refuses to make a second). */
async function sharedLink(dropbox: Dropbox, path: string, audience: string): Promise<string | undefined> {
  try {
    const r = await dropbox.rpc<SharedLink>('sharing/create_shared_link_with_settings', { path, settings: { audience } }, `share ${path}`);
    return r.url;
  } catch (e) {
    if (!(e instanceof DropboxError) || !e.summary?.startsWith('shared_link_already_exists')) throw e;
  }
  const existing = await dropbox.rpc<{ links?: SharedLink[] }>('sharing/list_shared_links', { path, direct_only: true }, `find the shared link of ${path}`);
  return existing.links?.find((l) => typeof l.url === 'string')?.url;
}
