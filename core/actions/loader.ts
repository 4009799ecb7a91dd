// Loads action plugins at start-up: every folder of plugins/ with a manifest, then the packages
// named in configuration (PLUGINS). Each plugin is imported on its own and gets a child container;
// one that fails is reported and skipped, never fatal to the others.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { container as rootContainer, type DependencyContainer } from '../sdk/container.js';
import * as sdk from '../sdk/index.js';
import type { Logger, PluginDefinition } from '../sdk/index.js';
import { BUILD_ROOT, REPO_ROOT, RUNNING_FROM_SOURCE } from '../util/paths.js';
import { ActionRegistry } from './registry.js';

export interface PluginManifest {
  name: string;
  version?: string;
  captureActions: { entry: string };
}

export interface LoadedPlugin {
  name: string;
  source: string;
  dir: string;
  types: string[];
}

export interface PluginFailure {
  /** The folder or package as configured. */
  source: string;
  message: string;
}

export interface LoadPluginsOptions {
  /** Folder of built-in plugins; default `<repo>/plugins`. `null` loads none. */
  pluginsDir?: string | null;
  /** Configured plugins: npm package names, or paths (absolute or starting with `.`). */
  packages?: string[];
  /** Where package names and relative paths resolve from; default the repository root. */
  resolveFrom?: string;
  /** Parent of every plugin's child container; core registers its services here. */
  container?: DependencyContainer;
  registry?: ActionRegistry;
  logger?: Logger;
}

export interface LoadPluginsResult {
  registry: ActionRegistry;
  plugins: LoadedPlugin[];
  failures: PluginFailure[];
}

export { REPO_ROOT };
export const BUILTIN_PLUGINS_DIR = path.join(REPO_ROOT, 'plugins');

function readManifest(dir: string): PluginManifest {
  const file = path.join(dir, 'package.json');
  const json = JSON.parse(readFileSync(file, 'utf8')) as Partial<PluginManifest>;
  if (typeof json.name !== 'string' || !json.name) throw new Error(`${file} has no "name"`);
  if (typeof json.captureActions?.entry !== 'string') throw new Error(`${file} has no "captureActions.entry"`);
  return json as PluginManifest;
}

/**
 * The module to import for a manifest entry. A TypeScript entry is imported as is when running
 * from source, and as its compiled twin under dist/ otherwise (tsc mirrors the repository there).
 */
export function entryModule(dir: string, entry: string): string {
  const file = path.resolve(dir, entry);
  if (!/\.[cm]?ts$/.test(entry) || RUNNING_FROM_SOURCE) return file;
  const rel = path.relative(REPO_ROOT, file);
  if (rel.startsWith('..')) throw new Error(`${entry}: a TypeScript entry outside the repository cannot be loaded by the compiled server; publish JavaScript`);
  const compiled = path.join(BUILD_ROOT, rel).replace(/\.([cm]?)ts$/, '.$1js');
  if (!existsSync(compiled)) throw new Error(`${compiled} does not exist; run the build`);
  return compiled;
}

/** The folder of a configured plugin: a path, or an installed package found by the usual lookup. */
function pluginDir(spec: string, resolveFrom: string): string {
  if (path.isAbsolute(spec) || spec.startsWith('.')) return path.resolve(resolveFrom, spec);
  const require = createRequire(path.join(resolveFrom, 'noop.js'));
  // Looked up by hand rather than require.resolve(`${spec}/package.json`), which a package's
  // "exports" map may forbid.
  for (const base of require.resolve.paths(spec) ?? []) {
    const dir = path.join(base, spec);
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error(`package ${spec} is not installed`);
}

function assertPlugin(value: unknown, source: string): asserts value is PluginDefinition {
  const p = value as Partial<PluginDefinition> | null;
  if (!p || typeof p !== 'object') throw new Error(`${source} does not export a plugin (use definePlugin as the default export)`);
  if (typeof p.name !== 'string' || !p.name) throw new Error(`${source}: the plugin has no name`);
  if (!Array.isArray(p.actions)) throw new Error(`${source}: the plugin has no actions array`);
  for (const a of p.actions) {
    if (!a || typeof a.type !== 'string' || typeof a.execute !== 'function' || typeof a.parameters?.safeParse !== 'function') {
      throw new Error(`${source}: every action needs a type, a zod parameters schema and execute()`);
    }
  }
  for (const pr of p.providers ?? []) {
    if (!pr || typeof pr.type !== 'string' || typeof pr.credentials?.safeParse !== 'function') {
      throw new Error(`${source}: every provider type needs a type and a zod credentials schema`);
    }
  }
}

async function importPlugin(dir: string): Promise<PluginDefinition> {
  const manifest = readManifest(dir);
  const mod = (await import(pathToFileURL(entryModule(dir, manifest.captureActions.entry)).href)) as Record<string, unknown>;
  let exported = mod.default ?? mod.plugin;
  // A plain-JavaScript plugin may export a factory and receive the SDK, so it needs no build step
  // and no dependency on a copy of zod of its own.
  if (typeof exported === 'function') exported = await (exported as (s: typeof sdk) => unknown)(sdk);
  assertPlugin(exported, manifest.name);
  return exported;
}

/** Loads the built-in plugins and the configured ones into a registry. */
export async function loadPlugins(options: LoadPluginsOptions = {}): Promise<LoadPluginsResult> {
  const registry = options.registry ?? new ActionRegistry();
  const parent = options.container ?? rootContainer;
  const logger = options.logger ?? sdk.consoleLogger('info');
  const resolveFrom = options.resolveFrom ?? REPO_ROOT;
  const pluginsDir = options.pluginsDir === undefined ? BUILTIN_PLUGINS_DIR : options.pluginsDir;
  const plugins: LoadedPlugin[] = [];
  const failures: PluginFailure[] = [];

  const sources: Array<{ source: string; dir: () => string }> = [];
  if (pluginsDir && existsSync(pluginsDir)) {
    for (const name of readdirSync(pluginsDir).sort()) {
      const dir = path.join(pluginsDir, name);
      if (statSync(dir).isDirectory() && existsSync(path.join(dir, 'package.json'))) sources.push({ source: dir, dir: () => dir });
    }
  }
  for (const spec of options.packages ?? []) sources.push({ source: spec, dir: () => pluginDir(spec, resolveFrom) });

  for (const { source, dir } of sources) {
    try {
      const folder = dir();
      const plugin = await importPlugin(folder);
      const child = parent.createChildContainer();
      await plugin.register?.(child);
      registry.addAll(plugin.name, plugin.actions, child, plugin.providers ?? []);
      plugins.push({ name: plugin.name, source, dir: folder, types: plugin.actions.map((a) => a.type) });
      logger.debug('Loaded action plugin', { plugin: plugin.name, types: plugin.actions.map((a) => a.type) });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      failures.push({ source, message });
      const named = (options.packages ?? []).includes(source) ? ' (named in PLUGINS: install it beside the service, or remove it from PLUGINS)' : '';
      logger.error(`Action plugin failed to load and was skipped${named}`, { plugin: source, err: e });
    }
  }
  return { registry, plugins, failures };
}
