// action(), delay() and delete(): other actions from a script, code run later as a queued job, and
// removing a Global Variable. (Through a running server with every plugin: script.e2e.test.ts and
// test/sandbox-clients.e2e.test.ts.)
import { describe, expect, it } from 'vitest';
import { memoryGlobals } from '@capture/sdk/testing';
import { error, output, run } from './helpers.js';

describe('delete()', () => {
  it('removes a Global Variable and says whether there was one', async () => {
    const globals = memoryGlobals({ token: 'abc', keep: 'me' });
    const out = await output(`echo(delete('token')); echo(delete('$token$')); echo(delete('never'))`, { services: { globals } });
    expect(out).toEqual(['true', 'false', 'false']);
    expect(Object.fromEntries(globals.values)).toEqual({ keep: 'me' });
  });

  it('a later $global.x$ no longer resolves', async () => {
    const r = await run(`delete('gone'); echo(var('global.gone', 'none'))`, { globals: { gone: 'was here' } });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['none']);
  });

  it('an empty name is an error', async () => {
    expect(await error(`delete('')`)).toMatch(/name is empty/);
  });
});

describe('delay()', () => {
  it('hands the code to the chain to run later as a script action, and goes on', async () => {
    const code = "request('https://example.com', '{\"message\": \"Hello World!\"}', 'POST')";
    const r = await run(`delay(5, ${JSON.stringify(code)}); echo('after')`);
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['after']);
    expect(r.later).toEqual([{ delay: 5, type: 'script', parameters: { script: code } }]);
  });

  it('refuses more than 7 days, and a missing code', async () => {
    expect(await error(`delay(604801, 'echo(1)')`)).toMatch(/0 to 604800 seconds/);
    expect(await error(`delay(10)`)).toMatch(/second argument/);
  });
});

describe('action()', () => {
  it('an unknown type is the script error', async () => {
    expect(await error(`action('no_such_type', ['a': 1])`)).toMatch(/Unknown action type "no_such_type"/);
  });

  it("runs another WebhookScript only through exec(), not action('script')", async () => {
    expect(await error(`action('script', ['script': 'echo(1)'])`)).toMatch(/use exec\(\)/);
  });
});
