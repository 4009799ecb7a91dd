// A template saved from a token's chain (`from_token`): the actions API shows secrets as the marker,
// and the marker stands for the token's stored secret, so the template runs with the real one.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const PASSWORD = 'hunter2-template-pw';

let s: TestServer;
let alice: { id: number; key: string };
let bob: { id: number; key: string };
let target: http.Server;
let targetUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  s = await startTestServer();
  alice = await s.user(true);
  bob = await s.user(false);
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
});

/** A token of Alice's whose chain calls the target with a Basic password; its actions as the API lists them. */
async function chainWithSecret() {
  const t = await s.token({ actions: true }, alice.key);
  const add = await s.call('POST', `/token/${t.uuid}/actions`, {
    key: alice.key,
    json: { type: 'http', name: 'call', parameters: { url: targetUrl, method: 'POST', content: 'x', auth: { mode: 'basic', username: 'bob', password: PASSWORD } } },
  });
  expect(add.status, add.text).toBe(200);
  const listed = (await s.call('GET', `/token/${t.uuid}/actions`, { key: alice.key })).data.data as Array<Record<string, unknown>>;
  expect(JSON.stringify(listed)).not.toContain(PASSWORD);
  return { token: t.uuid as string, actions: listed.map(({ uuid, type, name, parameters }) => ({ uuid, type, name, parameters })) };
}

describe('POST /templates with from_token', () => {
  it('without it, a secret shown as the marker is refused, naming the field', async () => {
    const { actions } = await chainWithSecret();
    const r = await s.call('POST', '/templates', { key: alice.key, json: { name: 'copy', actions } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.data.errors)).toEqual(['actions.0.parameters.auth.password']);
  });

  it("with it, the token's stored secret is kept, and the template runs with it", async () => {
    const { token, actions } = await chainWithSecret();
    const r = await s.call('POST', '/templates', { key: alice.key, json: { name: 'copy', actions, from_token: token } });
    expect(r.status, r.text).toBe(201);
    expect(r.text).not.toContain(PASSWORD);

    const other = await s.token({ actions: true }, alice.key);
    await s.call('POST', `/token/${other.uuid}/actions`, { key: alice.key, json: { type: 'template', parameters: { template_id: r.data.id } } });
    const before = seen.length;
    await s.call('POST', `/${other.uuid}`, { body: 'go' });
    const q = (await s.call('GET', `/token/${other.uuid}/request/latest`, { key: alice.key })).data;
    expect(q.custom_action_errors).toEqual([]);
    expect(seen.slice(before)).toEqual([`Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}`]);
  });

  it('a token the caller may not open lends no secrets: 403, and 422 for a malformed from_token', async () => {
    const { token, actions } = await chainWithSecret();
    const r = await s.call('POST', '/templates', { key: bob.key, json: { name: 'steal', actions, from_token: token } });
    expect(r.status).toBe(403);
    const bad = await s.call('POST', '/templates', { key: alice.key, json: { name: 'x', actions: [], from_token: 42 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.data.errors)).toEqual(['from_token']);
  });
});
