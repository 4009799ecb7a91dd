import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { createSealer } from '../../auth/sealing.js';

const PASSWORD = 'hunter2-secret-pw';
const MARKER = '********';

let s: TestServer;
let owner: { id: number; key: string };
let dir: string;
let dataDir: string;
let target: http.Server;
let targetUrl: string;
/** Authorization headers the target received, newest last. */
const seen: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
  // A folder that does not exist yet, so the service creates it.
  dataDir = path.join(dir, 'data');
  s = await startTestServer({ DATA_DIR: dataDir });
  owner = await s.user(true);
  target = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.end('ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => target?.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The token's stored workflow row, read from the SQLite file itself. */
function storedRow(token: string): string {
  const db = new Database(path.join(dataDir, 'capture.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT document FROM token_workflows WHERE token_id = ?').pluck().get(token) as string | undefined) ?? '';
  } finally {
    db.close();
  }
}

const httpAction = (password: string, content = 'x') => ({ type: 'http', parameters: { url: targetUrl, method: 'POST', content, auth: { mode: 'basic', username: 'bob', password } } });
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

/** Captures a request on the token and returns the Authorization header its HTTP action sent. */
async function sentAuthorization(token: string): Promise<string | undefined> {
  const before = seen.length;
  await s.call('POST', `/${token}`, { body: 'go' });
  const q = (await s.call('GET', `/token/${token}/request/latest`, { key: owner.key })).data;
  expect(q.custom_action_errors).toEqual([]);
  return seen.length > before ? seen.at(-1) : undefined;
}

