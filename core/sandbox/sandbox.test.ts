import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './index.js';
import type { HostCalls, SandboxFetchRequest, SandboxFetchResponse, SandboxJob, SandboxPool } from './index.js';

function fakeHost(extra: Partial<HostCalls> = {}) {
  const globals = new Map<string, string>([['greeting', 'hello']]);
  const fetched: SandboxFetchRequest[] = [];
  const base: HostCalls = {
    async fetch(req): Promise<SandboxFetchResponse> {
      fetched.push(req);
      if (req.url.endsWith('/missing')) return { status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'nope' };
      return { status: 200, headers: { 'Content-Type': 'application/json', 'X-Up': 'yes' }, body: JSON.stringify({ method: req.method, url: req.url, body: req.body }) };
    },
    async globalGet(name) {
      return globals.get(name) ?? null;
    },
    async globalSet(name, value) {
      globals.set(name, value);
    },
  };
  const host: HostCalls = Object.assign(base, extra);
  return { host, globals, fetched };
}

function job(script: string, more: Partial<SandboxJob> = {}): SandboxJob {
  return { script, variables: {}, request: { method: 'GET', query: {} }, timeoutMs: 5000, ...more };
}

describe('sandbox pool', () => {
  let pool: SandboxPool;
  beforeAll(() => {
    pool = createSandboxPool({ size: 2, killGraceMs: 1000 });
    return pool.ready();
  });
  afterAll(async () => {
    await pool.close();
  });

  it('reads and writes variables', async () => {
    const { host } = fakeHost();
    const r = await pool.run(
      job(
        `const n = Number(get('request.query.n'));
         set('double', n * 2);
         set('obj', { a: 1 });
         set('nothing', null);
         echo(variables['request.query.n'], variables.double, typeof get('missing'));`,
        { variables: { 'request.query.n': '21', keep: 'me' } },
      ),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.variables).toEqual({ 'request.query.n': '21', keep: 'me', double: '42', obj: '{"a":1}', nothing: '' });
    expect(r.output).toEqual(['21 42 undefined']);
    expect(r.stopped).toBe(false);
    expect(r.response).toBeNull();
  });

  it('responds with content, status and headers, and stops', async () => {
    const { host } = fakeHost();
    const r = await pool.run(job(`respond('double is 42', 201, ['X-Js: on']); set('after', 'yes')`), host);
    expect(r.error).toBeNull();
    expect(r.response).toEqual({ content: 'double is 42', status: 201, headers: ['X-Js: on'] });
    expect(r.stopped).toBe(true);
    expect(r.variables.after).toBeUndefined();
  });

  it('set_response does not stop; stop() and dont_save() set their flags', async () => {
    const { host } = fakeHost();
    const a = await pool.run(job(`set_response({ ok: true }, '202', { 'Content-Type': 'application/json' }); echo('still running')`), host);
    expect(a.error).toBeNull();
    expect(a.response).toEqual({ content: '{"ok":true}', status: 202, headers: { 'Content-Type': 'application/json' } });
    expect(a.stopped).toBe(false);
    expect(a.output).toEqual(['still running']);

    const b = await pool.run(job(`dont_save(); echo('before'); stop(); echo('after')`), host);
    expect(b.error).toBeNull();
    expect(b).toMatchObject({ stopped: true, dontSave: true, output: ['before'], response: null });
  });

  it('collects console output in order', async () => {
    const { host } = fakeHost();
    const r = await pool.run(job(`console.log('a', 1, { b: [2] }); echo('c'); console.error(new Error('oops')); console.log(null, undefined, true)`), host);
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['a 1 {"b":[2]}', 'c', 'Error: oops', 'null undefined true']);
  });

  it('serves async global() and store() through the host, with top-level await', async () => {
    const { host, globals } = fakeHost();
    const r = await pool.run(
      job(`echo(await global('greeting'));
           echo(await global('missing'));
           await store('saved', { n: 1 });
           await global('other', 'x');
           echo(await global('saved'));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['hello', 'null', '{"n":1}']);
    expect(globals.get('saved')).toBe('{"n":1}');
    expect(globals.get('other')).toBe('x');
  });

  it('serves the per-token store and db() when the host has them, and explains when not', async () => {
    const kv = new Map<string, string>();
    const { host } = fakeHost({
      async storeGet(name) {
        return kv.get(name) ?? null;
      },
      async storeSet(name, value) {
        kv.set(name, value);
      },
      async db(q) {
        return { result: [{ id: 1, name: `${q.database}:${q.query}:${JSON.stringify(q.params)}` }], error: null, rows: 1, time: 0 };
      },
    });
    const r = await pool.run(
      job(`await store.set('k', 'v'); echo(await store.get('k'));
           const mydb = await db('example_db');
           const users = await mydb('select * from users where id = :id', { id: 1 });
           for (const u of users.result) echo(u.name);`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['v', 'example_db:select * from users where id = :id:{"id":1}']);

    const bare = fakeHost().host;
    const n = await pool.run(job(`try { await db('x') } catch (e) { echo(e.message) } await store.get('k')`), bare);
    expect(n.output).toEqual(['db() is not configured on this server']);
    expect(n.error).toMatch(/store\.get\(\) is not configured/);
  });

  it('routes fetch and axios through the host fetch', async () => {
    const { host, fetched } = fakeHost();
    const r = await pool.run(
      job(`const res = await fetch('https://example.test/a', { method: 'post', body: { x: 1 } });
           echo(res.status, res.ok, res.headers.get('x-up'), (await res.json()).method);
           const axios = require('axios');
           const got = await axios.get('https://example.test/b', { params: { q: 'a b' } });
           echo(got.status, got.data.url);
           try { await axios.get('https://example.test/missing') } catch (e) { echo(e.message, e.response.status, e.response.data) }
           const f = require('fetch');
           echo(await (await f('https://example.test/missing')).text());`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['200 true yes POST', '200 https://example.test/b?q=a%20b', 'Request failed with status code 404 404 nope', 'nope']);
    expect(fetched[0]).toEqual({ url: 'https://example.test/a', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"x":1}' });
  });

  it('requires lodash, dayjs (with a plugin) and crypto from the allow-list', async () => {
    const { host } = fakeHost();
    const r = await pool.run(
      job(`const _ = require('lodash');
           const dayjs = require('dayjs');
           dayjs.extend(require('dayjs/plugin/utc'));
           console.log(_.last([1, 2, 3]), _.chunk([1, 2, 3], 2));
           console.log(dayjs(1318781876406));
           echo(dayjs.utc('2024-01-02T03:04:05Z').format('YYYY-MM-DD HH:mm'));
           echo(require('lodash') === _);
           echo(require('crypto').createHmac('sha256', 'abcdefg').update('I love Webhook.site').digest('hex'));
           echo(require('crypto').createHash('md5').update('a').digest('base64'));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['3 [[1,2],[3]]', '"2011-10-16T16:17:56.406Z"', '2024-01-02 03:04', 'true', '1745c764246c2782ebf97e25b89547a92571f19d41846b42880d3815480f098e', 'DMF1ucDxtqgxw5niaXcmYQ==']);
  });

  it('refuses modules that are not on the list', async () => {
    const { host } = fakeHost();
    for (const name of ['fs', 'child_process', '../../package.json', 'lodash/../../etc/passwd']) {
      const r = await pool.run(job(`require(${JSON.stringify(name)})`), host);
      expect(r.error).toContain(`Cannot find module '${name}'`);
    }
  });

  it('keeps the host out of reach', async () => {
    const { host } = fakeHost();
    const r = await pool.run(
      job(`echo(typeof process, typeof module, typeof Buffer, typeof __native, typeof globalThis.process);
           echo(Function('return typeof process')(), (function () { return this })() === globalThis);
           echo(({}).constructor.constructor('return typeof require && typeof process')());
           try { globalThis.require('fs') } catch (e) { echo(e.message) }
           try { await import('fs') } catch (e) { echo('import refused') }
           try { new Function('return import("os")')().then(() => echo('bad'), () => echo('dynamic import refused')) } catch (e) { echo('import refused too') }
           await new Promise((r) => setTimeout(r, 10));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual([
      // Buffer is the sandbox's own (written in JS in the prelude, see buffer.test.ts), not the host's.
      'undefined undefined function undefined undefined',
      'undefined true',
      'undefined',
      "Cannot find module 'fs'",
      'import refused',
      'dynamic import refused',
    ]);
  });

  it('reports a thrown error with its line, keeping output and variables set before it', async () => {
    const { host } = fakeHost();
    const r = await pool.run(job(`echo('one'); set('a', 1);\nthrow new Error("kaboom")`), host);
    expect(r.error).toBe('Error: kaboom (line 2)');
    expect(r.output).toEqual(['one']);
    expect(r.variables.a).toBe('1');
    const s = await pool.run(job(`let x = ;`), host);
    expect(s.error).toMatch(/^SyntaxError/);
  });

  it('stops an endless loop at the deadline while a concurrent short script completes', async () => {
    const { host } = fakeHost();
    const started = Date.now();
    let shortDoneAt = 0;
    let longDoneAt = 0;
    const long = pool.run(job('for (;;) {}', { timeoutMs: 700 }), host).then((r) => {
      longDoneAt = Date.now();
      return r;
    });
    const short = pool.run(job(`echo('quick')`), host).then((r) => {
      shortDoneAt = Date.now();
      return r;
    });
    const [l, s] = await Promise.all([long, short]);
    expect(s.output).toEqual(['quick']);
    expect(l.error).toMatch(/^Script timed out after (69[0-9]|70[0-9]) ms$/);
    expect(shortDoneAt).toBeLessThan(longDoneAt);
    expect(longDoneAt - started).toBeGreaterThanOrEqual(690);
  });

  it('times out a script awaiting a host call that never answers, and one awaiting nothing', async () => {
    const { host } = fakeHost({ globalGet: () => new Promise<string | null>(() => {}) });
    const r = await pool.run(job(`echo('waiting'); await global('x'); echo('never')`, { timeoutMs: 300 }), host);
    expect(r.error).toMatch(/^Script timed out after (29[0-9]|30[0-9]) ms$/);
    expect(r.output).toEqual(['waiting']);
    const n = await pool.run(job(`await new Promise(() => {})`), host);
    expect(n.error).toMatch(/never settles/);
    const t = await pool.run(job(`setTimeout(() => echo('too late'), 60000); await new Promise((r) => setTimeout(r, 60000))`, { timeoutMs: 300 }), host);
    expect(t).toMatchObject({ error: expect.stringMatching(/^Script timed out after (29[0-9]|30[0-9]) ms$/), output: [] });
  });

  it('stops a huge allocation with the memory limit, and the next run works', async () => {
    const { host } = fakeHost();
    const r = await pool.run(job(`const a = new Array(1e8).fill(0); echo(a.length)`), host);
    expect(r.error).toBe('Script exceeded the memory limit (32 MiB)');
    const s = await pool.run(job(`let s = ''; const parts = []; for (let i = 0; i < 1e6; i++) parts.push('x'.repeat(100)); echo(parts.length)`, { memoryBytes: 8 * 1024 * 1024 }), host);
    expect(s.error).toBe('Script exceeded the memory limit (8 MiB)');
    const ok = await pool.run(job(`echo('fine')`), host);
    expect(ok).toMatchObject({ error: null, output: ['fine'] });
  });

  it('stops deep recursion, and the next run works', async () => {
    const { host } = fakeHost();
    const r = await pool.run(job(`function f(n) { return f(n + 1) + 1 } f(0)`), host);
    expect(r.error).toBe('Script exceeded the maximum stack size (too much recursion)');
    const j = await pool.run(job(`JSON.parse('['.repeat(100000) + ']'.repeat(100000))`), host);
    expect(j.error).toMatch(/stack overflow|maximum stack size/);
    const m = await pool.run(job(`function g() { return [1].map(() => g()) } g()`), host);
    expect(m.error).toBe('Script exceeded the maximum stack size (too much recursion)');
    const ok = await pool.run(job(`echo('fine')`), host);
    expect(ok).toMatchObject({ error: null, output: ['fine'] });
  });

  it('queues more jobs than workers and runs them all', async () => {
    const { host } = fakeHost();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run(job(`await global('greeting'); echo(${i})`), host)));
    expect(results.map((r) => r.output[0])).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  it('runs timers and truncates runaway output', async () => {
    const { host } = fakeHost();
    const t = await pool.run(job(`setTimeout((x) => echo('later', x), 20, 7); const id = setTimeout(() => echo('cancelled'), 5); clearTimeout(id); await new Promise((r) => setTimeout(r, 40)); echo('end')`), host);
    expect(t.output).toEqual(['later 7', 'end']);
    const o = await pool.run(job(`for (let i = 0; i < 12000; i++) echo('line ' + i)`), host);
    expect(o.error).toBeNull();
    expect(o.output.length).toBe(10_001);
    expect(o.output.at(-1)).toBe('(output cut: more than 10,000 lines)');
  });
});

describe('sandbox pool hard kill', () => {
  it('terminates and replaces a worker that ignores its deadline; other runs keep being served', async () => {
    const pool = createSandboxPool({ size: 2, killGraceMs: 200, disableInterruptForTesting: true });
    try {
      const { host } = fakeHost();
      await pool.ready();
      const started = Date.now();
      const stuck = pool.run(job('while (true) {}', { timeoutMs: 300 }), host);
      const others = await Promise.all([1, 2, 3].map((i) => pool.run(job(`echo(${i})`), host)));
      expect(others.map((r) => r.output)).toEqual([['1'], ['2'], ['3']]);
      const r = await stuck;
      expect(r.error).toMatch(/^Script timed out after (29[0-9]|30[0-9]) ms \(its sandbox worker was stopped\)$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(490);
      expect(pool.stats().replaced).toBe(1);
      // Both workers are usable again (the replacement included).
      const again = await Promise.all([pool.run(job(`echo('a')`), host), pool.run(job(`echo('b')`), host)]);
      expect(again.map((x) => x.output)).toEqual([['a'], ['b']]);
    } finally {
      await pool.close();
    }
  });

  it('rejects runs after close', async () => {
    const pool = createSandboxPool({ size: 1 });
    await pool.close();
    await expect(pool.run(job('1'), fakeHost().host)).rejects.toThrow(/closed/);
  });
});

describe('sandbox pool fairness', () => {
  it("one account's runaway scripts leave workers for another account's script", async () => {
    const pool = createSandboxPool({ size: 2, runTimeoutMs: 5000 });
    try {
      await pool.ready();
      const { host } = fakeHost();
      const flood = Array.from({ length: 20 }, () => pool.run(job('for (;;) {}', { timeoutMs: 10_000, account: 'user:1' }), host));
      const started = Date.now();
      const other = await pool.run(job(`echo('quick')`, { account: 'user:2' }), host);
      expect(other).toMatchObject({ error: null, output: ['quick'] });
      expect(Date.now() - started).toBeLessThan(3000);
      // By default an account has half the workers: one of the flood's runs goes, the rest wait.
      expect(pool.stats()).toMatchObject({ busy: 1, queued: 19 });
      await pool.close();
      expect((await Promise.all(flood)).every((r) => r.error !== null)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("gives a queued action's run queuedRunTimeoutMs instead of runTimeoutMs", async () => {
    const pool = createSandboxPool({ size: 1, runTimeoutMs: 300, queuedRunTimeoutMs: 1500 });
    try {
      await pool.ready();
      const { host } = fakeHost();
      expect((await pool.run(job('for (;;) {}', { timeoutMs: 20_000, account: 'user:1' }), host)).error).toMatch(/^Script timed out after 300 ms/);
      const r = await pool.run(job('for (;;) {}', { timeoutMs: 20_000, account: 'user:1', queued: true }), host);
      // Under heavy load the hard kill may end it, which the message then adds.
      expect(r.error).toMatch(/^Script timed out after 1500 ms/);
    } finally {
      await pool.close();
    }
  });

  it('stops a run at runTimeoutMs even when its job has a longer budget', async () => {
    const pool = createSandboxPool({ size: 1, runTimeoutMs: 300 });
    try {
      await pool.ready();
      const { host } = fakeHost();
      const started = Date.now();
      const r = await pool.run(job('for (;;) {}', { timeoutMs: 20_000, account: 'user:1' }), host);
      expect(r.error).toBe('Script timed out after 300 ms');
      expect(Date.now() - started).toBeLessThan(3000);
      // The worker serves the next run.
      expect((await pool.run(job(`echo('next')`, { account: 'user:1' }), host)).output).toEqual(['next']);
    } finally {
      await pool.close();
    }
  });
});
