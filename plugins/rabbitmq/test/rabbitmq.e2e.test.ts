// The RabbitMQ actions in a running server, against the real broker: a capture's body is published,
// taken back from the queue, and returned as the response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { RABBIT, deleteQueues, requireRabbit, uniqueQueue } from './broker.js';

const queue = uniqueQueue('capture_e2e');
let s: TestServer;

beforeAll(async () => {
  await requireRabbit();
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
  await deleteQueues([queue]);
});

describe('RabbitMQ actions in a running server', () => {
  it('publishes the captured body and answers with the message taken back from the queue', async () => {
    const t = await s.token({ actions: true });
    const steps = [
      { type: 'rabbitmq_publish', parameters: { ...RABBIT, queue, message: '$request.method$ $request.content$' } },
      { type: 'rabbitmq_get', parameters: { ...RABBIT, queue, variable_name: 'msg' } },
      { type: 'modify_response', parameters: { content: 'got: $msg$', status: 202 } },
    ];
    for (const [i, step] of steps.entries()) {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: { ...step, order: i + 1 } });
      expect(r.status, r.text).toBe(200);
    }

    const hook = await s.call('PUT', `/${t.uuid}`, { body: 'hello broker' });
    expect(hook.status).toBe(202);
    expect(hook.text).toBe('got: PUT hello broker');

    const list = await s.call('GET', `/token/${t.uuid}/requests`);
    const [captured] = list.data.data;
    expect(captured.custom_action_errors).toEqual([]);
    expect(captured.custom_action_output.slice(0, 2)).toEqual([
      `[1 rabbitmq_publish] Published 16 bytes to queue "${queue}" on 127.0.0.1:5672; the queue was created (durable)`,
      `[2 rabbitmq_get] Got a message of 16 bytes from queue "${queue}" on 127.0.0.1:5672 into $msg$ (0 left)`,
    ]);
  });
});
