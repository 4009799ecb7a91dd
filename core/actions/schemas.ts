// The JSON Schema files of schemas/actions/, one per action type of the built-in plugins.
import { silentLogger } from '../sdk/testing.js';
import { BUILTIN_PLUGINS_DIR, loadPlugins } from './loader.js';

export async function actionSchemas(pluginsDir = BUILTIN_PLUGINS_DIR): Promise<Record<string, Record<string, unknown>>> {
  const { registry, failures } = await loadPlugins({ pluginsDir, logger: silentLogger });
  if (failures.length) throw new Error(`Plugins failed to load: ${failures.map((f) => `${f.source}: ${f.message}`).join('; ')}`);
  const out: Record<string, Record<string, unknown>> = {};
  for (const t of registry.list()) {
    const { $schema, ...rest } = t.schema;
    out[`${t.type}.json`] = { $schema, $id: `https://capture.local/schemas/actions/${t.type}.json`, ...rest };
  }
  return out;
}
