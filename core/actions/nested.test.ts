// ctx.runAction (an action running another one inline, WebhookScript's action()) and ctx.later
// (an action queued to run after the capture, WebhookScript's delay()), in the chain runner.
import { describe, expect, it } from 'vitest';
import { defineAction, z } from '@capture/sdk';
import { TEST_TOKEN, testRequest, testServices } from '@capture/sdk/testing';
import { ActionRegistry } from './registry.js';
import { MAX_LATER_ACTIONS, MAX_NESTED_ACTIONS, runChain, type ChainAction } from '@capture/sdk/runner';

const setv = defineAction({
  type: 'setv',
  title: 'Set',
  category: 'test',
  description: 'sets a variable and logs it',
  parameters: z.object({ name: z.string(), value: z.string() }),
  execute: ({ params, vars, log }) => {
    vars.set(params.name, params.value);
    log(`set ${params.name}`);
  },
});
const fails = defineAction({ type: 'fails', title: 'Fails', category: 'test', description: 'records an error', parameters: z.object({}), execute: ({ error }) => error('it went wrong') });
const respond = defineAction({
  type: 'respond',
  title: 'Respond',
  category: 'test',
  description: 'answers and stops',
  parameters: z.object({ content: z.string() }),
  execute: ({ params, response, stop }) => {
    response.content = params.content;
    stop();
  },
});
/** Runs `type` with `parameters` inline and logs what came back (or the error). */
const call = defineAction({
  type: 'call',
  title: 'Call',
  category: 'test',
  description: 'runs another action',
  parameters: z.object({ type: z.string(), parameters: z.record(z.string(), z.unknown()).default({}) }),
  untemplated: ['parameters'],
  async execute({ params, runAction, log }) {
    try {
      log(`got ${JSON.stringify(await runAction(params.type, params.parameters))}`);
    } catch (e) {
      log(`failed: ${(e as Error).message}`);
    }
  },
});
const later = defineAction({
  type: 'later',
  title: 'Later',
  category: 'test',
  description: 'asks for actions later',
  parameters: z.object({ delays: z.array(z.number()) }),
  execute: ({ params, later: runLater, log }) => {
    for (const d of params.delays) {
      try {
        runLater(d, 'setv', { name: 'x', value: String(d) });
      } catch (e) {
        log(`refused: ${(e as Error).message}`);
      }
    }
  },
});

const registry = new ActionRegistry();
registry.addAll('test', [setv, fails, respond, call, later]);
const step = (type: string, parameters: Record<string, unknown>): ChainAction => ({ uuid: '00000000-0000-4000-8000-000000000001', type, order: 1, parameters });
const run = (actions: ChainAction[]) => runChain({ token: TEST_TOKEN, request: testRequest({ method: 'PUT', content: 'hello' }), rawBody: Buffer.from('hello'), actions, services: testServices(), registry });

describe('ctx.runAction', () => {
  it('runs the action with templated parameters; its output joins the chain under its own type; resolves with the variables it set', async () => {
    const r = await run([step('call', { type: 'setv', parameters: { name: 'm', value: 'method $request.method$' } }), step('call', { type: 'setv', parameters: { name: 'n', value: 'then $m$' } })]);
    expect(r.errors).toEqual([]);
    // The second call returns only what it set, though `m` is still a variable of the chain.
    expect(r.output).toEqual(['[1 setv] set m', '[1 call] got {"m":"method PUT"}', '[1 setv] set n', '[1 call] got {"n":"then method PUT"}']);
    expect(r.runtimeVariables).toEqual({ m: 'method PUT', n: 'then method PUT' });
  });

  it("rejects with the inner action's errors (unknown type, invalid parameters, errors it records) without adding them to the chain", async () => {
    const r = await run([step('call', { type: 'nope' }), step('call', { type: 'setv', parameters: { name: 'x' } }), step('call', { type: 'fails' })]);
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['[1 call] failed: nope: Unknown action type "nope"', expect.stringMatching(/^\[1 call\] failed: setv: Invalid parameter parameters\.value/), '[1 call] failed: fails: it went wrong']);
  });

  it('a response and stop() from the inner action apply to the chain', async () => {
    const r = await run([step('call', { type: 'respond', parameters: { content: 'inner answer' } }), step('setv', { name: 'after', value: '1' })]);
    expect(r.response?.content).toBe('inner answer');
    expect(r.stopped).toBe(true);
    expect(r.runtimeVariables).toEqual({});
  });

  it(`nests at most ${MAX_NESTED_ACTIONS} deep`, async () => {
    let inner: Record<string, unknown> = { type: 'setv', parameters: { name: 'deep', value: 'yes' } };
    for (let i = 0; i < MAX_NESTED_ACTIONS; i++) inner = { type: 'call', parameters: inner };
    const r = await run([step('call', inner)]);
    // The innermost call is refused (and says so); setv never runs.
    expect(r.runtimeVariables).toEqual({});
    expect(r.output).toContainEqual(expect.stringMatching(/^\[1 call\] failed: call: .*nest at most 3 deep|^\[1 call\] failed: Actions run from actions may nest at most 3 deep/));
    expect(r.output.some((l) => l.includes('set deep'))).toBe(false);
  });
});

describe('ctx.later', () => {
  it('collects the actions for the caller to queue, with who asked; refuses bad delays, unknown types and too many', async () => {
    const delays = [0, 60, -1, 604_801, ...Array.from({ length: MAX_LATER_ACTIONS }, () => 1)];
    const r = await run([step('later', { delays })]);
    expect(r.later).toHaveLength(MAX_LATER_ACTIONS);
    expect(r.later[0]).toEqual({ delay: 0, type: 'setv', parameters: { name: 'x', value: '0' }, from: { uuid: '00000000-0000-4000-8000-000000000001', type: 'later', order: 1 } });
    expect(r.later[1]!.delay).toBe(60);
    expect(r.output).toEqual([
      '[1 later] refused: The delay must be 0 to 604800 seconds',
      '[1 later] refused: The delay must be 0 to 604800 seconds',
      `[1 later] refused: A run may queue at most ${MAX_LATER_ACTIONS} actions for later`,
      `[1 later] refused: A run may queue at most ${MAX_LATER_ACTIONS} actions for later`,
    ]);
    // Nothing ran now.
    expect(r.runtimeVariables).toEqual({});
  });
});
