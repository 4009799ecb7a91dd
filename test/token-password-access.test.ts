// A token password reads and never changes: every route of the route list that names a token
// ({token_id}) is called on an owned, password-protected token with only its password, as
// `?password=` and as HTTP Basic. The routes that change something (every method but GET) answer
// 401/403 and leave the token, its requests, actions, share link and replays as they were; the
// routes that read answer. An anonymous token (no owner, so no owner key) stays open to whoever
// knows it and its password, writes included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../core/http/routes.js';
import type { RouteDoc } from '../core/http/route.js';
import { openSse } from './helpers/sse.js';
import { startTestServer, type CallResult, type TestServer } from './helpers/server.js';

const PASSWORD = 'correct horse battery';
const split = (source: string) => ({ type: 'text_split', parameters: { source, delimiter: ',', variable_name: 'part' } });

let s: TestServer;
let owner: { id: number; key: string };
/** The owned, password-protected token and what it holds. */
let token: string;
let request: string;
let file: string;
let action: string;
let replay: string;
/** Another token of the owner's: where a forward would go. */
let sink: string;

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user(true);
  token = (await s.token({ actions: true, description: 'as the owner left it' }, owner.key)).uuid;
  sink = (await s.token({}, owner.key)).uuid;
  const key = { key: owner.key };
  expect((await s.call('PUT', `/token/${token}/password`, { ...key, json: { password: PASSWORD, old_password: '' } })).status).toBe(200);
  action = (await s.call('POST', `/token/${token}/actions`, { ...key, json: split('$request.content$') })).data.uuid;
  const form = new FormData();
  form.append('upload', new Blob([Buffer.from('file body')], { type: 'text/plain' }), 'a.txt');
  expect((await fetch(`${s.url}/${token}`, { method: 'POST', body: form })).status).toBe(200);
  const stored = (await s.call('GET', `/token/${token}/request/latest`, key)).data;
  request = stored.uuid;
  file = Object.values<{ id: string }>(stored.files)[0]!.id;
  expect((await s.call('PUT', `/token/${token}/request/${request}/note`, { ...key, json: { note: "the owner's note" } })).status).toBe(200);
  expect((await s.call('POST', `/token/${token}/share`, key)).status).toBe(201);
  replay = (await s.call('POST', `/token/${token}/replays`, { ...key, json: { mode: 'actions' } })).data.id;
  // Settled before the walk, so that nothing changes on its own meanwhile.
  for (let i = 0; i < 100; i++) {
    const r = await s.call('GET', `/token/${token}/replays/${replay}`, key);
    if (!['queued', 'running'].includes(r.data.status)) break;
    await new Promise((done) => setTimeout(done, 50));
  }
});
afterAll(() => s?.close());

/** Everything a change could touch, as the owner sees it. */
async function snapshot() {
  const read = async (path: string) => (await s.call('GET', path, { key: owner.key })).data;
  return {
    token: await read(`/token/${token}`),
    passwordHash: (await s.services.store.tokens.get(token))?.password_hash,
    requests: await read(`/token/${token}/requests`),
    actions: await read(`/token/${token}/actions`),
    workflow: await read(`/token/${token}/workflow?format=json`),
    share: await read(`/token/${token}/share`),
    replays: await read(`/token/${token}/replays`),
  };
}

/** `/token/{token_id}/...` with this test's IDs; a parameter it does not know fails the test. */
function pathOf(route: RouteDoc, id = token): string {
  const ids: Record<string, string> = { token_id: id, request_id: request, file_id: file, action_id: action, replay_id: replay };
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in ids)) throw new Error(`${route.method} ${route.path}: no ID for {${name}} in this test`);
    return ids[name]!;
  });
}

/** A body the owner could send, so that what refuses the call is the password's limit, not the body. */
function bodyOf(route: RouteDoc): unknown {
  if (!route.body) return undefined;
  const where = `${route.method} ${route.path.replace('/requests/{request_id}', '/request/{request_id}')}`;
  switch (where) {
    case 'put /token/{token_id}':
      return { description: 'changed with the password' };
    case 'put /token/{token_id}/password':
      return { password: 'changed', old_password: PASSWORD };
    case 'put /token/{token_id}/alias':
      return { alias: 'taken-with-the-password' };
    case 'put /token/{token_id}/request/{request_id}/response':
      return { status: 201, content: '' };
    case 'post /token/{token_id}/request/{request_id}/forward':
      return { url: `${s.url}/${sink}` };
    case 'put /token/{token_id}/request/{request_id}':
    case 'put /token/{token_id}/request/{request_id}/note':
      return { note: 'changed with the password' };
    case 'post /token/{token_id}/replays':
      return { mode: 'actions' };
    case 'post /token/{token_id}/actions':
    case 'put /token/{token_id}/actions/{action_id}':
    case 'post /token/{token_id}/test-action':
      return split('changed');
    case 'put /token/{token_id}/workflow':
      return { apiVersion: 'capture/v1', kind: 'TokenActions', spec: { steps: [] } };
    case 'post /token/{token_id}/workflow/test':
      return {};
  }
  throw new Error(`${where}: this test has no body for it`);
}

