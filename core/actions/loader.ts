// Loads action plugins at start-up: every folder of plugins/ with a manifest, then the packages
// named in configuration (PLUGINS). Each plugin is imported on its own and gets a child container;
// one that fails is reported and skipped, never fatal to the others. With `defer`, a plugin whose
// manifest lists its types (captureActions.actionTypes) is not imported at all until
// `registry.ready(types)` asks for one of them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { container as rootContainer } from '@capture/sdk/container';
import type { DependencyContainer, Logger, PluginDefinition } from '@capture/sdk';
import * as sdk from '@capture/sdk';
import { consoleLogger } from '@capture/sdk/logger';
import { BUILD_ROOT, REPO_ROOT, RUNNING_FROM_SOURCE } from '../util/paths.js';
import { ActionRegistry } from './registry.js';

export interface PluginManifest {
  name: string;
  version?: string;
  captureActions: {
    entry: string;
    /** The action types the entry defines; lets the loader defer the import (checked on import). */
    actionTypes?: string[];
    /** The provider types it defines, when any. */
    providerTypes?: string[];
  };
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
  /**
   * Import a plugin whose manifest lists its action types only when `registry.ready()` asks for
   * them, rather than now. Plugins without the list are imported now either way.
   */
  defer?: boolean;
}

export interface LoadPluginsResult {
  registry: ActionRegistry;
  plugins: LoadedPlugin[];
  failures: PluginFailure[];
}

export { REPO_ROOT };
export const BUILTIN_PLUGINS_DIR = path.join(REPO_ROOT, 'plugins');

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export function readManifest(dir: string): PluginManifest {
  const file = path.join(dir, 'package.json');
  const json = JSON.parse(readFileSync(file, 'utf8')) as Partial<PluginManifest>;
  if (typeof json.name !== 'string' || !json.name) throw new Error(`${file} has no "name"`);
  if (typeof json.captureActions?.entry !== 'string') throw new Error(`${file} has no "captureActions.entry"`);
  for (const key of ['actionTypes', 'providerTypes'] as const) {
    const v = json.captureActions[key];
    if (v !== undefined && !isStringList(v)) throw new Error(`${file}: "captureActions.${key}" must be a list of type names`);
  }
  return json as PluginManifest;
}

/** Throws when the imported plugin's types differ from what its manifest declares. */
function assertDeclared(manifest: PluginManifest, plugin: PluginDefinition): void {
  const same = (declared: string[] | undefined, actual: string[]) => declared === undefined || [...declared].sort().join() === [...actual].sort().join();
  const actions = plugin.actions.map((a) => a.type);
  const providers = (plugin.providers ?? []).map((p) => p.type);
  if (!same(manifest.captureActions.actionTypes, actions)) {
    throw new Error(`${manifest.name}: its manifest declares action types ${manifest.captureActions.actionTypes!.join(', ')} but the plugin defines ${actions.join(', ')}`);
  }
  if (manifest.captureActions.actionTypes && !same(manifest.captureActions.providerTypes ?? [], providers)) {
    throw new Error(`${manifest.name}: its manifest declares provider types ${(manifest.captureActions.providerTypes ?? []).join(', ') || 'none'} but the plugin defines ${providers.join(', ') || 'none'}`);
  }
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

/** Imports the plugin in `dir` (its manifest's entry) and checks its shape. */
export async function importPlugin(dir: string, manifest = readManifest(dir)): Promise<PluginDefinition> {
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
  const logger = options.logger ?? consoleLogger('info');
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

  const failed = (source: string, e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    failures.push({ source, message });
    const named = (options.packages ?? []).includes(source) ? ' (named in PLUGINS: install it beside the service, or remove it from PLUGINS)' : '';
    logger.error(`Action plugin failed to load and was skipped${named}`, { plugin: source, err: e });
  };
  const add = async (folder: string, manifest: PluginManifest) => {
    const plugin = await importPlugin(folder, manifest);
    assertDeclared(manifest, plugin);
    const child = parent.createChildContainer();
    await plugin.register?.(child);
    registry.addAll(plugin.name, plugin.actions, child, plugin.providers ?? []);
    logger.debug('Loaded action plugin', { plugin: plugin.name, types: plugin.actions.map((a) => a.type) });
    return plugin;
  };

  for (const { source, dir } of sources) {
    try {
      const folder = dir();
      const manifest = readManifest(folder);
      const declared = manifest.captureActions.actionTypes;
      if (options.defer && declared) {
        // The plugin's name is the manifest's until imported; addAll then checks they agree.
        registry.defer(
          manifest.name,
          declared,
          manifest.captureActions.providerTypes ?? [],
          () => add(folder, manifest).then(() => undefined),
          (e) => failed(source, e),
        );
        plugins.push({ name: manifest.name, source, dir: folder, types: declared });
        continue;
      }
      const plugin = await add(folder, manifest);
      plugins.push({ name: plugin.name, source, dir: folder, types: plugin.actions.map((a) => a.type) });
    } catch (e) {
      failed(source, e);
    }
  }
  return { registry, plugins, failures };
}
