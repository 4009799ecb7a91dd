// The Providers API over HTTP: credentials validated by the plugin's schema, sealed at rest, never
// returned, readable by the owner's actions only; settings shown; generated credentials.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const VAULT = fileURLToPath(new URL('../../../test/fixtures/plugin-vault', import.meta.url));
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let s: TestServer;
let dir: string;
let alice: { id: number; key: string };
let bob: { id: number; key: string };

beforeAll(async () => {
  // A file store, to look at what is at rest.
  dir = await mkdtemp(path.join(tmpdir(), 'providers-'));
  s = await startTestServer({ PLUGINS: VAULT, DATA_DIR: dir });
  alice = await s.user(true);
  bob = await s.user(false);
});
afterAll(async () => {
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

async function peek(key: string, providerId: string) {
  const t = await s.token({ actions: true }, key);
  const r = await s.call('POST', `/token/${t.uuid}/test-action`, { key, json: { type: 'vault_peek', parameters: { provider_id: providerId } } });
  return r.data.result as { variables: Record<string, string>; output: Record<string, string[]> } & Record<string, unknown>;
}

describe('providers API', () => {
  it('creates a provider, never shows its credentials, and lets the owner’s actions use them', async () => {
    const r = await s.call('POST', '/providers', { key: alice.key, json: { type: 'vault', name: 'Main', credentials: { api_key: 'super-secret-key' }, settings: { region: 'eu' } } });
    expect(r.status).toBe(201);
    expect(r.data).toMatchObject({ type: 'vault', name: 'Main', settings: { region: 'eu' }, credential_fields: ['api_key'] });
    expect(r.text).not.toContain('super-secret-key');
    const got = await s.call('GET', `/providers/${r.data.id}`, { key: alice.key });
    expect(got.data).toEqual(r.data);
    expect(got.text).not.toContain('super-secret-key');
    const list = await s.call('GET', '/providers?type=vault', { key: alice.key });
    expect(list.data.data.map((p: { id: string }) => p.id)).toContain(r.data.id);
    expect(list.text).not.toContain('super-secret-key');

    const result = await peek(alice.key, r.data.id);
    expect(result.variables['vault.hash']).toBe(sha('super-secret-key'));
    expect(result.variables['vault.region']).toBe('eu');
  });

  it('keeps credentials encrypted at rest', async () => {
    const r = await s.call('POST', '/providers', { key: alice.key, json: { type: 'vault', credentials: { api_key: 'at-rest-marker-123' } } });
    expect(r.status).toBe(201);
    await s.close();
    const files = [path.join(dir, 'capture.db'), path.join(dir, 'capture.db-wal')];
    for (const f of files) {
      const bytes = await readFile(f).catch(() => Buffer.alloc(0));
      expect(bytes.includes('at-rest-marker-123'), f).toBe(false);
    }
    // The key file was created beside the database, readable by the owner only.
    const keyFile = path.join(dir, 'secret.key');
    expect((await readFile(keyFile, 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
    // Reopened with the same key file, the credentials still open.
    s = await startTestServer({ PLUGINS: VAULT, DATA_DIR: dir });
    const result = await peek(alice.key, r.data.id);
    expect(result.variables['vault.hash']).toBe(sha('at-rest-marker-123'));
  });

  it('generates credentials when none are sent', async () => {
    const r = await s.call('POST', '/providers', { key: alice.key, json: { type: 'vault' } });
    expect(r.status).toBe(201);
    expect(r.data).toMatchObject({ name: 'Vault', settings: { region: 'generated' }, credential_fields: ['api_key'] });
    expect((await peek(alice.key, r.data.id)).variables['vault.hash']).toBe(sha('generated-key-0123'));
  });

  it('updates name and settings, merges credentials, and removes a field with null', async () => {
    const r = await s.call('POST', '/providers', { key: alice.key, json: { type: 'vault', credentials: { api_key: 'first-key-000', extra: 'x' } } });
    const u = await s.call('PUT', `/providers/${r.data.id}`, { key: alice.key, json: { name: 'Renamed', settings: { region: 'us' }, credentials: { api_key: 'second-key-00', extra: null } } });
    expect(u.status).toBe(200);
    expect(u.data).toMatchObject({ name: 'Renamed', settings: { region: 'us' }, credential_fields: ['api_key'] });
    expect((await peek(alice.key, r.data.id)).variables['vault.hash']).toBe(sha('second-key-00'));
    // A merge that breaks the schema is refused and changes nothing.
    const bad = await s.call('PUT', `/providers/${r.data.id}`, { key: alice.key, json: { name: 'Nope', credentials: { api_key: 'short' } } });
    expect(bad.status).toBe(422);
    expect(bad.data.errors).toHaveProperty(['credentials.api_key']);
    expect((await s.call('GET', `/providers/${r.data.id}`, { key: alice.key })).data.name).toBe('Renamed');
  });

  it('lets an action save renewed credentials, which later runs use', async () => {
    const r = await s.call('POST', '/providers', { key: alice.key, json: { type: 'vault', credentials: { api_key: 'before-rotation' } } });
    const t = await s.token({ actions: true }, alice.key);
    const run = await s.call('POST', `/token/${t.uuid}/test-action`, { key: alice.key, json: { type: 'vault_rotate', parameters: { provider_id: r.data.id, api_key: 'after-rotation' } } });
    expect(run.status).toBe(200);
    expect((await peek(alice.key, r.data.id)).variables['vault.hash']).toBe(sha('after-rotation'));
    // Saved credentials still go through the type's schema.
    const bad = await s.call('POST', `/token/${t.uuid}/test-action`, { key: alice.key, json: { type: 'vault_rotate', parameters: { provider_id: r.data.id, api_key: 'x' } } });
    expect(JSON.stringify(bad.data)).toMatch(/credentials.api_key/);
    expect((await peek(alice.key, r.data.id)).variables['vault.hash']).toBe(sha('after-rotation'));
  });

  it('is private to its owner: other users get 404 and their actions cannot use it', async () => {
    const r = await s.call('POST', '/providers', { key: alice.key, json: { type: 'vault', credentials: { api_key: 'alice-only-key' } } });
    expect((await s.call('GET', `/providers/${r.data.id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('PUT', `/providers/${r.data.id}`, { key: bob.key, json: { name: 'x' } })).status).toBe(404);
    expect((await s.call('DELETE', `/providers/${r.data.id}`, { key: bob.key })).status).toBe(404);
    const result = await peek(bob.key, r.data.id);
    expect(result.variables['vault.hash']).toBeUndefined();
    expect(JSON.stringify(result)).toMatch(/not found in this account/);
    expect((await s.call('DELETE', `/providers/${r.data.id}`, { key: alice.key })).status).toBe(204);
    expect((await s.call('GET', `/providers/${r.data.id}`, { key: alice.key })).status).toBe(404);
  });

  it('refuses bad input with 422 naming the field, and anonymous callers with 401', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'type'],
      [{ type: 'nope' }, 'type'],
      [{ type: 'vault', credentials: { api_key: 'short' } }, 'credentials.api_key'],
      [{ type: 'vault', credentials: { api_key: 'long-enough-1' }, settings: { unknown: 1 } }, 'settings'],
      [{ type: 'vault', credentials: 'text' }, 'credentials'],
      [{ type: 'vault', name: '' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await s.call('POST', '/providers', { key: alice.key, json: body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(
        Object.keys(r.data.errors).some((k) => k.startsWith(field)),
        `${JSON.stringify(body)} -> ${JSON.stringify(r.data.errors)}`,
      ).toBe(true);
    }
    expect((await s.call('POST', '/providers', { json: { type: 'vault' } })).status).toBe(401);
    expect((await s.call('GET', '/providers')).status).toBe(401);
  });

  it('lists provider types with the JSON Schemas of their fields', async () => {
    const r = await s.call('GET', '/provider-types');
    const vault = r.data.find((p: { type: string }) => p.type === 'vault');
    expect(vault).toMatchObject({ title: 'Vault', generates_credentials: true, plugin: '@capture-test/plugin-vault' });
    expect(vault.credentials.properties.api_key).toBeDefined();
  });

  it('an anonymous token’s actions get a clear error', async () => {
    const t = await s.token({ actions: true });
    const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'vault_peek', parameters: { provider_id: 'x' } } });
    expect(r.status).toBeLessThan(300);
    const cap = await s.call('POST', `/${t.uuid}`, { body: 'x' });
    expect(cap.status).toBe(200);
    const req = await s.call('GET', `/token/${t.uuid}/request/latest`);
    expect(JSON.stringify(req.data.custom_action_errors)).toMatch(/Providers belong to accounts/);
  });
});