const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}` });
const withPassword = (path: string, password: string) => `${path}${path.includes('?') ? '&' : '?'}password=${encodeURIComponent(password)}`;

/** The token's API routes (a capture URL, `/{token_id}`, is public by design). */
const tokenRoutes = API_ROUTES.filter((r) => r.path.startsWith('/token/{token_id}'));
const writes = tokenRoutes.filter((r) => r.method !== 'get');
const reads = tokenRoutes.filter((r) => r.method === 'get');

describe('a token password only reads', () => {
  it('the route list has the token routes this test walks', () => {
    const names = writes.map((r) => `${r.method} ${r.path}`);
    for (const known of [
      'delete /token/{token_id}',
      'delete /token/{token_id}/request',
      'put /token/{token_id}',
      'post /token/{token_id}/actions',
      'post /token/{token_id}/share',
      'post /token/{token_id}/replays',
      'put /token/{token_id}/request/{request_id}/note',
    ]) {
      expect(names).toContain(known);
    }
    expect(reads.length).toBeGreaterThan(10);
  });

  it('every route that changes something refuses the password alone (query and Basic) and changes nothing', async () => {
    const before = await snapshot();
    const answered: string[] = [];
    for (const route of writes) {
      const json = bodyOf(route);
      const path = pathOf(route) + (route.path.endsWith('/test-action') ? `?request_id=${request}` : '');
      for (const [how, call] of [
        ['query', () => s.call(route.method.toUpperCase(), withPassword(path, PASSWORD), { json })],
        ['basic', () => s.call(route.method.toUpperCase(), path, { json, headers: basic(PASSWORD) })],
      ] as Array<[string, () => Promise<CallResult>]>) {
        const r = await call();
        answered.push(`${route.method} ${route.path} (${how}) -> ${r.status}${[401, 403].includes(r.status) && typeof r.data?.message === 'string' ? '' : ` ${r.text.slice(0, 100)}`}`);
      }
    }
    expect(answered.filter((line) => !/ -> 40[13]$/.test(line))).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  it("says why: the owner's API key is needed", async () => {
    const r = await s.call('DELETE', withPassword(`/token/${token}`, PASSWORD));
    expect(r.status).toBe(403);
    expect(r.data.message).toMatch(/password only reads.*owner's API key/);
  });

  it('every route that reads answers the password (query and Basic)', async () => {
    const failed: string[] = [];
    for (const route of reads) {
      const path = pathOf(route) + (route.path.endsWith('/wait') ? `?after=0` : '');
      for (const [how, headers, url] of [
        ['query', {}, withPassword(path, PASSWORD)],
        ['basic', basic(PASSWORD), path],
      ] as Array<[string, Record<string, string>, string]>) {
        let status: number;
        if ('type' in route.response && route.response.type === 'text/event-stream') {
          const sse = await openSse(s.url + url, headers);
          status = sse.status;
          sse.close();
        } else {
          status = (await s.call('GET', url, { headers })).status;
        }
        if (status !== 200) failed.push(`${route.method} ${route.path} (${how}) -> ${status}`);
      }
    }
    expect(failed).toEqual([]);
  }, 60_000);

  it("the owner's key still changes it, and another user's key with the password only reads it", async () => {
    const other = await s.user(true);
    expect((await s.call('GET', withPassword(`/token/${token}/requests`, PASSWORD), { key: other.key })).status).toBe(200);
    const refused = await s.call('PUT', withPassword(`/token/${token}`, PASSWORD), { key: other.key, json: { description: 'other' } });
    expect(refused.status).toBe(403);
    expect((await s.call('GET', `/token/${token}`, { key: owner.key })).data.description).toBe('as the owner left it');
    const changed = await s.call('PUT', `/token/${sink}`, { key: owner.key, json: { description: 'by the owner' } });
    expect(changed.data.description).toBe('by the owner');
  });

  it("copying a token's actions into a template (from_token) needs the owner, not the password", async () => {
    const other = await s.user(true);
    const r = await s.call('POST', withPassword('/templates', PASSWORD), { key: other.key, json: { name: 'copy', actions: [], from_token: token } });
    expect(r.status).toBe(403);
    expect((await s.call('GET', '/templates', { key: other.key })).data.total).toBe(0);
  });
});

describe('an anonymous token (no owner, so no owner key)', () => {
  it('is read and changed by whoever knows it and its password', async () => {
    const premium = await s.user(true);
    const t = (await s.token()).uuid;
    // Setting a password needs a premium key; the token stays without owner.
    expect((await s.call('PUT', `/token/${t}/password`, { key: premium.key, json: { password: PASSWORD, old_password: '' } })).status).toBe(200);
    expect((await s.call('PUT', `/token/${t}`, { json: { description: 'no password' } })).status).toBe(401);
    const changed = await s.call('PUT', withPassword(`/token/${t}`, PASSWORD), { json: { description: 'with the password' } });
    expect(changed.status).toBe(200);
    expect(changed.data).toMatchObject({ user_id: null, description: 'with the password' });
    expect((await s.call('DELETE', `/token/${t}`, { headers: basic(PASSWORD) })).status).toBe(204);
  });
});
