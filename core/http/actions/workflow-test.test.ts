// POST /token/{id}/workflow/test: the visual editor's "Test until here" runs an unsaved document's
// first steps on a stored request and stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
let owner: { id: number; key: string };
beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user(true);
});
afterAll(() => s?.close());

const doc = (token: string, steps: unknown[]) => ({ apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token }, spec: { steps } });

const chain = [
  { name: 'parse', type: 'auto_json', parameters: { variable_name: 'order' } },
  { name: 'greet', type: 'set_variable', parameters: { name: 'greeting', value: 'hi $order.customer$' } },
  { name: 'answer', type: 'modify_response', parameters: { content: '$greeting$', status: 201 } },
];

describe('workflow test run', () => {
  it('runs an unsaved document up to a step on the latest request, with the variables after each step', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/${t.uuid}`, { json: { customer: 'ann' } });
    const before = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;

    const r = await s.call('POST', `/token/${t.uuid}/workflow/test`, { key: owner.key, json: { document: doc(t.uuid, chain), until: 1 } });
    expect(r.status).toBe(200);
    expect(r.data.success).toBe(true);
    expect(r.data.result.steps.map((x: { type: string }) => x.type)).toEqual(['auto_json', 'set_variable']);
    expect(r.data.result.steps[0].variables).toMatchObject({ 'order.customer': 'ann' });
    expect(r.data.result.steps[0].variables.greeting).toBeUndefined();
    expect(r.data.result.steps[1].variables).toMatchObject({ greeting: 'hi ann' });
    // The third step did not run: the response is the token's default.
    expect(r.data.result.response.status).toBeNull();

    const all = await s.call('POST', `/token/${t.uuid}/workflow/test`, { key: owner.key, json: { document: doc(t.uuid, chain), request_id: before.uuid } });
    expect(all.data.result.response).toMatchObject({ status: 201, content: 'hi ann' });

    // Nothing was stored: no workflow, no new request, the request's output unchanged.
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toEqual([]);
    const list = (await s.call('GET', `/token/${t.uuid}/requests`, { key: owner.key })).data;
    expect(list.total).toBe(1);
    const after = (await s.call('GET', `/token/${t.uuid}/request/${before.uuid}`, { key: owner.key })).data;
    expect(after.custom_action_output).toEqual(before.custom_action_output);
  });

  it('does not write the global variables an action stores, but later steps see them', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const steps = [
      { type: 'store_global_variable', parameters: { name: 'seen', value: 'yes' } },
      { type: 'log', parameters: { text: 'seen=$global.seen$' } },
    ];
    const r = await s.call('POST', `/token/${t.uuid}/workflow/test`, { key: owner.key, json: { document: doc(t.uuid, steps) } });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.data.result.output)).toContain('seen=yes');
    const globals = await s.call('GET', '/global-variables', { key: owner.key });
    expect(JSON.stringify(globals.data)).not.toContain('seen');
  });

  it('checks only the steps it runs, and reports every bad parameter of them at once', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const steps = [
      { type: 'modify_response', parameters: { status: 42 } },
      { type: 'text_split', parameters: { source: 'x' } },
      { type: 'modify_response', parameters: { status: 7 } },
    ];
    const bad = await s.call('POST', `/token/${t.uuid}/workflow/test`, { key: owner.key, json: { document: doc(t.uuid, steps), until: 1 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.data.errors).sort()).toEqual(['spec.steps.0.parameters.status', 'spec.steps.1.parameters.delimiter']);
    // Saving reports all three steps' problems in one answer.
    const save = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, json: doc(t.uuid, steps) });
    expect(save.status).toBe(422);
    expect(Object.keys(save.data.errors)).toEqual(expect.arrayContaining(['spec.steps.0.parameters.status', 'spec.steps.1.parameters.delimiter', 'spec.steps.2.parameters.status']));
    expect((await s.call('POST', `/token/${t.uuid}/workflow/test`, { key: owner.key, json: { until: -1 } })).data.errors.until).toBeDefined();
  });

  it("needs the token owner's key and a request of this token", async () => {
    const t = await s.token({ actions: true }, owner.key);
    expect((await s.call('POST', `/token/${t.uuid}/workflow/test`, { json: {} })).status).toBe(401);
    const missing = await s.call('POST', `/token/${t.uuid}/workflow/test`, { key: owner.key, json: { request_id: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.status).toBe(404);
  });
});
