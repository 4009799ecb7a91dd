// The ntfy action in a running server: a capture's action publishes to a local ntfy stand-in,
// which receives the captured body as the notification, through the server's outbound client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { apiServer, type ApiServer } from './api-server.js';

let s: TestServer;
let ntfy: ApiServer;

beforeAll(async () => {
  ntfy = await apiServer((r) => ({ json: { id: 'e2eMsg01', time: 1700000000, event: 'message', topic: r.path.slice(1), message: r.body } }));
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
  await ntfy?.close();
});

describe('ntfy action', () => {
  it("publishes the captured request's content to the topic", async () => {
    const t = await s.token({ actions: true });
    const add = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: { type: 'ntfy', parameters: { server: ntfy.url, topic: 'capture-e2e', title: 'New $request.method$', message: '$request.content$' } },
    });
    expect(add.status, add.text).toBe(200);

    const hook = await s.call('POST', `/${t.uuid}`, { body: 'the printer is on fire' });
    expect(hook.status).toBe(200);

    expect(ntfy.received).toHaveLength(1);
    expect(ntfy.received[0]).toMatchObject({ method: 'POST', path: '/capture-e2e', body: 'the printer is on fire' });
    expect(ntfy.received[0]!.headers.title).toBe('New POST');

    const list = await s.call('GET', `/token/${t.uuid}/requests`);
    const [captured] = list.data.data;
    expect(captured.custom_action_errors).toEqual([]);
    expect(captured.custom_action_output).toEqual([`[1 ntfy] ntfy notification e2eMsg01 published to ${new URL(ntfy.url).host}/capture-e2e`]);
  });

  it('refuses a bad topic when the action is created', async () => {
    const t = await s.token({ actions: true });
    const add = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'ntfy', parameters: { topic: 'no spaces allowed', message: 'x' } } });
    expect(add.status).toBe(422);
    expect(add.text).toContain('parameters.topic');
  });
});
