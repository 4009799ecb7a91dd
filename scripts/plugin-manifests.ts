// Writes what each built-in plugin's manifest (plugins/<name>/package.json) must declare and the
// code knows: its action and provider types (the loader lists them without importing the plugin),
// the npm packages its src/ imports (with the root's version range: the root package.json still
// installs them), and the peer dependency on @capture/sdk. `npx tsx scripts/plugin-manifests.ts`
// rewrites the manifests; scripts/plugin-manifests.test.ts fails when one has drifted.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { BUILTIN_PLUGINS_DIR, importPlugin, REPO_ROOT } from '../core/actions/loader.js';

const BUILTINS = new Set(builtinModules);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.[cm]?[jt]s$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The npm packages a plugin's src/ imports (the SDK and Node's built-ins aside), sorted. */
export function importedPackages(pluginDir: string): string[] {
  const names = new Set<string>();
  for (const file of sourceFiles(path.join(pluginDir, 'src'))) {
    for (const { fileName: spec } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (spec.startsWith('.') || spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]!)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      if (name !== '@capture/sdk') names.add(name);
    }
  }
  return [...names].sort();
}

type Manifest = Record<string, unknown> & { name: string; captureActions: Record<string, unknown> };

/** The manifest of the plugin in `pluginDir` as it should be: the written one with the derived fields set. */
export async function expectedManifest(pluginDir: string): Promise<Manifest> {
  const written = JSON.parse(readFileSync(path.join(pluginDir, 'package.json'), 'utf8')) as Manifest;
  const root = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const plugin = await importPlugin(pluginDir);
  const dependencies: Record<string, string> = {};
  for (const name of importedPackages(pluginDir)) {
    const range = root.dependencies[name];
    if (!range) throw new Error(`${written.name} imports ${name}, which the root package.json does not install (add it to "dependencies")`);
    dependencies[name] = range;
  }
  const { dependencies: _d, peerDependencies: _p, captureActions, ...rest } = written;
  const providerTypes = (plugin.providers ?? []).map((p) => p.type).sort();
  return {
    ...rest,
    captureActions: {
      entry: captureActions.entry,
      actionTypes: plugin.actions.map((a) => a.type).sort(),
      ...(providerTypes.length ? { providerTypes } : {}),
    },
    ...(Object.keys(dependencies).length ? { dependencies } : {}),
    peerDependencies: { '@capture/sdk': '*' },
  };
}

export function builtinPluginDirs(pluginsDir = BUILTIN_PLUGINS_DIR): string[] {
  return readdirSync(pluginsDir)
    .sort()
    .map((name) => path.join(pluginsDir, name))
    .filter((dir) => statSync(dir).isDirectory());
}

export const manifestText = (m: Manifest) => JSON.stringify(m, null, 2) + '\n';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const dir of builtinPluginDirs()) {
    const text = manifestText(await expectedManifest(dir));
    const file = path.join(dir, 'package.json');
    if (readFileSync(file, 'utf8') !== text) {
      writeFileSync(file, text);
      console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
    }
  }
}
