// Response header safety through the real capture handler: a value from the request cannot add a
// header, bad header text is refused at the API, and a bad value already stored never turns the
// answer into a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

async function addAction(tokenId: string, type: string, parameters: Record<string, unknown>) {
  const r = await s.call('POST', `/token/${tokenId}/actions`, { json: { type, parameters } });
  expect(r.status, r.text).toBe(200);
}

/** Waits until the token has a stored request and returns its ID (what the CLI learns over realtime). */
async function nextRequestId(uuid: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const r = await s.call('GET', `/token/${uuid}/request/latest`);
    if (r.status === 200) return r.data.uuid;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error('no request arrived');
}

const BAD_VALUES = { crlf: 'text/html\r\nSet-Cookie: x=1', lf: 'text/html\nSet-Cookie: x=1', nul: 'text/html\0', beyondLatin1: 'text/html; charset=日本' };

describe('Modify Response header lines', () => {
  it('a query value with CR/LF or a bare LF echoed into a header cannot add a header', async () => {
    const t = await s.token({ actions: true });
    await addAction(t.uuid, 'modify_response', { content: 'ok', headers: 'X-Echo: $request.query.v$\nX-After: $request.query.v$' });
    for (const injected of ['a%0d%0aSet-Cookie:%20x=1', 'a%0aSet-Cookie:%20x=1', 'a%0dSet-Cookie:%20x=1', 'a%0d%0a%0d%0aTransfer-Encoding:%20chunked']) {
      const r = await s.call('GET', `/${t.uuid}?v=${injected}`);
      expect(r.status, injected).toBe(200);
      expect(r.text).toBe('ok');
      expect(r.headers.get('set-cookie'), injected).toBeNull();
      expect(r.headers.get('transfer-encoding'), injected).toBeNull();
      expect(r.headers.get('x-echo'), injected).toMatch(/^a (Set-Cookie: x=1|Transfer-Encoding: chunked)$/);
      expect(r.headers.get('x-after'), injected).toBe(r.headers.get('x-echo'));
    }
  });

  it('a value beyond Latin-1 is answered percent-encoded instead of failing the answer', async () => {
    const t = await s.token({ actions: true });
    await addAction(t.uuid, 'modify_response', { content: 'ok', headers: 'X-Name: $request.query.name$' });
    const r = await s.call('GET', `/${t.uuid}?name=${encodeURIComponent('日本')}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-name')).toBe('%E6%97%A5%E6%9C%AC');
  });

  it('connection headers set by an action are not sent', async () => {
    const t = await s.token({ actions: true });
    await addAction(t.uuid, 'modify_response', { content: 'body', headers: 'Transfer-Encoding: chunked\nContent-Length: 1\nX-Kept: yes' });
    const r = await s.call('GET', `/${t.uuid}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('body');
    expect(r.headers.get('transfer-encoding')).toBeNull();
    expect(r.headers.get('content-length')).toBe('4');
    expect(r.headers.get('x-kept')).toBe('yes');
  });
});

describe('default_content_type', () => {
  it.each(Object.entries(BAD_VALUES))('is refused with 422 on create and update (%s)', async (_kind, value) => {
    const created = await s.call('POST', '/token', { json: { default_content_type: value } });
    expect(created.status).toBe(422);
    expect(Object.keys(created.data.errors)).toEqual(['default_content_type']);
    const t = await s.token();
    const updated = await s.call('PUT', `/token/${t.uuid}`, { json: { default_content_type: value } });
    expect(updated.status).toBe(422);
    expect(Object.keys(updated.data.errors)).toEqual(['default_content_type']);
  });

  it('a bad value already stored still gets a 200 answer with no added header', async () => {
    for (const value of Object.values(BAD_VALUES)) {
      const t = await s.token({ default_content: 'stored' });
      await s.services.store.tokens.update(t.uuid, { default_content_type: value });
      const r = await s.call('POST', `/${t.uuid}`, { body: 'x' });
      expect(r.status, JSON.stringify(value)).toBe(200);
      expect(r.text).toBe('stored');
      expect(r.headers.get('set-cookie')).toBeNull();
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect((await s.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(1);
    }
  });
});

describe('set-response headers', () => {
  it('a bad header name or value is refused with 422 naming it, and the caller still gets a good one', async () => {
    const t = await s.token({ listen: 5 });
    const pending = s.call('GET', `/${t.uuid}`);
    const id = await nextRequestId(t.uuid);
    const put = (headers: Record<string, unknown>) => s.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { content: '', headers } });
    for (const value of ['a\r\nSet-Cookie: x=1', 'a\nb', 'a\0', '日本']) {
      const r = await put({ 'X-Bad': [value] });
      expect(r.status, JSON.stringify(value)).toBe(422);
      expect(Object.keys(r.data.errors)[0]).toMatch(/^headers\.X-Bad/);
    }
    expect((await put({ 'Content-Type': 'text/plain\r\nSet-Cookie: x=1' })).status).toBe(422);
    const badName = await put({ 'X Bad\r\n': 'v' });
    expect(badName.status).toBe(422);
    expect(Object.keys(badName.data.errors)[0]).toMatch(/^headers\./);
    expect((await put({ 'X-Good': ['yes'] })).status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.headers.get('x-good')).toBe('yes');
  });

  it('a bad header already stored does not fail the waiting capture', async () => {
    const t = await s.token({ listen: 5 });
    const pending = s.call('GET', `/${t.uuid}`);
    const id = await nextRequestId(t.uuid);
    const stored = await s.services.store.listeners.respond(
      t.uuid,
      id,
      {
        status: 201,
        content: Buffer.from('set').toString('base64'),
        headers: { 'X-Bad': ['a\r\nSet-Cookie: x=1'], 'Content-Type': 'text/plain\0', 'Bad Name': 'v', 'X-Wide': 'é 日本' },
      },
      Date.now(),
    );
    expect(stored).toBe(true);
    const r = await pending;
    expect(r.status).toBe(201);
    expect(r.text).toBe('set');
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('x-bad')).toBe('a Set-Cookie: x=1');
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(r.headers.get('x-wide')).toMatch(/ %E6%97%A5%E6%9C%AC$/);
  });
});

describe('script respond() headers', () => {
  it('JavaScript: a header value with CR/LF is ignored with an error, not sent as a new header', async () => {
    const t = await s.token({ actions: true });
    await addAction(t.uuid, 'javascript', {
      script: "const v = get('request.query.v'); respond('js', 200, { 'X-Echo': v, 'X-Ok': 'yes' })",
    });
    const r = await s.call('GET', `/${t.uuid}?v=a%0d%0aSet-Cookie:%20x=1`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('js');
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('x-echo')).toBeNull();
    expect(r.headers.get('x-ok')).toBe('yes');
    const [req] = (await s.call('GET', `/token/${t.uuid}/requests`)).data.data;
    expect(req.custom_action_errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/X-Echo.*line breaks/) })]);
  });

  it('WebhookScript: a header value with CR/LF fails the script, not sent as a new header', async () => {
    const t = await s.token({ actions: true, default_content: 'default' });
    await addAction(t.uuid, 'script', { script: "respond('ws', 200, ['X-Echo: ' + var('request.query.v')])" });
    const r = await s.call('GET', `/${t.uuid}?v=a%0d%0aSet-Cookie:%20x=1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('x-echo')).toBeNull();
    const [req] = (await s.call('GET', `/token/${t.uuid}/requests`)).data.data;
    expect(req.custom_action_errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/X-Echo.*line breaks/) })]);
  });
});
