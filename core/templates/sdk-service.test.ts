// The SDK's TEMPLATES service through a plugin on the real server: an action reads its account's
// templates by id or name through ctx.services.templates; secrets stay masked; other accounts'
// templates are not found.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

const root = mkdtempSync(path.join(tmpdir(), 'capture-templates-sdk-'));
const dir = path.join(root, 'reader');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'template-reader', captureActions: { entry: 'index.js', actionTypes: ['read_template', 'with_secret'] } }));
writeFileSync(
  path.join(dir, 'index.js'),
  `export default ({ definePlugin, defineAction, secret, z }) => definePlugin({ name: 'template-reader', actions: [
  defineAction({ type: 'read_template', title: 'Read a template', category: 'test', description: '', parameters: z.object({ template: z.string() }),
    execute: async (ctx) => {
      try { ctx.response.content = JSON.stringify(await ctx.services.templates.get(ctx.params.template)); }
      catch (e) { ctx.response.content = 'error: ' + e.message; }
    } }),
  defineAction({ type: 'with_secret', title: 'Has a secret', category: 'test', description: '', parameters: z.object({ key: secret(z.string()) }), execute: () => {} }),
] });`,
);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ PLUGINS: dir });
});
afterAll(async () => {
  await s?.close();
  rmSync(root, { recursive: true, force: true });
});

async function readWith(key: string, template: string): Promise<string> {
  const token = await s.token({ actions: true }, key);
  const created = await s.call('POST', `/token/${token.uuid}/actions`, { key, json: { type: 'read_template', parameters: { template } } });
  expect(created.status).toBe(200);
  return (await s.call('POST', `/${token.uuid}`, { body: 'x' })).text;
}

describe('the TEMPLATES service of the SDK', () => {
  it("reads the chain's account's templates by id or name, secrets masked, others' not found", async () => {
    const owner = await s.user(true);
    const other = await s.user(true);
    const body = { name: 'greetings', variables: [{ name: 'greeting', value: 'hello' }], actions: [{ type: 'with_secret', parameters: { key: 'hunter2' } }] };
    const t = await s.call('POST', '/templates', { key: owner.key, json: body });
    expect(t.status).toBe(201);

    const byName = JSON.parse(await readWith(owner.key, 'greetings'));
    expect(byName).toMatchObject({ id: t.data.id, name: 'greetings', variables: [{ name: 'greeting', value: 'hello' }] });
    expect(byName.actions).toEqual([{ uuid: t.data.actions[0].uuid, type: 'with_secret', name: null, disabled: false, parameters: { key: '********' } }]);
    expect(JSON.parse(await readWith(owner.key, String(t.data.id))).name).toBe('greetings');

    expect(await readWith(other.key, 'greetings')).toBe('error: Template "greetings" not found in this account');
    expect(await readWith(other.key, String(t.data.id))).toBe(`error: Template "${t.data.id}" not found in this account`);
  });
});
