// The HTTP Request action in a running server: one token's action posts to another token's
// capture URL, which captures it; the first request's action output shows the answer's status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
});

describe('http action (end to end)', () => {
  it("sends a request to another token's URL, which captures it", async () => {
    const from = await s.token({ actions: true });
    const target = await s.token({ default_status: 202, default_content: 'accepted' });
    const created = await s.call('POST', `/token/${from.uuid}/actions`, {
      json: {
        type: 'http',
        order: 1,
        parameters: {
          url: `${s.url}/${target.uuid}/in?src=$request.query.src$`,
          method: 'PUT',
          mode: 'json',
          content: '{"got": $request.content$}',
          headers: 'X-From: capture',
          variable_name: 'fwd',
          timeout: '5',
        },
      },
    });
    expect(created.status, created.text).toBe(200);

    const hook = await s.call('POST', `/${from.uuid}?src=e2e`, { json: { order: 42 } });
    expect(hook.status).toBe(200);

    const received = await s.call('GET', `/token/${target.uuid}/requests`);
    expect(received.data.data).toHaveLength(1);
    const [got] = received.data.data;
    expect(got).toMatchObject({ method: 'PUT', content: '{"got": {"order":42}}' });
    expect(got.url).toMatch(new RegExp(`/${target.uuid}/in\\?src=e2e$`));
    expect(got.headers['x-from']).toEqual(['capture']);
    expect(got.headers['content-type']).toEqual(['application/json']);

    const source = await s.call('GET', `/token/${from.uuid}/requests`);
    const [first] = source.data.data;
    expect(first.custom_action_errors).toEqual([]);
    expect(first.custom_action_output).toHaveLength(1);
    expect(first.custom_action_output[0]).toMatch(new RegExp(`^\\[1 http\\] PUT ${s.url.replace(/[.]/g, '\\.')}/${target.uuid}/in\\?src=e2e responded 202 in \\d+ ms, 8 bytes`));
  });

  it('refuses bad parameters with 422 naming the field', async () => {
    const t = await s.token({ actions: true });
    const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'http', parameters: { url: 'https://example.com', timeout: 60 } } });
    expect(r.status).toBe(422);
    expect(r.text).toContain('parameters.timeout');
  });
});
