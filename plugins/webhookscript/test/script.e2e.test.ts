// The script action in a running server: a WebhookScript answers the capture, exports a variable
// to the next action, and stores a Global Variable; a failing script records its error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;

async function addAction(tokenId: string, type: string, parameters: Record<string, unknown>) {
  const r = await s.call('POST', `/token/${tokenId}/actions`, { json: { type, parameters } });
  expect(r.status, r.text).toBe(200);
}

beforeAll(async () => {
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
});

describe('script action', () => {
  it('answers the capture with the response the script builds', async () => {
    const token = await s.token({ actions: true });
    await addAction(token.uuid, 'script', {
      script: `data = json_decode(var('request.content'))
total = 0
for (item in data['items']) {
  total = total + item['price'] * item['qty']
}
echo('total: {}'.format(total))
set('total', total)
respond(json_encode(['total': total, 'method': var('request.method')], false), 201, ['Content-Type: application/json', 'X-Script: yes'])`,
    });

    const hook = await s.call('POST', `/${token.uuid}`, {
      json: {
        items: [
          { price: 2.5, qty: 2 },
          { price: 10, qty: 1 },
        ],
      },
    });
    expect(hook.status).toBe(201);
    expect(hook.headers.get('content-type')).toContain('application/json');
    expect(hook.headers.get('x-script')).toBe('yes');
    expect(JSON.parse(hook.text)).toEqual({ total: 15, method: 'POST' });

    const list = await s.call('GET', `/token/${token.uuid}/requests`);
    const [req] = list.data.data;
    expect(req.custom_action_errors).toEqual([]);
    expect(req.custom_action_output).toEqual(['[1 script] total: 15']);
  });

  it('hands variables to the next action and records errors with their line', async () => {
    const token = await s.token({ actions: true });
    await addAction(token.uuid, 'script', { script: "set('greeting', 'Hello ' + var('request.query.name', 'nobody'))" });
    await addAction(token.uuid, 'modify_response', { content: '$greeting$!' });
    const hook = await s.call('GET', `/${token.uuid}?name=Ann`);
    expect(hook.text).toBe('Hello Ann!');

    const broken = await s.token({ actions: true });
    await addAction(broken.uuid, 'script', { script: 'echo("start")\nx = 1 +\n' });
    await s.call('GET', `/${broken.uuid}`);
    const [req] = (await s.call('GET', `/token/${broken.uuid}/requests`)).data.data;
    expect(req.custom_action_errors).toEqual([expect.objectContaining({ message: 'Syntax error at line 3:1: Unexpected end of the script: an expression is missing' })]);
  });
});
