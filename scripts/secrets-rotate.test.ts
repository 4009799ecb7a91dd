// `npm run cli -- secrets rotate`: secrets sealed under key A (a provider, a workflow's secret
// parameter, a template's secret parameter) are re-sealed while a service with SECRET_KEY=B and
// SECRET_KEY_PREVIOUS=A runs; afterwards B alone opens everything, and a second run changes nothing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSealer } from '../core/auth/sealing.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { main } from './cli.js';

const VAULT = fileURLToPath(new URL('../test/fixtures/plugin-vault', import.meta.url));
const KEY_A = 'old-key-A-0123456789abcdefghijklmnop';
const KEY_B = 'new-key-B-0123456789abcdefghijklmnop';
const WORKFLOW_PW = 'workflow-secret-pw';
const TEMPLATE_PW = 'template-secret-pw';
const API_KEY = 'provider-api-key-42';
const keyId = (key: string) => createSealer(key).seal(0).split('.')[1]!;

let dir: string;
let dataDir: string;
let target: http.Server;
let targetUrl: string;
/** Authorization headers the target received. */
const seen: string[] = [];
let out: string[];
let server: TestServer | undefined;
let owner: { id: number; key: string };
let token: string;
let providerId: string;

const start = async (env: Record<string, string>) => {
  server = await startTestServer({ DATA_DIR: dataDir, PLUGINS: VAULT, ...env });
  return server;
};
const stop = async () => {
  await server?.close();
  server = undefined;
};

/** The CLI as `npm run cli -- ...` runs it, with these environment variables. */
async function cli(env: Record<string, string>, ...argv: string[]): Promise<number> {
  out = [];
  vi.stubEnv('DATA_DIR', dataDir);
  vi.stubEnv('PLUGINS', VAULT);
  vi.stubEnv('LOG_LEVEL', 'silent');
  // Vite (under vitest) sets BASE_URL=/ for itself; the service's BASE_URL is unset here.
  vi.stubEnv('BASE_URL', '');
  vi.stubEnv('SECRET_KEY_PREVIOUS', '');
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  try {
    return await main(argv);
  } finally {
    vi.unstubAllEnvs();
  }
}

const httpAction = (password: string) => ({ type: 'http', parameters: { url: targetUrl, method: 'POST', content: 'x', auth: { mode: 'basic', username: 'bob', password } } });
const basic = (pw: string) => `Basic ${Buffer.from(`bob:${pw}`).toString('base64')}`;

