import { afterEach, describe, expect, it, vi } from 'vitest';
import { bytesText } from '@capture/sdk/bytes';
import { defineAction, z } from '@capture/sdk';
import { fakeClock, memoryGlobals, TEST_TOKEN, testRequest, testServices } from '@capture/sdk/testing';
import { ActionRegistry } from './registry.js';
import { runChain, type ChainAction, type ChainInput } from '@capture/sdk/runner';

const echo = defineAction({
  type: 'echo',
  title: 'Echo',
  category: 'test',
  description: 'logs its text',
  parameters: z.object({ text: z.string() }),
  execute: ({ params, log }) => log(params.text),
});
const setv = defineAction({
  type: 'setv',
  title: 'Set',
  category: 'test',
  description: 'sets a variable',
  parameters: z.object({ name: z.string(), value: z.string() }),
  execute: ({ params, vars }) => vars.set(params.name, params.value),
});
const boom = defineAction({
  type: 'boom',
  title: 'Boom',
  category: 'test',
  description: 'throws',
  parameters: z.object({}),
  execute: () => {
    throw new Error('kaboom');
  },
});
const check = defineAction({
  type: 'check',
  title: 'Check',
  category: 'test',
  description: 'records a condition result',
  parameters: z.object({ pass: z.boolean() }),
  execute: ({ params, setResult }) => setResult(params.pass),
});
const halt = defineAction({ type: 'halt', title: 'Halt', category: 'test', description: 'stops', parameters: z.object({}), execute: ({ stop }) => stop() });
let late: (() => void) | undefined;
const hang = defineAction({
  type: 'hang',
  title: 'Hang',
  category: 'test',
  description: 'ignores the abort signal and finishes much later',
  parameters: z.object({}),
  execute: (ctx) =>
    new Promise<void>((resolve) => {
      late = () => {
        ctx.vars.set('late', 'yes');
        ctx.log('late line');
        resolve();
      };
    }),
});
const tick = defineAction({
  type: 'tick',
  title: 'Tick',
  category: 'test',
  description: 'moves the fake clock',
  parameters: z.object({ ms: z.number() }),
  execute: ({ params, services }) => (services.clock as ReturnType<typeof fakeClock>).advance(params.ms),
});
const respond = defineAction({
  type: 'respond',
  title: 'Respond',
  category: 'test',
  description: 'changes the response',
  parameters: z.object({ content: z.string(), type: z.string().optional() }),
  execute: ({ params, response }) => {
    response.content = params.content;
    if (params.type) response.headers['Content-Type'] = params.type;
    response.headers['X-A'] = '1';
  },
});
const store = defineAction({
  type: 'store',
  title: 'Store',
  category: 'test',
  description: 'stores a global variable',
  parameters: z.object({ name: z.string(), value: z.string() }),
  execute: ({ params, services }) => services.globals.set(params.name, params.value),
});
const each = defineAction({
  type: 'each',
  title: 'Each',
  category: 'test',
  description: 'repeats the rest per item',
  parameters: z.object({ items: z.array(z.string()) }),
  execute: ({ params, repeat }) => repeat(params.items.map((item) => ({ item }))),
});

const registry = new ActionRegistry();
registry.addAll('test', [echo, setv, boom, check, halt, hang, tick, respond, store, each]);

let n = 0;
const step = (type: string, parameters: Record<string, unknown> = {}, extra: Partial<ChainAction> = {}): ChainAction => ({
  uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  type,
  order: n,
  parameters,
  ...extra,
});

function run(actions: ChainAction[], extra: Partial<ChainInput> = {}) {
  return runChain({ token: TEST_TOKEN, request: testRequest({ content: 'hello' }), rawBody: Buffer.from('hello'), actions, services: testServices(), registry, ...extra });
}

