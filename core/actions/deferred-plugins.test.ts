// Deferred loading: a plugin whose manifest lists its action types is imported when one of them is
// first needed (registry.ready), not at start-up.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@capture/sdk/testing';
import { BUILTIN_PLUGINS_DIR, loadPlugins } from './loader.js';

const root = mkdtempSync(path.join(tmpdir(), 'capture-deferred-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Each import of a plugin's entry bumps a counter on globalThis, so a test sees whether it ran.
const imports = ((globalThis as Record<string, unknown>).__deferredImports ??= {}) as Record<string, number>;
function plugin(dir: string, name: string, declared: string[] | undefined, defined: string[] = declared ?? []) {
  const d = path.join(root, dir);
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, 'package.json'), JSON.stringify({ name, captureActions: { entry: 'index.js', ...(declared ? { actionTypes: declared } : {}) } }));
  const actions = defined.map((t) => `defineAction({ type: '${t}', title: '${t}', category: 'test', description: '', parameters: z.object({ n: z.number() }), execute: ({ log }) => log('ran ${t}') })`);
  writeFileSync(
    path.join(d, 'index.js'),
    `globalThis.__deferredImports['${name}'] = (globalThis.__deferredImports['${name}'] ?? 0) + 1;
export default ({ definePlugin, defineAction, z }) => definePlugin({ name: '${name}', actions: [${actions.join(',')}] });`,
  );
}

plugin('a', 'alpha', ['alpha_one', 'alpha_two']);
plugin('b', 'beta', ['beta_one']);
plugin('c', 'gamma-undeclared', undefined, ['gamma_one']);
plugin('d', 'delta-drifted', ['delta_one'], ['delta_one', 'delta_extra']);
plugin('e', 'epsilon-duplicate', ['beta_one']);

describe('deferred plugin loading', () => {
  it('imports only plugins without declared types at load; the rest on first use of one of their types', async () => {
    const { registry, plugins, failures } = await loadPlugins({ pluginsDir: root, logger: silentLogger, defer: true });
    expect(failures.map((f) => f.message)).toEqual([expect.stringMatching(/"beta_one" is already provided by beta/)]);
    expect(plugins.map((p) => p.name)).toEqual(['alpha', 'beta', 'gamma-undeclared', 'delta-drifted']);
    expect(imports).toEqual({ 'gamma-undeclared': 1 });
    expect(registry.has('alpha_one')).toBe(true);
    expect(registry.get('alpha_one')).toBeUndefined();
    expect(registry.deferred).toBe(true);

    await Promise.all([registry.ready(['alpha_two']), registry.ready(['alpha_one', 'unknown_type'])]);
    expect(imports).toEqual({ 'gamma-undeclared': 1, alpha: 1 });
    expect(registry.get('alpha_one')?.plugin).toBe('alpha');
    expect(registry.validate('alpha_two', { n: 1 })).toEqual({ n: 1 });
    expect(registry.get('beta_one')).toBeUndefined();

    // A plugin whose code defines other types than its manifest says is refused on import.
    await registry.ready();
    expect(imports).toEqual({ 'gamma-undeclared': 1, alpha: 1, beta: 1, 'delta-drifted': 1 });
    expect(registry.list().map((t) => t.type)).toEqual(['alpha_one', 'alpha_two', 'beta_one', 'gamma_one']);
    expect(failures.at(-1)?.message).toMatch(/delta-drifted: its manifest declares action types delta_one but the plugin defines delta_one, delta_extra/);
    expect(registry.has('delta_one')).toBe(false);
    expect(registry.deferred).toBe(false);
  });

  it('the built-in plugins defer: nothing is imported until asked, then the same catalogue', async () => {
    const eager = await loadPlugins({ logger: silentLogger });
    const lazy = await loadPlugins({ pluginsDir: BUILTIN_PLUGINS_DIR, logger: silentLogger, defer: true });
    expect(lazy.failures).toEqual([]);
    expect(lazy.registry.list()).toEqual([]);
    expect(
      lazy.plugins
        .map((p) => p.types)
        .flat()
        .sort(),
    ).toEqual(eager.registry.list().map((t) => t.type));
    await lazy.registry.ready(['auto_json']);
    expect(lazy.registry.list().map((t) => t.plugin)).toEqual(expect.arrayContaining(['@capture/plugin-text']));
    expect(new Set(lazy.registry.list().map((t) => t.plugin)).size).toBe(1);
    await lazy.registry.ready();
    expect(lazy.registry.list()).toEqual(eager.registry.list());
    expect(lazy.registry.providers().map((p) => p.definition.type)).toEqual(eager.registry.providers().map((p) => p.definition.type));
  });
});
