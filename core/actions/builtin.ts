// The action types every server has before third-party plugins: the built-in plugins' and core's
// own. docs/actions.md and schemas/actions/ are generated from this registry.
import { silentLogger } from '../logger.js';
import { BUILTIN_PLUGINS_DIR, loadPlugins } from './loader.js';
import type { ActionRegistry } from './registry.js';
import { templateAction, templateIncludeAction } from './template-action.js';

/** Core's own action types: including templates needs the store, which plugins do not get. */
export const CORE_ACTIONS = [templateAction, templateIncludeAction];

/** The registry of the built-in plugins and core's actions; throws when a plugin fails to load. */
export async function builtinRegistry(pluginsDir = BUILTIN_PLUGINS_DIR): Promise<ActionRegistry> {
  const { registry, failures } = await loadPlugins({ pluginsDir, logger: silentLogger });
  if (failures.length) throw new Error(`Plugins failed to load: ${failures.map((f) => `${f.source}: ${f.message}`).join('; ')}`);
  registry.addAll('core', CORE_ACTIONS);
  return registry;
}
