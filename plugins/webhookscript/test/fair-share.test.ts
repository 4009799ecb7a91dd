// WebhookScript runs on the event loop every account shares: one account's runaway scripts must
// not stall another account's.
import { describe, expect, it } from 'vitest';
import { systemClock } from '@capture/sdk';
import { runAction, stubHttp } from '@capture/sdk/testing';
import { createScriptAction } from '../src/script.js';

describe('sharing the event loop', () => {
  it("a trivial script answers while another account's scripts loop forever on heavy steps", async () => {
    const script = createScriptAction(); // one action: its runs share one per-account gate
    const runaway = 's = "ab" * 50000\nwhile (true) { t = s.string_reverse() }';
    const flood = Array.from({ length: 20 }, () => runAction(script, { script: runaway }, { token: { user_id: 1 }, budgetMs: 1500, services: { clock: systemClock } }));
    await new Promise((r) => setTimeout(r, 50)); // the flood is running
    const started = Date.now();
    const r = await runAction(script, { script: 'echo("quick")' }, { token: { uuid: 'another-token', user_id: null } });
    expect(r).toMatchObject({ errors: [], output: ['quick'] });
    expect(Date.now() - started).toBeLessThan(3000);
    // The flood ends with its chains' budget: the runs that got a turn while running, the others while waiting.
    const ended = await Promise.all(flood);
    expect(ended.every((f) => f.errors.length === 1 && /time budget/.test(f.errors[0]!))).toBe(true);
  }, 20_000);

  it("runs an account's scripts beyond maxRunsPerAccount one after another", async () => {
    const script = createScriptAction({ maxRunsPerAccount: 1 });
    const http = stubHttp(); // its requests show the order the runs worked in
    const run = (name: string) =>
      runAction(script, { script: `request("http://log.test/${name}-start")\nfor (i in 1..20000) { x = i }\nrequest("http://log.test/${name}-end")` }, { token: { user_id: 1 }, services: { http } });
    await Promise.all([run('a'), run('b')]);
    expect(http.sent.map((r) => r.url)).toEqual(['a-start', 'a-end', 'b-start', 'b-end'].map((p) => `http://log.test/${p}`));
  });
});
