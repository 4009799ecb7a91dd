// Actions that keep failing on captures are disabled; a success in between ends the streak.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { fakeClock, silentLogger } from '@capture/sdk/testing';
import type { TokenRecord } from '../store/types.js';
import { FailureTracker } from './failures.js';

let s: TestServer;
let owner: { id: number; key: string };
beforeAll(async () => {
  s = await startTestServer({ ACTION_DISABLE_AFTER_FAILURES: '3' });
  owner = await s.user(true);
});
afterAll(() => s?.close());

// Validate JSON fails on invalid JSON (an action error), and passes on valid JSON.
const validate = { type: 'validate_json', parameters: { source: '$request.content$' } };

async function actionState(token: string) {
  return (await s.call('GET', `/token/${token}/actions`, { key: owner.key })).data.data[0] as { uuid: string; disabled: boolean };
}

describe('disabling actions that keep failing', () => {
  it('disables an action after the configured failures in a row, and says so on the request', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: validate });
    for (let i = 0; i < 2; i++) await s.call('POST', `/${t.uuid}`, { body: '{bad' });
    expect((await actionState(t.uuid)).disabled).toBe(false);
    await s.call('POST', `/${t.uuid}`, { body: '{bad' });
    const a = await actionState(t.uuid);
    expect(a.disabled).toBe(true);
    const req = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;
    expect(req.custom_action_output.join('\n')).toContain(`Action ${a.uuid} failed on 3 captures in a row and was disabled`);
    // Disabled, it no longer runs; enabled again, it starts a fresh streak.
    await s.call('POST', `/${t.uuid}`, { body: '{bad' });
    expect((await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data.custom_action_errors).toEqual([]);
    await s.call('PUT', `/token/${t.uuid}/actions/${a.uuid}`, { key: owner.key, json: { ...validate, disabled: false } });
    await s.call('POST', `/${t.uuid}`, { body: '{bad' });
    expect((await actionState(t.uuid)).disabled).toBe(false);
  });

  it('a success ends the streak', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: validate });
    for (const body of ['{bad', '{bad', '{"ok":1}', '{bad', '{bad']) await s.call('POST', `/${t.uuid}`, { body });
    expect((await actionState(t.uuid)).disabled).toBe(false);
    await s.call('POST', `/${t.uuid}`, { body: '{bad' });
    expect((await actionState(t.uuid)).disabled).toBe(true);
  });
});

describe('FailureTracker', () => {
  it('a run without errors and no known streak touches no store; streaks are read again after 30 s', async () => {
    const calls: string[] = [];
    const streaks = new Map<string, number>();
    const store = {
      actionFailures: {
        failing: async () => (calls.push('failing'), [...streaks.keys()]),
        fail: async (id: string) => (calls.push(`fail ${id}`), streaks.set(id, (streaks.get(id) ?? 0) + 1).get(id)!),
        reset: async (ids: string[]) => void (calls.push(`reset ${ids}`), ids.forEach((id) => streaks.delete(id))),
      },
    };
    const clock = fakeClock();
    const tracker = new FailureTracker(store as never, { disable: async () => true } as never, clock, silentLogger, 3);
    const token = { uuid: 't' } as TokenRecord;
    expect(await tracker.record(token, { ran: ['a'], errors: [] })).toEqual([]);
    expect(calls).toEqual(['failing']);
    expect(await tracker.record(token, { ran: ['a'], errors: [] })).toEqual([]);
    expect(calls).toEqual(['failing']);
    await tracker.record(token, { ran: ['a'], errors: [{ action: 'a', message: 'x' }] });
    expect(calls).toEqual(['failing', 'fail a']);
    await tracker.record(token, { ran: ['a'], errors: [] });
    expect(calls).toEqual(['failing', 'fail a', 'reset a']);
    // Another process starts a streak: seen once the known streaks are read again.
    streaks.set('b', 1);
    await tracker.record(token, { ran: ['b'], errors: [] });
    expect(calls.at(-1)).toBe('reset a');
    clock.advance(30_001);
    await tracker.record(token, { ran: ['b'], errors: [] });
    expect(calls.slice(-2)).toEqual(['failing', 'reset b']);
  });
});
