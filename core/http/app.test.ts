import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('service routes', () => {
  it('/healthz (liveness) answers 200 while the process runs', async () => {
    const r = await s.call('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ status: 'ok', store: 'sqlite' });
  });

  it('/openapi.json describes the routes with schemas from zod', async () => {
    const r = await s.call('GET', '/openapi.json');
    expect(r.data.openapi).toBe('3.1.0');
    const create = r.data.paths['/token'].post.requestBody.content['application/json'].schema;
    expect(create.properties.default_status).toMatchObject({ minimum: 200, maximum: 599 });
    expect(r.data.paths['/token/{token_id}/requests'].get.parameters.map((p: { name: string }) => p.name)).toContain('sorting');
  });

  it('sends reserved first segments (any case, before / ? or #) and / to the API, everything else to capture', async () => {
    const created = await s.call('POST', '/token', {});
    const uuid = created.data.uuid as string;
    const api = (r: { data: unknown }) => JSON.stringify(r.data);
    expect((await s.call('GET', '/')).status).not.toBe(404);
    expect(api(await s.call('GET', '/healthz?x=1'))).toContain('"status":"ok"');
    expect(api(await s.call('GET', '/HEALTHZ'))).toContain('"status":"ok"');
    expect((await s.call('GET', `/token/${uuid}`)).data.uuid).toBe(uuid);
    // Captured: the token's own URL and anything under it, answered with its default response.
    for (const path of [`/${uuid}`, `/${uuid}/healthz`, `/${uuid}?token=1`, `/${uuid.toUpperCase()}`]) {
      const r = await fetch(s.url + path, { method: 'POST', body: 'x' });
      expect(r.headers.get('x-token-id'), path).toBe(path.includes(uuid) ? uuid : null);
    }
    // A segment that is not reserved and no token: the capture path's 404.
    const unknown = await fetch(s.url + '/healthzz');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: 'Token not found' });
  });

  it('unknown API routes are a JSON 404, wrong methods a 405', async () => {
    const r = await s.call('GET', '/token/x/nothing-here');
    expect(r.status).toBe(404);
    expect(typeof r.data.message).toBe('string');
    expect((await s.call('PATCH', '/healthz')).status).toBe(405);
  });
});