describe('runChain', () => {
  it('runs actions by order, not by position; ties keep their position', async () => {
    const r = await run([
      { ...step('echo', { text: 'third' }), order: 3 },
      { ...step('echo', { text: 'first' }), order: 1 },
      { ...step('echo', { text: 'second-a' }), order: 2 },
      { ...step('echo', { text: 'second-b' }), order: 2 },
    ]);
    expect(r.lines.map((l) => l.text)).toEqual(['first', 'second-a', 'second-b', 'third']);
    expect(r.output[0]).toBe('[1 echo] first');
  });

  it('skips disabled actions', async () => {
    const r = await run([step('echo', { text: 'a' }, { disabled: true }), step('echo', { text: 'b' })]);
    expect(r.lines.map((l) => l.text)).toEqual(['b']);
  });

  it('passes variables down the chain, replaced in parameters', async () => {
    const r = await run([step('setv', { name: 'who', value: '$request.content$ world' }), step('echo', { text: 'said $who.upper$' })]);
    expect(r.lines.map((l) => l.text)).toEqual(['said HELLO WORLD']);
    expect(r.runtimeVariables).toEqual({ who: 'hello world' });
    expect(r.variables['request.content']).toBe('hello');
  });

  it("gives the result's variables as own enumerable properties, read once, replaceable", async () => {
    const r = await run([step('setv', { name: 'who', value: 'x' })]);
    // A copy (spread, JSON) carries them, as it did when they were plain fields.
    expect({ ...r }.runtimeVariables).toEqual({ who: 'x' });
    expect(JSON.parse(JSON.stringify(r)).variables['request.content']).toBe('hello');
    expect(Object.keys(r)).toEqual(['response', 'dontSave', 'stopped', 'output', 'lines', 'errors', 'ran', 'redact', 'later', 'variables', 'runtimeVariables']);
    expect(r.variables).toBe(r.variables);
    r.runtimeVariables = { set: 'by caller' };
    expect(r.runtimeVariables).toEqual({ set: 'by caller' });
  });

  it('runs an action with a condition only when that condition passed (or failed, with condition_action false)', async () => {
    const yes = step('check', { pass: true });
    const no = step('check', { pass: false });
    const r = await run([
      yes,
      no,
      step('echo', { text: 'after yes' }, { condition: yes.uuid }),
      step('echo', { text: 'after no' }, { condition: no.uuid }),
      step('echo', { text: 'because no' }, { condition: no.uuid, condition_action: 'false' }),
      step('echo', { text: 'unknown ref' }, { condition: 'ffffffff-0000-4000-8000-000000000000' }),
    ]);
    expect(r.lines.filter((l) => !l.text.startsWith('Skipped')).map((l) => l.text)).toEqual(['after yes', 'because no']);
    expect(r.lines.filter((l) => l.text.startsWith('Skipped'))).toHaveLength(2);
  });

  it('stop ends the chain after the current action', async () => {
    const r = await run([step('echo', { text: 'a' }), step('halt'), step('echo', { text: 'b' })]);
    expect(r.stopped).toBe(true);
    expect(r.lines.map((l) => l.text)).toEqual(['a']);
  });

  it('an action that throws is recorded and the chain goes on', async () => {
    const bad = step('boom');
    const r = await run([bad, step('echo', { text: 'error was $error.' + bad.order + '$' })]);
    expect(r.errors).toEqual([{ action: bad.uuid, message: 'kaboom' }]);
    expect(r.output).toContain(`[${bad.order} boom] Error: kaboom`);
    expect(r.lines.at(-1)?.text).toBe('error was kaboom');
    expect(r.stopped).toBe(false);
  });

  it('unknown types and parameters that fail the schema after replacement are errors, not exceptions', async () => {
    const unknown = step('nope');
    const bad = step('echo', { text: 12 });
    const r = await run([unknown, bad, step('echo', { text: 'still here' })]);
    expect(r.errors.map((e) => e.action)).toEqual([unknown.uuid, bad.uuid]);
    expect(r.errors[0].message).toMatch(/Unknown action type "nope"/);
    expect(r.errors[1].message).toMatch(/parameters\.text/);
    expect(r.lines.at(-1)?.text).toBe('still here');
  });

  it('the budget stops an action that overruns; its late changes are ignored', async () => {
    const r = await run([step('echo', { text: 'a' }), step('hang'), step('echo', { text: 'never' })], { budgetMs: 30, services: testServices({ clock: fakeClock() }) });
    expect(r.stopped).toBe(true);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/time budget of 0.03 s was spent/);
    late?.();
    expect(r.lines.map((l) => l.text)).toEqual(['a', expect.stringMatching(/^Error: /)]);
    expect(r.variables.late).toBeUndefined();
  });

  it('no action starts after the clock passes the budget', async () => {
    const r = await run([step('tick', { ms: 31_000 }), step('echo', { text: 'never' })]);
    expect(r.stopped).toBe(true);
    expect(r.errors[0].message).toMatch(/30 s was spent/);
    expect(r.lines.some((l) => l.text === 'never')).toBe(false);
  });

  it('tells each action the time left and aborts its signal at the budget', async () => {
    let seen: { left: number; aborted: boolean } | undefined;
    const probe = defineAction({
      type: 'probe',
      title: 'Probe',
      category: 'test',
      description: '',
      parameters: z.object({}),
      execute: async ({ timeLeftMs, signal, services }) => {
        (services.clock as ReturnType<typeof fakeClock>).advance(100);
        const left = timeLeftMs();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        seen = { left, aborted: signal.aborted };
      },
    });
    const reg = new ActionRegistry();
    reg.addAll('probe', [probe]);
    await run([step('probe')], { registry: reg, budgetMs: 150 });
    expect(seen).toEqual({ left: 50, aborted: true });
  });

  it('returns null as the response when nothing changed it, else the new one with Content-Type moved', async () => {
    expect((await run([step('echo', { text: 'x' })])).response).toBeNull();
    const r = await run([step('respond', { content: 'hi', type: 'application/json' })]);
    expect(r.response).toEqual({ status: 200, content: 'hi', contentType: 'application/json', headers: { 'X-A': '1' } });
  });

  it('global variables are read once and kept current when an action stores one', async () => {
    const globals = memoryGlobals({ greeting: 'hey' });
    const r = await run([step('echo', { text: '$greeting$ $global.greeting$' }), step('store', { name: 'greeting', value: 'yo' }), step('echo', { text: '$greeting$' })], {
      services: testServices({ globals }),
    });
    expect(r.lines.map((l) => l.text)).toEqual(['hey hey', 'yo']);
    expect(globals.values.get('greeting')).toBe('yo');
  });

  it('a repeating action runs the rest of the chain once per item', async () => {
    const r = await run([step('echo', { text: 'start' }), step('each', { items: ['a', 'b', 'c'] }), step('echo', { text: 'item $item$' })]);
    expect(r.lines.map((l) => l.text)).toEqual(['start', 'item a', 'item b', 'item c']);
  });

  it('stop inside a repetition ends every repetition', async () => {
    const r = await run([step('each', { items: ['a', 'b'] }), step('echo', { text: '$item$' }), step('halt')]);
    expect(r.lines.map((l) => l.text)).toEqual(['a']);
  });

  it('never throws, even when reading global variables fails', async () => {
    const services = testServices({ globals: { get: async () => null, set: async () => {}, all: async () => Promise.reject(new Error('db down')), delete: async () => false } });
    const r = await run([step('echo', { text: 'ok' })], { services });
    expect(r.lines.map((l) => l.text)).toEqual(['ok']);
  });

  describe('synchronous actions (no timer, no waiting between them)', () => {
    afterEach(() => vi.restoreAllMocks());
    const later = defineAction({
      type: 'later',
      title: 'Later',
      category: 'test',
      description: 'sets a variable after a macrotask',
      parameters: z.object({ name: z.string() }),
      execute: ({ params, vars }) => new Promise<void>((resolve) => setImmediate(() => (vars.set(params.name, 'async'), resolve()))),
    });
    const busy = defineAction({
      type: 'busy',
      title: 'Busy',
      category: 'test',
      description: 'holds the thread for a while',
      parameters: z.object({ ms: z.number() }),
      execute: ({ params }) => {
        const until = performance.now() + params.ms;
        while (performance.now() < until);
      },
    });
    const reg = new ActionRegistry();
    reg.addAll('test', [echo, setv, boom, respond, hang, later, busy]);

    it('a chain of synchronous actions sets no budget timer and gives what the same chain with an asynchronous action gives', async () => {
      const timers = vi.spyOn(globalThis, 'setTimeout');
      const steps = (mid: string) => [step('setv', { name: 'a', value: '1' }), step(mid, { name: 'b', value: 'sync' }), step('boom'), step('echo', { text: '$a$ $b$ $error.3$' })].map((s, i) => ({ ...s, order: i + 1 }));
      const sync = await run(steps('setv'), { registry: reg });
      expect(timers).not.toHaveBeenCalled();
      const async = await run(steps('later'), { registry: reg });
      expect(timers).toHaveBeenCalledTimes(1);
      const seen = (r: typeof sync) => ({ lines: r.lines.map((l) => l.text), errors: r.errors.map((e) => e.message), vars: r.runtimeVariables, stopped: r.stopped, response: r.response });
      expect(seen(sync)).toEqual({ ...seen(async), lines: seen(async).lines.map((l) => l.replace('async', 'sync')), vars: { ...seen(async).vars, b: 'sync' } });
      expect(seen(sync).lines).toEqual(['Error: kaboom', '1 sync kaboom']);
    });

    it("the budget's timer, set when an action first leaves a promise pending, counts from the start of the run", async () => {
      const timers = vi.spyOn(globalThis, 'setTimeout');
      // A fake clock that stays put: only the timer can spend the budget here.
      const r = await run([step('busy', { ms: 60 }), step('hang'), step('echo', { text: 'never' })], { registry: reg, budgetMs: 200, services: testServices({ clock: fakeClock() }) });
      expect(timers).toHaveBeenCalledTimes(1);
      expect(timers.mock.calls[0]![1]).toBeLessThanOrEqual(140);
      expect(r.stopped).toBe(true);
      expect(r.errors.map((e) => e.message)).toEqual([expect.stringMatching(/time budget of 0.2 s was spent/)]);
    });

    it('the response is null while it is the default, whatever headers spell its content type', async () => {
      const same = defineAction({
        type: 'same',
        title: 'Same',
        category: 'test',
        description: 'sets the response to what it is',
        parameters: z.object({}),
        execute: ({ response, token }) => {
          response.status = token.default_status;
          response.headers['content-type'] = token.default_content_type;
        },
      });
      const r2 = new ActionRegistry();
      r2.addAll('test', [same, echo]);
      expect((await run([step('same')], { registry: r2 })).response).toBeNull();
      // Default content holding bytes is sent as those bytes: a response of its own.
      const bytes = bytesText(Buffer.from([0xff, 0x00]));
      const r = await run([step('echo', { text: 'x' })], { registry: r2, token: { ...TEST_TOKEN, default_content: bytes } });
      expect(r.response?.content).toEqual(Buffer.from([0xff, 0x00]));
    });
  });
});
