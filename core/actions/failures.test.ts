// Actions that keep failing on captures are disabled; a success in between ends the streak.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

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
