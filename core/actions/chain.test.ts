// The acceptance scenarios of Custom Actions, run through the loader, the real plugins and the runner.
import { beforeAll, describe, expect, it } from 'vitest';
import { memoryCounters, silentLogger, TEST_TOKEN, testRequest, testServices } from '@capture/sdk/testing';
import { loadPlugins } from './loader.js';
import type { ActionRegistry } from './registry.js';
import { runChain, type ChainAction } from '@capture/sdk/runner';

let registry: ActionRegistry;
beforeAll(async () => {
  ({ registry } = await loadPlugins({ logger: silentLogger }));
});

const chain = (actions: Array<Pick<ChainAction, 'type' | 'parameters'> & Partial<ChainAction>>) => actions.map((a, i) => ({ uuid: `00000000-0000-4000-8000-00000000000${i}`, order: i + 1, ...a }));

const capture = (actions: ChainAction[], request = testRequest(), services = testServices()) =>
  runChain({ token: { ...TEST_TOKEN, default_content: 'in' }, request, rawBody: Buffer.from(request.content), actions, services, registry });

describe('action chains with the built-in plugins', () => {
  it('modify_response shapes the response from request variables', async () => {
    const r = await capture(chain([{ type: 'modify_response', parameters: { content: 'hi $request.query.name$ via $request.method$', status: '202', headers: 'X-Out: yes' } }]), testRequest({ query: { name: 'bob' } }));
    expect(r.response).toEqual({ status: 202, content: 'hi bob via POST', contentType: 'text/plain', headers: { 'X-Out': 'yes' } });
  });

  it('auto_json in repeat mode runs the following actions once per item of the selected array', async () => {
    const body = {
      order: {
        id: 'A7',
        items: [
          { sku: 'x', qty: 2 },
          { sku: 'y', qty: 1, tags: ['gift'] },
        ],
      },
    };
    const r = await capture(
      chain([
        { type: 'auto_json', parameters: { jsonpath: '$.order.items', variable_name: 'item', repeat: true } },
        { type: 'log', parameters: { text: '$item.sku$ x$item.qty$ [$item.tags.0$] of $item$' } },
      ]),
      testRequest({ content: JSON.stringify(body) }),
    );
    expect(r.errors).toEqual([]);
    expect(r.output.filter((l) => l.startsWith('[2 log]'))).toEqual(['[2 log] x x2 [$item.tags.0$] of {"sku":"x","qty":2}', '[2 log] y x1 [gift] of {"sku":"y","qty":1,"tags":["gift"]}']);
    expect(r.output[0]).toBe('[1 auto_json] Repeating the following actions for 2 items');
    // Several matches are looped over as they are; a top-level array without a JSONPath too.
    const matches = await capture(
      chain([
        { type: 'auto_json', parameters: { jsonpath: '$..sku', repeat: true } },
        { type: 'log', parameters: { text: 'sku $json$' } },
      ]),
      testRequest({ content: JSON.stringify(body) }),
    );
    expect(matches.output.filter((l) => l.startsWith('[2 log]'))).toEqual(['[2 log] sku x', '[2 log] sku y']);
    const top = await capture(
      chain([
        { type: 'auto_json', parameters: { repeat: true } },
        { type: 'log', parameters: { text: 'n=$json.n$' } },
      ]),
      testRequest({ content: '[{"n":1},{"n":2},{"n":3}]' }),
    );
    expect(top.output.filter((l) => l.startsWith('[2 log]'))).toEqual(['[2 log] n=1', '[2 log] n=2', '[2 log] n=3']);
  });

  it('auto_json, conditions and log: only the big order is logged', async () => {
    const actions = chain([
      { type: 'auto_json', parameters: { source: '$request.content$' } },
      { type: 'conditions', parameters: { mode: 'all', action: 'continue', conditions: [{ input: '$json.order.total$', operator: 'gt', value: '100' }] } },
      { type: 'log', parameters: { text: 'big order $json.order.id$ for $json.order.items.1.sku$' } },
    ]);
    const big = await capture(actions, testRequest({ content: JSON.stringify({ order: { id: 'A7', total: 250, items: [{ sku: 'x' }, { sku: 'y' }] } }) }));
    expect(big.output).toContain('[3 log] big order A7 for y');
    expect(big.errors).toEqual([]);
    const small = await capture(actions, testRequest({ content: JSON.stringify({ order: { id: 'B8', total: 5, items: [] } }) }));
    expect(small.output.join('\n')).not.toContain('big order');
    expect(small.stopped).toBe(true);
  });

  it('dont_save keeps the default response', async () => {
    const r = await capture(chain([{ type: 'dont_save', parameters: {} }]));
    expect(r).toMatchObject({ dontSave: true, response: null });
  });

  it('rate_limit refuses the second request in the window', async () => {
    const services = testServices({ counters: memoryCounters() });
    const actions = chain([{ type: 'rate_limit', parameters: { period: 60, count: 1 } }]);
    expect((await capture(actions, testRequest(), services)).response).toBeNull();
    const second = await capture(actions, testRequest(), services);
    expect(second.response?.status).toBe(429);
    expect(second.dontSave).toBe(true);
  });

  it('auth_basic refuses without credentials and passes the default response with them', async () => {
    const actions = chain([{ type: 'auth_basic', parameters: { username: 'u', password: 'p' } }]);
    const no = await capture(actions, testRequest({ method: 'GET', headers: {} }));
    expect(no.response?.status).toBe(401);
    expect(no.dontSave).toBe(true);
    const yes = await capture(actions, testRequest({ method: 'GET', headers: { authorization: ['Basic ' + Buffer.from('u:p').toString('base64')] } }));
    expect(yes).toMatchObject({ response: null, dontSave: false, stopped: false });
  });

  it('a downstream action runs only when the referenced condition passed', async () => {
    const actions = chain([
      { type: 'condition', parameters: { input: '$request.query.vip$', operator: 'true', action: 'noop' } },
      { type: 'modify_response', parameters: { content: 'welcome' }, condition: '00000000-0000-4000-8000-000000000000' },
    ]);
    expect((await capture(actions, testRequest({ query: { vip: '1' } }))).response?.content).toBe('welcome');
    expect((await capture(actions, testRequest({ query: { vip: '0' } }))).response).toBeNull();
  });

  it('set_variable math and text_split feed later actions', async () => {
    const r = await capture(
      chain([
        { type: 'text_split', parameters: { source: '3,4', delimiter: ',', variable_name: 'n' } },
        { type: 'set_variable', parameters: { name: 'sum', mode: 'math', value: '$n.1$ * $n.2$' } },
        { type: 'modify_response', parameters: { content: '$sum$' } },
      ]),
    );
    expect(r.response?.content).toBe('12');
  });
});
