// The Dropbox actions against a fake Dropbox API v2 on loopback (test/fake-dropbox.ts), through the
// SDK's fetch client and an in-memory dropbox provider pointing at it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock, fetchHttpClient, memoryProviders, runAction, type RunActionOptions, validateParams } from '@capture/sdk/testing';
import { forgetOAuthRenewals } from '@capture/sdk/oauth';
import { dropboxCreateFolder } from '../src/create-folder.js';
import { dropboxDelete } from '../src/delete.js';
import { dropboxDownloadFile } from '../src/download-file.js';
import { dropboxGetLink } from '../src/get-link.js';
import plugin from '../src/index.js';
import { dropboxPath, dropboxProvider, headerSafeJson } from '../src/provider.js';
import { dropboxUploadFile } from '../src/upload-file.js';
import { OAUTH_APP, startFakeDropbox, type FakeDropbox } from './fake-dropbox.js';

let fake: FakeDropbox;

beforeAll(async () => {
  fake = await startFakeDropbox();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.files.clear();
  fake.folders.clear();
  fake.links.clear();
  fake.calls.length = 0;
  fake.tokenCalls.length = 0;
  fake.throttleNext = false;
  forgetOAuthRenewals();
});

const settings = () => ({ api_base_url: fake.api, content_base_url: fake.content, token_url: fake.tokenUrl });

/** The test account's providers: dropbox 7 with `credentials`, and a google one. */
const accounts = (credentials: Record<string, unknown>) =>
  memoryProviders([
    { id: '7', type: 'dropbox', credentials, settings: settings() },
    { id: '8', type: 'google', credentials: { access_token: 'x' } },
  ]);

function options(credentials: Record<string, unknown> = { access_token: 'at-valid' }, extra: RunActionOptions = {}): RunActionOptions {
  return {
    ...extra,
    services: {
      http: fetchHttpClient,
      providers: accounts(credentials),
      ...extra.services,
    },
  };
}

describe('the plugin', () => {
  it('provides the five actions and the dropbox provider type', () => {
    expect(plugin.actions.map((a) => a.type).sort()).toEqual(['dropbox_create_folder', 'dropbox_delete', 'dropbox_download_file', 'dropbox_get_link', 'dropbox_upload_file']);
    expect(plugin.providers?.map((p) => p.type)).toEqual(['dropbox']);
  });

  it('the provider takes OAuth credentials and URL overrides', () => {
    expect(dropboxProvider.credentials.safeParse({ access_token: 'a' }).success).toBe(true);
    expect(dropboxProvider.credentials.safeParse({ refresh_token: 'r', client_id: 'c' }).success).toBe(true);
    expect(dropboxProvider.credentials.safeParse({ client_id: 'c' }).success).toBe(false);
    expect(dropboxProvider.settings?.safeParse({ api_base_url: 'http://127.0.0.1:1' }).success).toBe(true);
    expect(dropboxProvider.settings?.safeParse({ api_base_url: 'not a url' }).success).toBe(false);
  });
});

describe('helpers', () => {
  it('normalises paths', () => {
    expect(dropboxPath('Invoices/2024/')).toBe('/Invoices/2024');
    expect(dropboxPath(' //a.txt ')).toBe('/a.txt');
    expect(dropboxPath('id:abc123')).toBe('id:abc123');
    expect(() => dropboxPath('/')).toThrow(/root/);
  });

  it('escapes non-ASCII characters in Dropbox-API-Arg', () => {
    expect(headerSafeJson({ path: '/Übersicht €.txt' })).toBe('{"path":"/\\u00dcbersicht \\u20ac.txt"}');
  });
});

