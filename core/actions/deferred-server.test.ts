// The server loads plugins deferred: a plugin whose manifest lists its types is imported after the
// server listens (or when one of its types is first needed), and every reader that needs its code
// waits for it. The `gated` plugin's import waits for the test to open its gate, so the requests
// below are certainly served before the plugin was imported.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { emptyDocument } from '../workflows/document.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

const root = mkdtempSync(path.join(tmpdir(), 'capture-deferred-server-'));
const gate = ((globalThis as Record<string, unknown>).__deferredGate = {} as { open?: () => void; imported: number });
gate.imported = 0;
const opened = new Promise<void>((resolve) => (gate.open = resolve));
(globalThis as Record<string, unknown>).__deferredGateOpened = opened;

function plugin(dir: string, name: string, types: string[], source: string): string {
  const d = path.join(root, dir);
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, 'package.json'), JSON.stringify({ name, captureActions: { entry: 'index.js', actionTypes: types } }));
  writeFileSync(path.join(d, 'index.js'), source);
  return d;
}

const gated = plugin(
  'gated',
  'gated',
  ['gated_echo'],
  `await globalThis.__deferredGateOpened;
globalThis.__deferredGate.imported++;
export default ({ definePlugin, defineAction, secret, z }) => definePlugin({ name: 'gated', actions: [defineAction({
  type: 'gated_echo', title: 'Echo', category: 'test', description: '',
  parameters: z.object({ message: z.string(), api_key: secret(z.string()) }),
  execute: (ctx) => { ctx.response.content = ctx.params.message + (ctx.params.api_key === 'sekret' ? ' (key ok)' : ' (wrong key)'); },
}) ] });`,
);
const broken = plugin('broken', 'broken', ['broken_action'], `throw new Error('boom at import');`);

const logs: Array<Record<string, unknown>> = [];
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ PLUGINS: [gated, broken].join(',') }, { logger: createLogger('info', {}, (line) => logs.push(JSON.parse(line))) });
});
afterAll(async () => {
  gate.open?.();
  await s?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('deferred plugin loading in the server', () => {
  it('masks a not-yet-imported plugin secret in GET answers and runs its action on the first capture', async () => {
    const token = await s.token({ actions: true });
    // Stored as a chain from before sealing existed would be: the secret in plain (it is read as is).
    const doc = emptyDocument(token.uuid);
    doc.spec.steps.push({ id: '3f0c1f52-7a52-4c55-9d7a-0f4d7d1b2c11', type: 'gated_echo', parameters: { message: 'hello', api_key: 'sekret' }, disabled: false });
    await s.services.store.workflows.putForToken(token.uuid, doc as unknown as Record<string, unknown>, Date.now());

    const listed = s.call('GET', `/token/${token.uuid}/actions`);
    const captured = s.call('POST', `/${token.uuid}`, { body: 'x' });
    // Both wait for the plugin: nothing answers while its import is held.
    const first = await Promise.race([listed.then((r) => 'answered list ' + r.status + r.text), captured.then((r) => 'answered capture ' + r.status + r.text), new Promise((r) => setTimeout(() => r('waiting'), 300))]);
    expect(first).toBe('waiting');
    expect(gate.imported).toBe(0);

    gate.open!();
    const [list, capture] = await Promise.all([listed, captured]);
    expect(gate.imported).toBe(1);
    expect(list.status).toBe(200);
    expect(list.data.data[0].parameters).toEqual({ message: 'hello', api_key: '********' });
    expect(capture.status).toBe(200);
    expect(capture.text).toBe('hello (key ok)');

    const doc2 = await s.call('GET', `/token/${token.uuid}/workflow`);
    expect(JSON.stringify(doc2.data)).not.toContain('sekret');
  });

  it('a plugin that fails to load is logged once and named on every use of its types', async () => {
    const token = await s.token({ actions: true });
    const tries = await Promise.all([1, 2].map(() => s.call('POST', `/token/${token.uuid}/actions`, { json: { type: 'broken_action', parameters: {} } })));
    for (const r of tries) {
      expect(r.status).toBe(422);
      expect(r.data.message).toBe('Action type "broken_action" is unavailable: its plugin broken failed to load: boom at import');
    }
    const doc = emptyDocument(token.uuid);
    doc.spec.steps.push({ id: '0d7e0b5e-5b0a-4f7b-8f5e-6a4b1f0c9d22', type: 'broken_action', parameters: {}, disabled: false });
    await s.services.store.workflows.putForToken(token.uuid, doc as unknown as Record<string, unknown>, Date.now());
    expect((await s.call('POST', `/${token.uuid}`, { body: 'x' })).status).toBe(200);
    const errors = await s.call('GET', `/token/${token.uuid}/requests?sorting=newest`);
    expect(JSON.stringify(errors.data)).toContain('broken_action');
    const failures = logs.filter((l) => String(l.msg ?? l.message).startsWith('Action plugin failed to load'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ plugin: broken });
  });
});
