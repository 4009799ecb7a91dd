// The response a capture sent back, as the request API shows it: rebuilt from the token's default
// (nothing stored), or kept when actions or set-response made it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const latest = async (token: string) => (await s.call('GET', `/token/${token}/request/latest`)).data;

describe('the response sent back', () => {
  it("a capture answered with the token's default shows that default, and stores nothing for it", async () => {
    const t = await s.token({ default_content: 'thanks', default_status: 202, default_content_type: 'text/plain' });
    const sent = await s.call('POST', `/${t.uuid}/201/deep?x=1`, { body: 'hi' });
    expect(sent.status).toBe(201);
    const r = await latest(t.uuid);
    expect(r.response).toEqual({
      status: 201,
      content_type: 'text/plain',
      headers: { 'Content-Type': 'text/plain', 'X-Request-Id': r.uuid, 'X-Token-Id': t.uuid },
      body: 'thanks',
      body_encoding: 'utf8',
      size: 6,
      truncated: false,
      source: 'default',
    });
    const stored = await s.services.store.requests.get(t.uuid, r.uuid);
    expect(stored!.extra).toEqual({});
    await s.call('POST', `/${t.uuid}`);
    expect((await latest(t.uuid)).response.status).toBe(202);
    // The list shows it too.
    const list = await s.call('GET', `/token/${t.uuid}/requests?sorting=newest`);
    expect(list.data.data.map((x: { response: { status: number } }) => x.response.status)).toEqual([202, 201]);
  });

  it('an answer made by actions is stored with its status, headers and body', async () => {
    const t = await s.token({ actions: true, default_content: 'default' });
    const a = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'modify_response', parameters: { content: 'hi $request.query.name$', status: '418', headers: 'X-Out: yes' } } });
    expect(a.status, a.text).toBe(200);
    const sent = await s.call('GET', `/${t.uuid}?name=bob`);
    expect(sent.status).toBe(418);
    const r = await latest(t.uuid);
    expect(r.response).toMatchObject({ status: 418, body: 'hi bob', body_encoding: 'utf8', size: 6, truncated: false, source: 'stored' });
    expect(r.response.headers).toMatchObject({ 'X-Out': 'yes', 'X-Request-Id': r.uuid, 'Content-Type': sent.headers.get('content-type') });
    // Changing the token's default later does not change what this request was answered.
    await s.call('PUT', `/token/${t.uuid}`, { json: { default_content: 'changed' } });
    expect((await latest(t.uuid)).response.body).toBe('hi bob');
  });

  it('a large answer is kept up to 64 KiB and marked truncated, without splitting a character', async () => {
    const t = await s.token({ actions: true });
    // 3-byte characters: 64 KiB is not a multiple of 3, so the bound falls inside one.
    const big = '€'.repeat(30_000);
    await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'modify_response', parameters: { content: big } } });
    const sent = await s.call('GET', `/${t.uuid}`);
    expect(sent.text).toBe(big);
    const r = await latest(t.uuid);
    expect(r.response).toMatchObject({ truncated: true, size: Buffer.byteLength(big), body_encoding: 'utf8' });
    expect(r.response.body).toBe('€'.repeat(Math.floor((64 * 1024) / 3)));
  });

  it('a binary answer set through set-response is stored as base64', async () => {
    const t = await s.token({ listen: 5 });
    const pending = s.call('POST', `/${t.uuid}`, { body: 'ping' });
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      const r = await s.call('GET', `/token/${t.uuid}/request/latest`);
      if (r.status === 200) id = r.data.uuid;
      else await new Promise((res) => setTimeout(res, 20));
    }
    const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x01]);
    const set = await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, {
      json: { status: 203, content: bytes.toString('base64'), headers: { 'Content-Type': ['application/octet-stream'], 'X-Target': ['yes'] } },
    });
    expect(set.status).toBe(200);
    expect((await pending).status).toBe(203);
    const r = (await s.call('GET', `/token/${t.uuid}/request/${id}`)).data;
    expect(r.response).toMatchObject({ status: 203, content_type: 'application/octet-stream', body: bytes.toString('base64'), body_encoding: 'base64', size: 4, source: 'stored' });
    expect(r.response.headers['X-Target']).toBe('yes');
  });

  it('e-mail and DNS captures have no response', async () => {
    const t = await s.token();
    const now = Date.now();
    const { newRequestRecord } = await import('../../capture/pipeline.js');
    const mail = newRequestRecord({ token_id: t.uuid, type: 'email', ip: '127.0.0.1', hostname: 'mail', method: 'SMTP', url: '', sorting: now * 1000 }, now);
    await s.services.store.requests.insert(mail, 10);
    const r = await s.call('GET', `/token/${t.uuid}/request/${mail.uuid}`);
    expect(r.status).toBe(200);
    expect(r.data).not.toHaveProperty('response');
  });
});
