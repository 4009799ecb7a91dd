import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from '../../../test/helpers/host.js';
import { SANDBOX } from '@capture/sdk';
import { memoryGlobals, rootContainer as container, runAction, stubDatabases, stubHttp, validateParams } from '@capture/sdk/testing';
import plugin from '../src/index.js';
import { javascript } from '../src/javascript.js';

// The action runtime registers the process's pool; here the test does, in the root container.
const pool = createSandboxPool();
beforeAll(() => {
  container.registerInstance(SANDBOX, pool);
});
afterAll(async () => {
  await pool.close();
});

describe('javascript action', () => {
  it('answers from the sandbox (the acceptance case)', async () => {
    await pool.ready(); // worker start-up is not part of the action's budget here
    const script = "const n = Number(get('request.query.n')); set('double', String(n * 2)); respond('double is ' + get('double'), 201, ['X-Js: on'])";
    const r = await runAction(javascript, { script }, { request: { method: 'GET', url: 'http://localhost:8084/t?n=21', query: { n: '21' } } });
    expect(r.errors).toEqual([]);
    expect(r.response).toMatchObject({ status: 201, content: 'double is 42', headers: { 'X-Js': 'on' } });
    expect(r.vars.double).toBe('42');
    expect(r.stopped).toBe(true);
  });

  it('logs output, sees the request, and marks dont_save and stop', async () => {
    const r = await runAction(
      javascript,
      { script: `console.log('method', request.method, request.content); echo(variables['request.method']); dont_save(); stop(); echo('not reached')` },
      { request: { method: 'PUT', content: 'body!' } },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['method PUT body!', 'PUT']);
    expect(r.dontSave).toBe(true);
    expect(r.stopped).toBe(true);
  });

  it('leaves $...$ in the script alone; variables are read with get()', async () => {
    const r = await runAction(javascript, { script: 'const x = 5; echo(`$request.method$ ${x}`); echo(get("given"))' }, { vars: { given: 'yes' } });
    expect(r.output).toEqual(['$request.method$ 5', 'yes']);
  });

  it('records a thrown error, keeping the default response', async () => {
    const r = await runAction(javascript, { script: 'echo("before"); throw new Error("kaboom")' }, { token: { default_content: 'fine' } });
    expect(r.errors).toEqual(['Error: kaboom (line 1)']);
    expect(r.output).toContain('before');
    expect(r.response.content).toBe('fine');
  });

  it('reads and stores Global Variables through the chain services', async () => {
    const globals = memoryGlobals({ greeting: 'hello' });
    const r = await runAction(javascript, { script: `echo(await global('greeting'), await global('nope')); await store('saved', 'v1'); await global('other', 2)` }, { services: { globals } });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['hello null']);
    expect(globals.values.get('saved')).toBe('v1');
    expect(globals.values.get('other')).toBe('2');
  });

  it('sends fetch and axios requests through the HTTP client service', async () => {
    const http = stubHttp((req) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ got: req.method }) }));
    const r = await runAction(
      javascript,
      { script: `const res = await fetch('https://api.example/x', { method: 'POST', body: { a: 1 } }); echo(res.status, (await res.json()).got); echo((await require('axios').get('https://api.example/y')).data.got)` },
      { services: { http } },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['200 POST', 'GET']);
    expect(http.sent[0]).toMatchObject({ method: 'POST', url: 'https://api.example/x', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } });
    expect(http.sent[1]).toMatchObject({ method: 'GET', url: 'https://api.example/y' });
    expect(http.sent[1]?.body).toBeUndefined();
  });

  it('set_response sets content type and headers without stopping; bad header names are reported', async () => {
    const r = await runAction(javascript, { script: `set_response('{"ok":true}', 202, { 'Content-Type': 'application/json', 'X-A': '1', 'Bad Name': 'x' }); echo('go on')` });
    expect(r.response).toMatchObject({ status: 202, content: '{"ok":true}', contentType: 'application/json', headers: { 'X-A': '1' } });
    expect(r.stopped).toBe(false);
    expect(r.output).toEqual(['go on']);
    expect(r.errors[0]).toMatch(/Bad Name/);
  });

  it('db() queries go to the chain services; without databases they reject', async () => {
    const r = await runAction(javascript, { script: `const q = await db('example_db'); await q('select 1')` });
    expect(r.errors).toEqual(['Error: Databases are not configured in this test (pass services.databases) (line 1)']);

    const databases = stubDatabases((id, sql, params) =>
      sql.startsWith('select') ? { result: [{ id, params }], rows: 1, time: 0.5 } : { result: null, error: 'ERROR: relation "nonexisting" does not exist (SQLSTATE 42P01)' },
    );
    const script = `
      const mydb = await db('example_db');
      const ok = await mydb('select * from users where email = :email', { email: 'a@b.c' });
      const bad = await mydb('insert into nonexisting values (?)', [1]);
      echo(JSON.stringify(ok), JSON.stringify(bad));`;
    const ok = await runAction(javascript, { script }, { services: { databases } });
    expect(ok.errors).toEqual([]);
    expect(ok.output).toEqual([
      '{"result":[{"id":"example_db","params":{"email":"a@b.c"}}],"error":null,"rows":1,"time":0.5} ' + '{"result":null,"error":"ERROR: relation \\"nonexisting\\" does not exist (SQLSTATE 42P01)","rows":0,"time":0}',
    ]);
    expect(databases.calls).toEqual([
      { id: 'example_db', sql: 'select * from users where email = :email', params: { email: 'a@b.c' } },
      { id: 'example_db', sql: 'insert into nonexisting values (?)', params: [1] },
    ]);
  });

  it('an endless script ends with the chain budget', async () => {
    const r = await runAction(javascript, { script: 'for (;;) {}' }, { budgetMs: 400 });
    expect(r.errors[0]).toMatch(/timed out|time budget/);
  });

  it("a trivial script answers while another account's scripts loop forever", async () => {
    // A pool of its own: two workers, and runs cut at 5 s so that the test can close it early.
    const own = createSandboxPool({ size: 2, runTimeoutMs: 5000 });
    const scope = container.createChildContainer();
    scope.registerInstance(SANDBOX, own);
    try {
      await own.ready();
      const flood = Array.from({ length: 20 }, () => runAction(javascript, { script: 'for (;;) {}' }, { container: scope, token: { user_id: 1 } }));
      const started = Date.now();
      const r = await runAction(javascript, { script: "echo('quick')" }, { container: scope, token: { uuid: 'another-token', user_id: null } });
      expect(r).toMatchObject({ errors: [], output: ['quick'] });
      expect(Date.now() - started).toBeLessThan(3000);
      await own.close();
      expect((await Promise.all(flood)).every((f) => f.errors.length === 1)).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('requires a script parameter', () => {
    expect(() => validateParams(javascript, {})).toThrow();
    expect(validateParams(javascript, { script: 'echo(1)' })).toEqual({ script: 'echo(1)' });
  });

  it('the plugin provides the javascript type', () => {
    expect(plugin.actions.map((a) => a.type)).toEqual(['javascript']);
  });
});