describe('dropbox_upload_file', () => {
  it('uploads the body to the content host with the argument in Dropbox-API-Arg', async () => {
    const r = await runAction(dropboxUploadFile, { provider_id: 7, path: 'Uploads/$request.uuid$.json', body: '{"n": "$n$"}', mode: 'add' }, options(undefined, { vars: { n: 'ü1' } }));
    expect(r.errors).toEqual([]);
    const path = '/Uploads/22222222-2222-4222-8222-222222222222.json';
    expect(fake.files.get(path.toLowerCase())?.data.toString()).toBe('{"n": "ü1"}');
    const call = fake.calls[0]!;
    expect(call).toMatchObject({ host: 'content', method: 'POST', path: '/2/files/upload', arg: { path, mode: 'add', autorename: true } });
    expect(call.headers.authorization).toBe('Bearer at-valid');
    expect(call.headers['content-type']).toBe('application/octet-stream');
    expect(r.output[0]).toMatch(/^Uploaded \/Uploads\/2222.*\.json to Dropbox \(12 bytes, revision 015/);
  });

  it('mode add keeps the existing file and numbers the new one', async () => {
    fake.addFile('/a.txt', 'old');
    const r = await runAction(dropboxUploadFile, { provider_id: '7', path: '/a.txt', body: 'new', mode: 'add' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.files.get('/a.txt')?.data.toString()).toBe('old');
    expect(fake.files.get('/a (1).txt')?.data.toString()).toBe('new');
    expect(r.output).toContain('/a.txt was taken, so the file was saved as /a (1).txt');
  });

  it('mode overwrite replaces the file', async () => {
    fake.addFile('/a.txt', 'old');
    const r = await runAction(dropboxUploadFile, { provider_id: '7', path: '/a.txt', body: 'new', mode: 'overwrite' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.files.get('/a.txt')?.data.toString()).toBe('new');
    expect(fake.calls[0]?.arg).toMatchObject({ mode: 'overwrite', autorename: false });
  });

  it('mode update replaces the current revision, and adds a new path', async () => {
    const old = fake.addFile('/a.txt', 'old');
    const r = await runAction(dropboxUploadFile, { provider_id: '7', path: '/a.txt', body: 'new', mode: 'update' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.calls.map((c) => c.path)).toEqual(['/2/files/get_metadata', '/2/files/upload']);
    expect(fake.calls[1]?.arg).toMatchObject({ mode: { '.tag': 'update', update: old.rev } });
    expect(fake.files.get('/a.txt')?.data.toString()).toBe('new');

    const r2 = await runAction(dropboxUploadFile, { provider_id: '7', path: '/b.txt', body: 'b', mode: 'update' }, options());
    expect(r2.errors).toEqual([]);
    expect(fake.files.get('/b.txt')?.data.toString()).toBe('b');
  });

  it('reports a conflict with a folder', async () => {
    fake.folders.set('/docs', '/Docs');
    const r = await runAction(dropboxUploadFile, { provider_id: '7', path: '/docs', body: 'x', mode: 'overwrite' }, options());
    expect(r.errors).toEqual(['Dropbox could not upload /docs: a folder already exists at that path (path/conflict/folder)']);
  });

  it('reports the rate limit with its retry time', async () => {
    fake.throttleNext = true;
    const r = await runAction(dropboxUploadFile, { provider_id: '7', path: '/a.txt', body: 'x', mode: 'add' }, options());
    expect(r.errors).toEqual(['Dropbox could not upload /a.txt: too many requests to Dropbox: try again later (too_many_write_operations); retry after 1 s']);
  });

  it('refuses an unknown mode and a missing body', () => {
    expect(() => validateParams(dropboxUploadFile, { provider_id: '7', path: '/a', body: 'x', mode: 'append' })).toThrow(/parameters.mode/);
    expect(() => validateParams(dropboxUploadFile, { provider_id: '7', path: '/a', mode: 'add' })).toThrow(/parameters.body: is required/);
    expect(validateParams(dropboxUploadFile, { provider_id: '$p$', path: '$x$', body: '', mode: 'add' })).toBeTruthy();
  });
});

describe('dropbox_download_file', () => {
  it('puts the file in the variable', async () => {
    fake.addFile('/Reports/Übersicht.csv', 'a,b\n1,2\n');
    const r = await runAction(dropboxDownloadFile, { provider_id: '7', path: '/reports/übersicht.csv', variable_name: '$csv$' }, options());
    expect(r.errors).toEqual([]);
    expect(r.vars.csv).toBe('a,b\n1,2\n');
    expect(fake.calls[0]).toMatchObject({ host: 'content', path: '/2/files/download', arg: { path: '/reports/übersicht.csv' } });
    expect(fake.calls[0]?.headers['dropbox-api-arg']).toBe('{"path":"/reports/\\u00fcbersicht.csv"}');
    expect(r.output).toEqual(['Downloaded /Reports/Übersicht.csv (8 bytes) from Dropbox into $csv$']);
  });

  it('keeps the first 10 MiB of a larger file and records an error', async () => {
    fake.addFile('/big.txt', Buffer.alloc(10 * 1024 * 1024 + 5, 'x'));
    const r = await runAction(dropboxDownloadFile, { provider_id: '7', path: '/big.txt', variable_name: 'big' }, options());
    expect(r.vars.big).toHaveLength(10 * 1024 * 1024);
    expect(r.errors).toEqual([`/big.txt is larger than 10 MiB (${10 * 1024 * 1024 + 5} bytes): only its first 10 MiB were kept in $big$`]);
  });

  it('a missing file is an action error', async () => {
    const r = await runAction(dropboxDownloadFile, { provider_id: '7', path: '/nope.txt', variable_name: 'f' }, options());
    expect(r.errors).toEqual(['Dropbox could not download /nope.txt: nothing exists at that path (path/not_found)']);
    expect(r.vars.f).toBeUndefined();
  });

  it('needs a variable name', () => {
    expect(() => validateParams(dropboxDownloadFile, { provider_id: '7', path: '/a' })).toThrow(/parameters.variable_name: is required/);
  });
});

describe('dropbox_create_folder', () => {
  it('creates the folder', async () => {
    const r = await runAction(dropboxCreateFolder, { provider_id: '7', path: 'Invoices/2024' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.calls[0]).toMatchObject({ host: 'api', path: '/2/files/create_folder_v2', arg: { path: '/Invoices/2024', autorename: false } });
    expect(fake.calls[0]?.headers['content-type']).toBe('application/json');
    expect(fake.folders.get('/invoices/2024')).toBe('/Invoices/2024');
    expect(r.output).toEqual(['Created the Dropbox folder /Invoices/2024']);
  });

  it('an existing folder is an action error', async () => {
    fake.folders.set('/invoices', '/Invoices');
    const r = await runAction(dropboxCreateFolder, { provider_id: '7', path: '/Invoices' }, options());
    expect(r.errors).toEqual(['Dropbox could not create the folder /Invoices: a folder already exists at that path (path/conflict/folder)']);
  });
});

describe('dropbox_delete', () => {
  it('deletes a file and a folder with its content', async () => {
    fake.addFile('/a.txt', 'a');
    fake.addFile('/Old/b.txt', 'b');
    const r1 = await runAction(dropboxDelete, { provider_id: '7', path: '/a.txt' }, options());
    const r2 = await runAction(dropboxDelete, { provider_id: '7', path: '/old' }, options());
    expect([...r1.errors, ...r2.errors]).toEqual([]);
    expect(r1.output).toEqual(['Deleted the Dropbox file /a.txt']);
    expect(r2.output).toEqual(['Deleted the Dropbox folder /Old']);
    expect(fake.files.size).toBe(0);
    expect(fake.calls.map((c) => c.path)).toEqual(['/2/files/delete_v2', '/2/files/delete_v2']);
  });

  it('a missing path is an action error', async () => {
    const r = await runAction(dropboxDelete, { provider_id: '7', path: '/gone' }, options());
    expect(r.errors).toEqual(['Dropbox could not delete /gone: nothing exists at that path (path_lookup/not_found)']);
  });
});

describe('dropbox_get_link', () => {
  it('makes a temporary link by default', async () => {
    const f = fake.addFile('/a.pdf', '%PDF');
    const r = await runAction(dropboxGetLink, { provider_id: '7', path: '/a.pdf' }, options());
    expect(r.errors).toEqual([]);
    expect(r.vars.dropbox_link).toBe(`${fake.content}/apitl/1/${f.id.slice(3)}`);
    expect(fake.calls[0]).toMatchObject({ path: '/2/files/get_temporary_link', arg: { path: '/a.pdf' } });
  });

  it('makes a shared link for the audience, and reuses an existing one', async () => {
    fake.addFile('/a.pdf', '%PDF');
    const r = await runAction(dropboxGetLink, { provider_id: '7', path: '/a.pdf', type: 'share_link', share_audience: 'team', variable_name: 'link' }, options());
    expect(r.errors).toEqual([]);
    expect(r.vars.link).toMatch(/^https:\/\/www\.dropbox\.com\/scl\/fi\//);
    expect(fake.calls[0]?.arg).toEqual({ path: '/a.pdf', settings: { audience: 'team' } });
    expect(fake.links.get('/a.pdf')?.audience).toBe('team');

    const again = await runAction(dropboxGetLink, { provider_id: '7', path: '/a.pdf', type: 'share_link', variable_name: 'link' }, options());
    expect(again.errors).toEqual([]);
    expect(again.vars.link).toBe(r.vars.link);
    expect(fake.calls.slice(1).map((c) => c.path)).toEqual(['/2/sharing/create_shared_link_with_settings', '/2/sharing/list_shared_links']);
  });

  it('a folder or a missing file is an action error', async () => {
    fake.folders.set('/docs', '/docs');
    const r1 = await runAction(dropboxGetLink, { provider_id: '7', path: '/docs' }, options());
    const r2 = await runAction(dropboxGetLink, { provider_id: '7', path: '/none.pdf', type: 'share_link' }, options());
    expect(r1.errors).toEqual(['Dropbox could not make a temporary link to /docs: that path is a folder, not a file (path/not_file)']);
    expect(r2.errors).toEqual(['Dropbox could not share /none.pdf: nothing exists at that path (path/not_found)']);
  });

  it('checks type and share_audience', () => {
    expect(() => validateParams(dropboxGetLink, { provider_id: '7', path: '/a', type: 'forever' })).toThrow(/parameters.type/);
    expect(() => validateParams(dropboxGetLink, { provider_id: '7', path: '/a', share_audience: 'everyone' })).toThrow(/parameters.share_audience/);
    expect(validateParams(dropboxGetLink, { provider_id: '7', path: '/a', type: '', share_audience: null })).toBeTruthy();
  });
});

describe('the account', () => {
  it('renews a rejected token with the refresh token, retries, and saves the new token to the provider', async () => {
    fake.addFile('/a.txt', 'hello');
    const clock = fakeClock();
    const providers = accounts({ access_token: 'at-expired', ...OAUTH_APP });
    const download = () => runAction(dropboxDownloadFile, { provider_id: '7', path: '/a.txt', variable_name: 'f' }, options(undefined, { services: { providers, clock } }));
    const r = await download();
    expect(r.errors).toEqual([]);
    expect(r.vars.f).toBe('hello');
    expect(fake.tokenCalls).toHaveLength(1);
    expect(Object.fromEntries(fake.tokenCalls[0]!)).toEqual({ grant_type: 'refresh_token', ...OAUTH_APP });
    expect(fake.calls.map((c) => c.headers.authorization)).toEqual(['Bearer at-expired', 'Bearer at-renewed-1']);
    expect(r.output[0]).toBe('Renewed the Dropbox access token and saved it to Dropbox provider 7');
    expect((await providers.get('7', 'dropbox')).credentials).toEqual({ access_token: 'at-renewed-1', expires_at: Math.floor(clock.now() / 1000) + 14400, ...OAUTH_APP });

    // A later run (or another process: nothing in memory) reads the renewed token from the provider.
    forgetOAuthRenewals();
    fake.calls.length = 0;
    const again = await download();
    expect(again.errors).toEqual([]);
    expect(fake.tokenCalls).toHaveLength(1);
    expect(fake.calls.map((c) => c.headers.authorization)).toEqual(['Bearer at-renewed-1']);
  });

  it('renews an expired token before calling', async () => {
    const clock = fakeClock();
    const r = await runAction(dropboxCreateFolder, { provider_id: '7', path: '/x' }, options({ access_token: 'at-valid', expires_at: Math.floor(clock.now() / 1000) - 10, ...OAUTH_APP }, { services: { clock } }));
    expect(r.errors).toEqual([]);
    expect(fake.tokenCalls).toHaveLength(1);
    expect(fake.calls.map((c) => c.headers.authorization)).toEqual(['Bearer at-renewed-1']);
  });

  it('a rejected token that cannot be renewed is an action error saying what to do', async () => {
    const r = await runAction(dropboxDelete, { provider_id: '7', path: '/a' }, options({ access_token: 'at-expired' }));
    expect(r.errors).toEqual([
      'Dropbox could not delete /a: the access token is invalid or expired (expired_access_token); the access token was rejected and cannot be renewed: update Dropbox provider 7 with a new access_token, or add refresh_token, client_id and client_secret',
    ]);
    expect(fake.tokenCalls).toHaveLength(0);
  });

  it('a refused renewal is an action error', async () => {
    const r = await runAction(dropboxDelete, { provider_id: '7', path: '/a' }, options({ access_token: 'at-expired', ...OAUTH_APP, refresh_token: 'revoked' }));
    expect(r.errors).toEqual(['Could not renew the Dropbox access token of Dropbox provider 7 (invalid_grant: refresh token is invalid or revoked); reconnect the account']);
  });

  it('a missing provider, one of another type, or one without a token is an action error', async () => {
    const missing = await runAction(dropboxDelete, { provider_id: '99', path: '/a' }, options());
    const wrong = await runAction(dropboxDelete, { provider_id: '8', path: '/a' }, options());
    const empty = await runAction(dropboxDelete, { provider_id: '7', path: '/a' }, options({ client_id: 'c' }));
    expect(missing.errors).toEqual(['Provider 99 not found']);
    expect(wrong.errors).toEqual(['Provider 8 is a google account, not dropbox']);
    expect(empty.errors).toEqual(['Dropbox provider 7 has no usable credentials: access_token give access_token, or refresh_token with client_id']);
    expect(fake.calls).toHaveLength(0);
  });

  it('needs a provider_id', () => {
    expect(() => validateParams(dropboxDelete, { path: '/a' })).toThrow(/parameters.provider_id: is required/);
    expect(() => validateParams(dropboxDelete, { provider_id: '', path: '/a' })).toThrow(/parameters.provider_id/);
    expect(() => validateParams(dropboxDelete, { provider_id: '7' })).toThrow(/parameters.path: is required/);
  });
});
