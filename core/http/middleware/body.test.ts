import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
let pro: { id: number; key: string };
beforeAll(async () => {
  s = await startTestServer();
  pro = await s.user(true);
});
afterAll(() => s.close());

const send = (method: string, path: string, text: string, contentType = 'application/json') => s.call(method, path, { key: pro.key, body: text, headers: { 'Content-Type': contentType } });

describe('API request bodies', () => {
  const notObjects = ['[]', '[{"default_status":201}]', '"str"', '42', 'null', 'true'];

  it.each(notObjects)('answers the JSON body %s with 422 naming the body, on every route that takes a body', async (text) => {
    const t = await s.token({ default_status: 200 }, pro.key);
    const routes: Array<[string, string]> = [
      ['POST', '/token'],
      ['PUT', `/token/${t.uuid}`],
      ['PUT', `/token/${t.uuid}/password`],
      ['PUT', `/token/${t.uuid}/alias`],
      ['PUT', `/token/${t.uuid}/workflow`],
      ['POST', `/token/${t.uuid}/actions`],
      ['POST', '/groups'],
      ['POST', '/global-variables'],
      ['POST', '/templates'],
      ['POST', '/schedules'],
      ['PUT', '/schedules/notifications'],
    ];
    for (const [method, path] of routes) {
      const r = await send(method, path, text);
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 422 });
      expect(r.data.message).toMatch(/must be a JSON object/);
      expect(r.data.errors.body).toBeDefined();
    }
    expect((await s.call('GET', `/token/${t.uuid}`, { key: pro.key })).data.default_status).toBe(200);
  });

  it('still takes objects, empty bodies and YAML documents', async () => {
    const t = await s.token({}, pro.key);
    expect((await send('PUT', `/token/${t.uuid}`, '{"default_status":201}')).data.default_status).toBe(201);
    expect((await send('PUT', `/token/${t.uuid}/cors/toggle`, '')).status).toBe(200);
    const yaml = `apiVersion: capture/v1\nkind: TokenActions\nmetadata:\n  token: ${t.uuid}\nspec:\n  steps: []\n`;
    expect((await send('PUT', `/token/${t.uuid}/workflow`, yaml, 'application/yaml')).status).toBe(200);
  });
});