describe('secret action parameters', () => {
  it('stores an HTTP basic password sealed, shows the marker, and runs with the real password', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const created = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: httpAction(PASSWORD) });
    expect(created.status).toBe(200);
    expect(created.data.parameters.auth.password).toBe(MARKER);
    expect(created.text).not.toContain(PASSWORD);

    const row = storedRow(t.uuid);
    expect(row).toContain(t.uuid);
    expect(row).not.toContain(PASSWORD);
    expect(JSON.parse(row).spec.steps[0].parameters.auth.password).toMatch(/^sealed:v1\./);

    const list = await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key });
    expect(list.data.data[0].parameters.auth).toEqual({ mode: 'basic', username: 'bob', password: MARKER });
    expect(await sentAuthorization(t.uuid)).toBe(basic('bob', PASSWORD));

    // The editor sends the marker back with other changes: the stored password stays.
    const updated = await s.call('PUT', `/token/${t.uuid}/actions/${created.data.uuid}`, { key: owner.key, json: httpAction(MARKER, 'changed') });
    expect(updated.status).toBe(200);
    expect(updated.data.parameters).toMatchObject({ content: 'changed', auth: { password: MARKER } });
    expect(storedRow(t.uuid)).not.toContain(PASSWORD);
    expect(await sentAuthorization(t.uuid)).toBe(basic('bob', PASSWORD));

    // A new password replaces it.
    await s.call('PUT', `/token/${t.uuid}/actions/${created.data.uuid}`, { key: owner.key, json: httpAction('new-pw') });
    expect(await sentAuthorization(t.uuid)).toBe(basic('bob', 'new-pw'));
  });

  it('seals a database password and never returns it', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const params = { type: 'mysql', host: 'db.example.test', database: 'app', username: 'app', password: PASSWORD, statement: 'SELECT 1' };
    const created = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'database', parameters: params } });
    expect(created.status).toBe(200);
    expect(created.data.parameters).toMatchObject({ username: 'app', password: MARKER });
    expect(storedRow(t.uuid)).not.toContain(PASSWORD);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).text).not.toContain(PASSWORD);
  });

  it('refuses the marker where no secret is stored, and sealed-looking input, with 422 naming the field', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const marker = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: httpAction(MARKER) });
    expect(marker.status).toBe(422);
    expect(Object.keys(marker.data.errors)).toEqual(['parameters.auth.password']);
    const sealed = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: httpAction('sealed:v1.abc.def.ghi.jkl') });
    expect(sealed.status).toBe(422);
    expect(Object.keys(sealed.data.errors)).toEqual(['parameters.auth.password']);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toEqual([]);
  });

  it('tests an existing action with the marker using the stored secret', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const created = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: httpAction(PASSWORD) });
    const before = seen.length;
    const r = await s.call('POST', `/token/${t.uuid}/test-action?action_id=${created.data.uuid}`, { key: owner.key, json: httpAction(MARKER) });
    expect(r.status).toBe(200);
    expect(r.data.success).toBe(true);
    expect(seen.slice(before)).toEqual([basic('bob', PASSWORD)]);
  });

  it('exports workflows without the secret, and applying the export keeps the stored one', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: httpAction(PASSWORD) });

    const yaml = await s.call('GET', `/token/${t.uuid}/workflow`, { key: owner.key, headers: { Accept: 'application/yaml' } });
    expect(yaml.text).not.toContain(PASSWORD);
    expect(yaml.text).toMatch(/^# 1 secret parameter\(s\) exported as "\*{8}"/);
    const json = await s.call('GET', `/token/${t.uuid}/workflow?format=json`, { key: owner.key });
    expect(json.text).not.toContain(PASSWORD);
    expect(json.data.spec.steps[0].parameters.auth.password).toBe(MARKER);

    const applied = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, body: yaml.text, headers: { 'Content-Type': 'application/yaml' } });
    expect(applied.status).toBe(200);
    expect(applied.text).not.toContain(PASSWORD);
    expect(await sentAuthorization(t.uuid)).toBe(basic('bob', PASSWORD));

    // Elsewhere the marker stands for nothing: a clear 422 instead of storing the placeholder.
    const other = await s.token({ actions: true }, owner.key);
    const doc = YAML.parse(yaml.text);
    doc.metadata.token = other.uuid;
    const refused = await s.call('PUT', `/token/${other.uuid}/workflow`, { key: owner.key, json: doc });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.data.errors)).toEqual(['spec.steps.0.parameters.auth.password']);
  });

  it('runs and masks a password stored in plain before sealing, and seals it on the next save', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const step = { id: '11111111-1111-4111-8111-111111111111', ...httpAction(PASSWORD), disabled: false };
    const legacy = { apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token: t.uuid }, spec: { steps: [step] } };
    await s.services.store.workflows.putForToken(t.uuid, legacy, Date.now());
    expect(storedRow(t.uuid)).toContain(PASSWORD);

    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data[0].parameters.auth.password).toBe(MARKER);
    expect(await sentAuthorization(t.uuid)).toBe(basic('bob', PASSWORD));

    const other = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'text_split', parameters: { source: 'a,b', delimiter: ',', variable_name: 'part' } } });
    expect(other.status).toBe(200);
    expect(storedRow(t.uuid)).not.toContain(PASSWORD);
    expect(await sentAuthorization(t.uuid)).toBe(basic('bob', PASSWORD));
  });

  it('fails only the action whose secret was sealed under another key, saying why', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const foreign = `sealed:${createSealer('some other key').seal(PASSWORD)}`;
    const step = { id: '22222222-2222-4222-8222-222222222222', ...httpAction(foreign), disabled: false };
    const doc = { apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token: t.uuid }, spec: { steps: [step] } };
    await s.services.store.workflows.putForToken(t.uuid, doc, Date.now());
    await s.call('POST', `/${t.uuid}`, { body: 'go' });
    const q = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;
    expect(q.custom_action_errors).toEqual([{ action: step.id, message: expect.stringMatching(/secret parameter cannot be used: .*another SECRET_KEY/) }]);
  });

  it('masks and seals secrets in action templates', async () => {
    const created = await s.call('POST', '/templates', { key: owner.key, json: { name: 'with secret', actions: [httpAction(PASSWORD)] } });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(PASSWORD);
    expect(created.data.actions[0].parameters.auth.password).toBe(MARKER);
    const db = new Database(path.join(dataDir, 'capture.sqlite'), { readonly: true });
    try {
      expect(JSON.stringify(db.prepare('SELECT * FROM templates').all())).not.toContain(PASSWORD);
    } finally {
      db.close();
    }
  });
});

describe('data file modes', () => {
  it('creates DATA_DIR 0700 and capture.sqlite with its -wal and -shm 0600', () => {
    const mode = (f: string) => fs.statSync(f).mode & 0o777;
    expect(mode(dataDir)).toBe(0o700);
    for (const f of ['capture.sqlite', 'capture.sqlite-wal', 'capture.sqlite-shm']) expect([f, mode(path.join(dataDir, f))]).toEqual([f, 0o600]);
  });
});