/** Every stored value that names a key, read from the SQLite file: the key ids in use. */
function storedKeyIds(): Set<string> {
  const db = new Database(path.join(dataDir, 'capture.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const text = JSON.stringify([db.prepare('SELECT secret FROM providers').all(), db.prepare('SELECT document FROM token_workflows').all(), db.prepare('SELECT actions FROM templates').all()]);
    return new Set([...text.matchAll(/v1\.([\w-]{8})\./g)].map((m) => m[1]!));
  } finally {
    db.close();
  }
}

/** Captures a request on the token: the chain's errors, and the Authorization headers its actions sent. */
async function capture(s: TestServer): Promise<{ errors: unknown[]; sent: string[] }> {
  const before = seen.length;
  await s.call('POST', `/${token}`, { body: 'go' });
  const q = (await s.call('GET', `/token/${token}/request/latest`, { key: owner.key })).data;
  return { errors: q.custom_action_errors, sent: seen.slice(before) };
}

async function providerHash(s: TestServer): Promise<unknown> {
  const r = await s.call('POST', `/token/${token}/test-action`, { key: owner.key, json: { type: 'vault_peek', parameters: { provider_id: providerId } } });
  return r.data?.result?.variables?.['vault.hash'] ?? r.data;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rotate-'));
  dataDir = path.join(dir, 'data');
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
  target = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.end('ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;

  // Everything sealed under key A.
  const s = await start({ SECRET_KEY: KEY_A });
  owner = await s.user(true);
  token = (await s.token({ actions: true }, owner.key)).uuid;
  const provider = await s.call('POST', '/providers', { key: owner.key, json: { type: 'vault', credentials: { api_key: API_KEY } } });
  expect(provider.status).toBe(201);
  providerId = provider.data.id;
  const template = await s.call('POST', '/templates', { key: owner.key, json: { name: 'with secret', actions: [httpAction(TEMPLATE_PW)] } });
  expect(template.status).toBe(201);
  expect((await s.call('POST', `/token/${token}/actions`, { key: owner.key, json: httpAction(WORKFLOW_PW) })).status).toBe(200);
  expect((await s.call('POST', `/token/${token}/actions`, { key: owner.key, json: { type: 'template', parameters: { template_id: template.data.id } } })).status).toBe(200);
  expect(await capture(s)).toEqual({ errors: [], sent: [basic(WORKFLOW_PW), basic(TEMPLATE_PW)] });
  await stop();
  expect(storedKeyIds()).toEqual(new Set([keyId(KEY_A)]));
});
afterAll(async () => {
  await stop();
  vi.restoreAllMocks();
  await new Promise((r) => target?.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run cli -- secrets rotate', () => {
  it('re-seals every secret under the new key beside a running service, and then the old key is not needed', async () => {
    // New key, old one still known: the service works before the rotation...
    const during = await start({ SECRET_KEY: KEY_B, SECRET_KEY_PREVIOUS: KEY_A });
    expect(await capture(during)).toEqual({ errors: [], sent: [basic(WORKFLOW_PW), basic(TEMPLATE_PW)] });

    expect(await cli({ SECRET_KEY: KEY_B, SECRET_KEY_PREVIOUS: KEY_A }, 'secrets', 'rotate')).toBe(0);
    const text = out.join('');
    expect(text).toMatch(/providers +re-sealed 1, already current 0, failed 0/);
    expect(text).toMatch(/workflow secrets +re-sealed 1, already current 0, failed 0/);
    expect(text).toMatch(/template secrets +re-sealed 1, already current 0, failed 0/);
    expect(text).not.toMatch(/secret-pw|provider-api-key/);
    expect(storedKeyIds()).toEqual(new Set([keyId(KEY_B)]));

    // ...and after it.
    expect(await capture(during)).toEqual({ errors: [], sent: [basic(WORKFLOW_PW), basic(TEMPLATE_PW)] });
    await stop();

    // SECRET_KEY_PREVIOUS removed: the action runs with the real secrets, the provider's credentials open.
    const after = await start({ SECRET_KEY: KEY_B });
    expect(await capture(after)).toEqual({ errors: [], sent: [basic(WORKFLOW_PW), basic(TEMPLATE_PW)] });
    expect(await providerHash(after)).toBe(createHash('sha256').update(API_KEY).digest('hex'));
    const view = await after.call('GET', `/providers/${providerId}`, { key: owner.key });
    expect(view.data.credential_fields).toEqual(['api_key']);
    await stop();
  });

  it('finds everything already current on a second run', async () => {
    expect(await cli({ SECRET_KEY: KEY_B }, 'secrets', 'rotate')).toBe(0);
    const text = out.join('');
    expect(text).toMatch(/providers +re-sealed 0, already current 1, failed 0/);
    expect(text).toMatch(/workflow secrets +re-sealed 0, already current 1, failed 0/);
    expect(text).toMatch(/template secrets +re-sealed 0, already current 1, failed 0/);
    expect(storedKeyIds()).toEqual(new Set([keyId(KEY_B)]));
  });

  it('names each secret it cannot open and why, and exits 1', async () => {
    const s = await start({ SECRET_KEY: KEY_B });
    const foreign = {
      id: '0f0f0f0f-0000-4000-8000-000000000001',
      user_id: owner.id,
      type: 'vault',
      name: 'lost',
      settings: {},
      secret: createSealer('an unknown key, not A and not B!').seal({ api_key: 'x' }),
      created_at: 1,
      updated_at: 1,
    };
    await s.services.store.providers.create(foreign);
    await stop();
    expect(await cli({ SECRET_KEY: KEY_B }, 'secrets', 'rotate')).toBe(1);
    const text = out.join('');
    expect(text).toMatch(/providers +re-sealed 0, already current 1, failed 1/);
    expect(text).toContain(`failed   provider ${foreign.id} (user ${owner.id}) (credentials): This secret was sealed under another SECRET_KEY`);
    expect(text).toMatch(/set SECRET_KEY_PREVIOUS/);
  });
});
