// verify_signature in a running server: a GitHub-signed capture is stored with $signature.valid$
// true; an unsigned one is answered 401 with a JSON error and not stored. The secret is a global
// variable of the account.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const SECRET = 'e2e-signing-secret';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('verify_signature', () => {
  it('stores a signed capture and answers an unsigned one 401 without storing it', async () => {
    const user = await s.user(true);
    const g = await s.call('POST', '/global-variables', { key: user.key, json: { name: 'gh_secret', value: SECRET } });
    expect(g.status, g.text).toBeLessThan(300);
    const t = await s.token({ actions: true }, user.key);
    for (const [type, parameters] of [
      ['verify_signature', { preset: 'github', secret: '$global.gh_secret$', reject: true }],
      ['modify_response', { content: 'valid=$signature.valid$ reason=$signature.reason$' }],
    ] as const) {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { key: user.key, json: { type, parameters } });
      expect(r.status, r.text).toBe(200);
    }

    const body = Buffer.from('{"action":"opened","note":"\u00fcn\u00efc\u00f6d\u00e9"}');
    const sig = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const signed = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': sig } });
    expect(signed.status).toBe(200);
    expect(signed.text).toBe('valid=true reason=ok');

    const unsigned = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'application/json' } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.data).toEqual({ message: 'Invalid signature: missing header X-Hub-Signature-256' });

    const list = await s.call('GET', `/token/${t.uuid}/requests`, { key: user.key });
    expect(list.data.data).toHaveLength(1);
    const [stored] = list.data.data;
    expect(stored.headers['x-hub-signature-256']).toEqual([sig]);
    expect(stored.custom_action_output[0]).toBe('[1 verify_signature] Signature valid (github)');
    expect(list.text).not.toContain(SECRET);
  });
});
