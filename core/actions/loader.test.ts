import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { container } from '@capture/sdk/container';
import { silentLogger } from '@capture/sdk/testing';
import { BUILTIN_PLUGINS_DIR, loadPlugins } from './loader.js';

const root = mkdtempSync(path.join(tmpdir(), 'capture-plugins-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function plugin(dir: string, manifest: Record<string, unknown> | null, code?: string) {
  const d = path.join(root, dir);
  mkdirSync(d, { recursive: true });
  if (manifest) writeFileSync(path.join(d, 'package.json'), JSON.stringify(manifest));
  if (code) writeFileSync(path.join(d, 'index.js'), code);
  return d;
}

const factory = (name: string, type: string) => `
export default ({ definePlugin, defineAction, z }) => definePlugin({
  name: '${name}',
  register(container) { container.register('greeting', { useValue: 'hi from ${name}' }); },
  actions: [defineAction({
    type: '${type}', title: '${type}', category: 'test', description: '',
    parameters: z.object({}),
    execute: ({ log, container }) => log(container.resolve('greeting')),
  })],
});`;

plugin('a-good', { name: 'good', captureActions: { entry: 'index.js' } }, factory('good', 'good_action'));
plugin('b-throws', { name: 'throws', captureActions: { entry: 'index.js' } }, `throw new Error('broken at import');`);
plugin('c-duplicate', { name: 'dup', captureActions: { entry: 'index.js' } }, factory('dup', 'good_action'));
plugin('d-no-entry', { name: 'no-entry' });
plugin('e-not-a-plugin', { name: 'nap', captureActions: { entry: 'index.js' } }, `export default 42;`);
plugin('f-other', { name: 'other', captureActions: { entry: 'index.js' } }, factory('other', 'other_action'));
mkdirSync(path.join(root, 'g-no-manifest'));

describe('loadPlugins', () => {
  it('loads every plugin folder, reports and skips the broken ones', async () => {
    const { registry, plugins, failures } = await loadPlugins({ pluginsDir: root, logger: silentLogger });
    expect(plugins.map((p) => p.name)).toEqual(['good', 'other']);
    expect(registry.list().map((t) => t.type)).toEqual(['good_action', 'other_action']);
    expect(failures.map((f) => path.basename(f.source))).toEqual(['b-throws', 'c-duplicate', 'd-no-entry', 'e-not-a-plugin']);
    expect(failures[0].message).toMatch(/broken at import/);
    expect(failures[1].message).toMatch(/already provided by good/);
    expect(failures[2].message).toMatch(/captureActions\.entry/);
    expect(failures[3].message).toMatch(/does not export a plugin/);
  });

  it('logs each failure once, as an error naming the plugin and the error', async () => {
    const lines: Array<Record<string, unknown>> = [];
    await loadPlugins({ pluginsDir: root, logger: createLogger('debug', {}, (l) => lines.push(JSON.parse(l))) });
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => path.basename(String(l.plugin)))).toEqual(['b-throws', 'c-duplicate', 'd-no-entry', 'e-not-a-plugin']);
    expect(errors[0]).toMatchObject({ msg: 'Action plugin failed to load and was skipped', err: { message: 'broken at import' } });
  });

  it('gives each plugin its own child container', async () => {
    const { registry } = await loadPlugins({ pluginsDir: root, logger: silentLogger });
    const good = registry.get('good_action')!;
    const other = registry.get('other_action')!;
    expect(good.container.resolve('greeting')).toBe('hi from good');
    expect(other.container.resolve('greeting')).toBe('hi from other');
    expect(container.isRegistered('greeting')).toBe(false);
  });

  it('loads configured plugins by path and by package name', async () => {
    const nm = path.join(root, 'app', 'node_modules', '@acme', 'plugin-x');
    mkdirSync(nm, { recursive: true });
    writeFileSync(path.join(nm, 'package.json'), JSON.stringify({ name: '@acme/plugin-x', exports: { '.': './index.js' }, captureActions: { entry: 'index.js' } }));
    writeFileSync(path.join(nm, 'index.js'), factory('@acme/plugin-x', 'acme_action'));
    const { registry, failures } = await loadPlugins({
      pluginsDir: null,
      packages: ['@acme/plugin-x', '../f-other', '@acme/missing'],
      resolveFrom: path.join(root, 'app'),
      logger: silentLogger,
    });
    expect(registry.list().map((t) => t.type)).toEqual(['acme_action', 'other_action']);
    expect(failures).toEqual([{ source: '@acme/missing', message: 'package @acme/missing is not installed' }]);
  });

  it('loads the built-in plugins without failures', async () => {
    const { registry, failures } = await loadPlugins({ pluginsDir: BUILTIN_PLUGINS_DIR, logger: silentLogger });
    // Only this runtime's own plugin families; other folders have their own tests.
    const ours = failures.filter((f) => ['text', 'logic', 'behaviour'].includes(path.basename(f.source)));
    expect(ours).toEqual([]);
    for (const type of ['auto_json', 'extract_jsonpath', 'validate_json', 'extract_regex', 'extract_xpath', 'text_replace', 'text_split', 'text_map', 'text_encrypt', 'text_decrypt']) {
      expect(registry.has(type), type).toBe(true);
    }
  });
});
