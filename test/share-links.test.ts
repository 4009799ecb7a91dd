// Share links end to end through the running service: a view-only link to one token's requests and
// live stream, usable without an API key, revocable, replaced by a new one; everything else refuses it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from './helpers/sse.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let owner: { id: number; key: string };
let token: Record<string, any>;
let other: Record<string, any>;

async function capture(t: string, body: string, path = 'hook') {
  const res = await fetch(`${s.url}/${t}/${path}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  expect(res.ok).toBe(true);
}

async function share(t: string) {
  const r = await s.call('POST', `/token/${t}/share`, { key: owner.key });
  expect(r.status).toBe(201);
  return r.data as { url: string; secret: string; created_at: string };
}

const view = (path: string, secret: string) => s.call('GET', path, { headers: { 'Share-Key': secret } });

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user(false);
  token = await s.token({}, owner.key);
  other = await s.token({}, owner.key);
  await capture(token.uuid, 'first');
  const form = new FormData();
  form.append('upload', new Blob([Buffer.from('file bytes')], { type: 'text/plain' }), 'a.txt');
  await fetch(`${s.url}/${token.uuid}/upload`, { method: 'POST', body: form });
  await capture(other.uuid, 'not shared');
});
afterAll(async () => {
  await s?.close();
});

describe('share links', () => {
  it('makes a link whose secret is shown once; GET says whether there is one, never the secret', async () => {
    expect((await s.call('GET', `/token/${token.uuid}/share`, { key: owner.key })).data).toEqual({ active: false, created_at: null });
    const made = await share(token.uuid);
    expect(made.secret).toMatch(/^shr_[A-Za-z0-9_-]{32}$/);
    expect(made.url).toBe(`${s.url}/#/share/${token.uuid}/${made.secret}`);
    const status = await s.call('GET', `/token/${token.uuid}/share`, { key: owner.key });
    expect(status.data).toEqual({ active: true, created_at: made.created_at });
    expect(status.text).not.toContain(made.secret);
    // Managing the link needs the owner's key.
    expect((await s.call('POST', `/token/${token.uuid}/share`)).status).toBe(401);
    expect((await s.call('GET', `/token/${token.uuid}/share`, { headers: { 'Share-Key': made.secret } })).status).toBe(403);
  });

  it("opens the token's requests, one request, its body and files without an API key", async () => {
    const { secret } = await share(token.uuid);
    expect((await s.call('GET', `/token/${token.uuid}/requests`)).status).toBe(401);
    const list = await view(`/token/${token.uuid}/requests?sorting=oldest`, secret);
    expect(list.status).toBe(200);
    expect(list.data.total).toBe(2);
    const first = list.data.data[0];
    expect(first.content).toBe('first');
    expect((await s.call('GET', `/token/${token.uuid}/requests?share=${secret}`)).data.total).toBe(2);
    expect((await view(`/token/${token.uuid}/request/${first.uuid}`, secret)).data.uuid).toBe(first.uuid);
    expect((await view(`/token/${token.uuid}/request/latest`, secret)).status).toBe(200);
    expect((await view(`/token/${token.uuid}/request/${first.uuid}/raw`, secret)).text).toBe('first');
    const upload = list.data.data[1];
    const fileId = Object.values(upload.files as Record<string, { id: string }>)[0]!.id;
    expect((await view(`/token/${token.uuid}/request/${upload.uuid}/download/${fileId}`, secret)).text).toBe('file bytes');
  });

  it('refuses everything else: settings, writes, actions, exports and other tokens', async () => {
    const { secret } = await share(token.uuid);
    const first = (await view(`/token/${token.uuid}/requests?sorting=oldest`, secret)).data.data[0];
    const refused: Array<[string, string, unknown?]> = [
      ['GET', `/token/${token.uuid}`],
      ['PUT', `/token/${token.uuid}`, { default_content: 'changed' }],
      ['DELETE', `/token/${token.uuid}`],
      ['DELETE', `/token/${token.uuid}/request/${first.uuid}`],
      ['DELETE', `/token/${token.uuid}/request`],
      ['PUT', `/token/${token.uuid}/request/${first.uuid}/note`, { note: 'x' }],
      ['GET', `/token/${token.uuid}/actions`],
      ['GET', `/token/${token.uuid}/workflow`],
      ['GET', `/token/${token.uuid}/requests/export`],
      ['POST', `/token/${token.uuid}/request/${first.uuid}/forward`, { url: 'http://127.0.0.1:9/' }],
      ['POST', `/token/${token.uuid}/share`],
      ['DELETE', `/token/${token.uuid}/share`],
    ];
    for (const [method, path, json] of refused) {
      const r = await s.call(method, path, { headers: { 'Share-Key': secret }, json });
      expect([401, 403], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
      expect(r.data?.message, `${method} ${path}`).toEqual(expect.any(String));
    }
    // Nothing changed or went.
    const after = await s.call('GET', `/token/${token.uuid}`, { key: owner.key });
    expect(after.data.default_content).toBe('');
    expect((await view(`/token/${token.uuid}/requests`, secret)).data.total).toBe(2);
    // The secret opens its own token only.
    const elsewhere = await view(`/token/${other.uuid}/requests`, secret);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.data.message).toMatch(/share link/);
  });

  it('a new link invalidates the old one; revoking ends the link', async () => {
    const old = await share(token.uuid);
    const fresh = await share(token.uuid);
    expect((await view(`/token/${token.uuid}/requests`, old.secret)).status).toBe(401);
    expect((await view(`/token/${token.uuid}/requests`, fresh.secret)).status).toBe(200);
    expect((await s.call('DELETE', `/token/${token.uuid}/share`, { key: owner.key })).status).toBe(204);
    expect((await view(`/token/${token.uuid}/requests`, fresh.secret)).status).toBe(401);
    expect((await s.call('GET', `/token/${token.uuid}/share`, { key: owner.key })).data.active).toBe(false);
    expect((await s.call('DELETE', `/token/${token.uuid}/share`, { key: owner.key })).status).toBe(204);
  });

  it('bad or unknown secrets and tokens answer 4xx, never 5xx', async () => {
    const { secret } = await share(token.uuid);
    for (const bad of ['x', 'shr_' + 'a'.repeat(500), secret + 'x', '%00', ' ']) {
      const r = await s.call('GET', `/token/${token.uuid}/requests?share=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(401);
    }
    expect((await view('/token/00000000-0000-4000-8000-000000000000/requests', secret)).status).toBe(404);
    expect((await s.call('POST', '/token/00000000-0000-4000-8000-000000000000/share', { key: owner.key })).status).toBe(404);
  });

  it('the live stream: captures arrive, settings never do; revoking the link ends the stream', async () => {
    const { secret } = await share(token.uuid);
    expect((await openSse(`${s.url}/token/${token.uuid}/events?share=bogus`)).status).toBe(401);
    const sse = await openSse(`${s.url}/token/${token.uuid}/events?share=${secret}`);
    expect(sse.status).toBe(200);
    await capture(token.uuid, 'live one');
    const created = await sse.waitFor((e) => e.event === 'request.created');
    expect(created.json.content).toBe('live one');
    // A settings change reaches the owner's stream, not the shared one.
    const ownerSse = await openSse(`${s.url}/token/${token.uuid}/events?api_key=${owner.key}`);
    expect((await s.call('PUT', `/token/${token.uuid}`, { key: owner.key, json: { default_status: 201 } })).status).toBe(200);
    await ownerSse.waitFor((e) => e.event === 'token.updated');
    await capture(token.uuid, 'after the change');
    await sse.waitFor((e) => e.event === 'request.created' && e.json.content === 'after the change');
    expect(sse.events.some((e) => e.event === 'token.updated')).toBe(false);
    // Revoked: the shared stream ends, the owner's goes on.
    expect((await s.call('DELETE', `/token/${token.uuid}/share`, { key: owner.key })).status).toBe(204);
    await sse.ended;
    await capture(token.uuid, 'after revoking');
    await ownerSse.waitFor((e) => e.event === 'request.created' && e.json.content === 'after revoking');
    expect(sse.events.some((e) => e.json?.content === 'after revoking')).toBe(false);
    ownerSse.close();
  });

  it('replacing the link ends streams opened with the old one', async () => {
    const { secret } = await share(token.uuid);
    const sse = await openSse(`${s.url}/token/${token.uuid}/events?share=${secret}`);
    expect(sse.status).toBe(200);
    await share(token.uuid);
    await sse.ended;
  });

  it('a deleted token takes its share link with it', async () => {
    const t = await s.token({}, owner.key);
    const { secret } = await share(t.uuid);
    expect((await s.call('DELETE', `/token/${t.uuid}`, { key: owner.key })).status).toBe(204);
    expect(await s.services.store.shares.get(t.uuid)).toBeNull();
    expect((await view(`/token/${t.uuid}/requests`, secret)).status).toBe(404);
  });
});
