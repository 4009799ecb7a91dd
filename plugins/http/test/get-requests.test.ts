// `webhook_get_requests` over the SDK's in-memory RequestReader: numbered variables, repetitions,
// limits and sorting.
import { describe, expect, it } from 'vitest';
import { ActionRegistry, runChain } from '../../../test/helpers/host.js';
import { defineAction, z } from '@capture/sdk';
import { memoryRequests, rootContainer as container, runAction, TEST_TOKEN, testRequest, testServices, validateParams } from '@capture/sdk/testing';
import { getRequests } from '../src/get-requests.js';

const OTHER = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

/** Newest first, as the store answers. */
function captures(n: number) {
  return Array.from({ length: n }, (_, i) =>
    testRequest({
      uuid: `00000000-0000-4000-8000-${String(n - i).padStart(12, '0')}`,
      token_id: OTHER,
      method: i % 2 ? 'GET' : 'POST',
      content: `body ${n - i}`,
      headers: { 'x-n': [String(n - i)] },
      query: { n: String(n - i) },
      created_at: `2024-01-02 03:04:${String(n - i).padStart(2, '0')}`,
      note: null,
    }),
  );
}

describe('webhook_get_requests', () => {
  it('repeat off: $req.0.uuid$, $req.1.uuid$... with every field', async () => {
    const requests = memoryRequests({ [OTHER]: captures(3) });
    const r = await runAction(getRequests, { token_id: OTHER }, { services: { requests } });
    expect(r.errors).toEqual([]);
    expect(requests.calls).toEqual([{ token: OTHER, query: undefined, limit: 100, sorting: 'newest' }]);
    expect(r.vars).toMatchObject({
      'req.count': '3',
      'req.0.uuid': '00000000-0000-4000-8000-000000000003',
      'req.0.method': 'POST',
      'req.0.content': 'body 3',
      'req.0.created_at': '2024-01-02 03:04:03',
      'req.0.token_id': OTHER,
      'req.0.headers': '{"x-n":["3"]}',
      'req.0.query': '{"n":"3"}',
      'req.0.note': '',
      'req.1.method': 'GET',
      'req.2.uuid': '00000000-0000-4000-8000-000000000001',
    });
    expect(r.vars['req.3.uuid']).toBeUndefined();
    expect(r.output).toEqual([`Found 3 requests of ${OTHER}: $req.0.uuid$ to $req.2.uuid$`]);
  });

  it('passes the query, sorting and max; the prefix can be chosen', async () => {
    const requests = memoryRequests({ [OTHER]: captures(5) });
    const r = await runAction(getRequests, { token_id: OTHER, query: 'method:POST', sorting: 'oldest', max: '2', variable_name: '$old$' }, { services: { requests } });
    expect(requests.calls).toEqual([{ token: OTHER, query: 'method:POST', limit: 2, sorting: 'oldest' }]);
    expect(r.vars).toMatchObject({ 'old.count': '2', 'old.0.content': 'body 1', 'old.1.content': 'body 2' });
    expect(r.output[0]).toBe(`Found 2 requests of ${OTHER} matching "method:POST": $old.0.uuid$ to $old.1.uuid$`);
  });

  it('reads up to 1000 requests', async () => {
    const requests = memoryRequests({ [OTHER]: captures(1200) });
    const r = await runAction(getRequests, { token_id: OTHER, max: 1000 }, { services: { requests } });
    expect(requests.calls[0]!.limit).toBe(1000);
    expect(r.vars['req.count']).toBe('1000');
    expect(r.vars['req.999.content']).toBe('body 201');
  });

  it('a URL it may not read is an action error', async () => {
    const r = await runAction(getRequests, { token_id: 'elsewhere' }, { services: { requests: memoryRequests({}) } });
    expect(r.errors).toEqual(['Token elsewhere not found']);
  });

  it('no requests: count 0', async () => {
    const r = await runAction(getRequests, { token_id: OTHER }, { services: { requests: memoryRequests({ [OTHER]: [] }) } });
    expect(r.vars).toEqual({ 'req.count': '0' });
    expect(r.output).toEqual([`Found 0 requests of ${OTHER}`]);
  });

  describe('repeat on', () => {
    // A following action that records what each repetition sees.
    const seen: string[] = [];
    const collect = defineAction({
      type: 'collect',
      title: 'Collect',
      category: 'test',
      description: 'records its text',
      parameters: z.object({ text: z.string() }),
      execute: ({ params }) => void seen.push(params.text),
    });

    async function chain(parameters: Record<string, unknown>, list: ReturnType<typeof captures>) {
      seen.length = 0;
      const registry = new ActionRegistry();
      registry.addAll('test', [getRequests, collect], container.createChildContainer());
      return runChain({
        token: TEST_TOKEN,
        request: testRequest(),
        rawBody: Buffer.alloc(0),
        registry,
        services: testServices({ requests: memoryRequests({ [OTHER]: list }) }),
        actions: [
          { uuid: 'a1', type: 'webhook_get_requests', order: 1, parameters },
          { uuid: 'a2', type: 'collect', order: 2, parameters: { text: '$req.uuid$ $req.method$ $req.content$ $req.created_at$ $req.query.n$' } },
        ],
      });
    }

    it('runs the following actions once per request with $req.uuid$, $req.method$...', async () => {
      const r = await chain({ token_id: OTHER, repeat: true, sorting: 'oldest' }, captures(3));
      expect(r.errors).toEqual([]);
      expect(seen).toEqual([
        '00000000-0000-4000-8000-000000000001 POST body 1 2024-01-02 03:04:01 1',
        '00000000-0000-4000-8000-000000000002 GET body 2 2024-01-02 03:04:02 2',
        '00000000-0000-4000-8000-000000000003 POST body 3 2024-01-02 03:04:03 3',
      ]);
      expect(r.output[0]).toBe(`[1 webhook_get_requests] Found 3 requests of ${OTHER}; repeating the following actions for each, with $req.uuid$, $req.content$...`);
      expect(r.runtimeVariables['req.0.uuid']).toBeUndefined();
    });

    it('repeats over every request found, up to max', async () => {
      const r = await chain({ token_id: OTHER, repeat: 'true', max: 150 }, captures(200));
      expect(seen).toHaveLength(150);
      expect(r.output[0]).toContain('Found 150 requests');
    });

    it('with no requests the following actions do not run', async () => {
      const r = await chain({ token_id: OTHER, repeat: true }, []);
      expect(seen).toEqual([]);
      expect(r.output).toEqual([`[1 webhook_get_requests] Found no requests of ${OTHER}; the following actions do not run`]);
    });
  });

  it('accepts the API forms and refuses bad parameters', () => {
    const ok = (p: Record<string, unknown>) => expect(() => validateParams(getRequests, p)).not.toThrow();
    ok({ token_id: OTHER, variable_name: 'req', repeat: false, sorting: 'newest', query: 'method:GET', max: 100 });
    ok({ token_id: OTHER, variable_name: null, repeat: null, sorting: null, query: null, max: null });
    ok({ token_id: OTHER, max: '1000', sorting: 'OLDEST', repeat: '1' });
    expect(() => validateParams(getRequests, {})).toThrow(/parameters.token_id: is required/);
    expect(() => validateParams(getRequests, { token_id: ' ' })).toThrow(/parameters.token_id/);
    expect(() => validateParams(getRequests, { token_id: OTHER, max: 1001 })).toThrow(/parameters.max: must be between 1 and 1000/);
    expect(() => validateParams(getRequests, { token_id: OTHER, max: 0 })).toThrow(/parameters.max/);
    expect(() => validateParams(getRequests, { token_id: OTHER, max: 2.5 })).toThrow(/parameters.max/);
    expect(() => validateParams(getRequests, { token_id: OTHER, sorting: 'random' })).toThrow(/parameters.sorting/);
    expect(() => validateParams(getRequests, { token_id: OTHER, repeat: 'often' })).toThrow(/parameters.repeat/);
  });
});
