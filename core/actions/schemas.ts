// The JSON Schema files of schemas/actions/, one per action type of the built-in plugins and core.
import { builtinRegistry } from './builtin.js';
import { BUILTIN_PLUGINS_DIR } from './loader.js';

export async function actionSchemas(pluginsDir = BUILTIN_PLUGINS_DIR): Promise<Record<string, Record<string, unknown>>> {
  const registry = await builtinRegistry(pluginsDir);
  const out: Record<string, Record<string, unknown>> = {};
  for (const t of registry.list()) {
    const { $schema, ...rest } = t.schema;
    out[`${t.type}.json`] = { $schema, $id: `https://capture.local/schemas/actions/${t.type}.json`, ...rest };
  }
  return out;
}
