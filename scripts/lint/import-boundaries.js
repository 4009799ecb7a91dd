// ESLint rule `capture/import-boundaries`: who may import whom (docs/architecture.md, "Who may
// import whom"). Every import a file makes (static `import … from`, `import type`, `export … from`,
// dynamic `import('…')` and type-level `import('…')`) is judged; relative specifiers are resolved to
// repository paths, package specifiers are judged only for `@capture/*`. The rules:
//
// Layers
//   1. Plugins use the SDK package only. Plugin code (plugins/<name>/**, outside its test/ folder and
//      *.test.ts files) imports `@capture/sdk` and its subpaths (the exports of
//      packages/sdk/package.json, `@capture/sdk/testing` excepted), its own files and npm packages: no
//      relative path out of its folder (so none into core/ or another plugin), no other `@capture/*`
//      package. Plugin tests may also import `@capture/sdk/testing` (runAction and in-memory
//      services), start the real service and the host's parts (test/helpers/) and chain another
//      built-in plugin's action (its src/).
//   2. Nothing below the HTTP layer imports core/http/**. Domain services own their schemas and
//      renderers; core/http imports them, never the reverse. The composition root may import
//      core/http because it is where routers are mounted: core/main.ts, core/server.ts,
//      core/modules.ts, core/service-module.ts, and each feature's module file (core/<feature>/module.ts).
//   3. The SDK stands alone. Files of packages/sdk/ import only their own files (and packages); only
//      the SDK's own tests may reach into the host. Everything else imports the SDK as the package
//      (`@capture/sdk`, its subpaths), never by a relative path into packages/sdk/.
// The SQLite request engine
//   4. core/store/sqlite/requests/ is entered only through its index.ts, so its writer, readers and
//      search planner can change without touching the rest; scripts/measure-catchup.ts and
//      scripts/measure-write-cost.ts, which time the engine's parts one by one, are the exceptions.
// The process
//   5. Nothing imports core/main.ts: it is the process (reads the environment, handles signals);
//      tests and the benchmark start the service through core/server.ts.
// A report names the import and the rule; fix it by moving the function to the layer it belongs to
// or by exporting it from the SDK (its root or a subpath), not by widening these rules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file lives in scripts/lint/. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const COMPOSITION_ROOT = new Set(['core/main.ts', 'core/server.ts', 'core/modules.ts', 'core/service-module.ts']);
const isFeatureModule = (file) => /^core\/[^/]+\/module\.ts$/.test(file);
const isPluginTest = (file) => /^plugins\/[^/]+\/test\//.test(file) || file.endsWith('.test.ts');
/** `@capture/sdk` and its subpaths, as packages/sdk/package.json exports them. */
const SDK_ENTRIES = Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'packages', 'sdk', 'package.json'), 'utf8')).exports)
  .filter((k) => k !== './package.json')
  .map((k) => (k === '.' ? '@capture/sdk' : `@capture/sdk/${k.slice(2)}`));
const PLUGIN_TESTS_MAY_IMPORT_SDK = new Set(SDK_ENTRIES);
const PLUGIN_CODE_MAY_IMPORT_SDK = new Set(SDK_ENTRIES.filter((e) => e !== '@capture/sdk/testing'));
/** The plugin folder a file belongs to (`plugins/<name>/`), or null. */
const pluginFolder = (file) => /^plugins\/[^/]+\//.exec(file)?.[0] ?? null;

const ENGINE = 'core/store/sqlite/requests/';
const ENGINE_ENTRY = `${ENGINE}index`;
/** Measurement scripts that time the engine's parts one by one (docs/storage.md). */
const ENGINE_ALLOWED = new Set(['scripts/measure-catchup.ts', 'scripts/measure-write-cost.ts']);

/**
 * Why `file` may not import `target` (both relative to the repository root, `/`-separated), or null.
 * @param {string} file
 * @param {string} target
 * @returns {string | null}
 */
export function violation(file, target) {
  const own = pluginFolder(file);
  if (own && !target.startsWith(own)) {
    // A test may also start the real service (test/helpers/) and chain another built-in plugin's action.
    const testMay = isPluginTest(file) && (target.startsWith('test/helpers/') || (target.startsWith('plugins/') && !target.startsWith('plugins/' + target.split('/')[1] + '/test/')));
    if (!testMay) return 'a plugin imports its own files by relative path, and the host only through @capture/sdk';
  }
  if (file.startsWith('core/') && !file.startsWith('core/http/') && target.startsWith('core/http/')) {
    if (!COMPOSITION_ROOT.has(file) && !isFeatureModule(file)) return 'only core/http and the composition root import core/http';
  }
  if (file.startsWith('packages/sdk/') && !target.startsWith('packages/sdk/')) {
    if (!file.endsWith('.test.ts')) return 'the SDK imports only its own files';
  }
  if (!file.startsWith('packages/sdk/') && target.startsWith('packages/sdk/')) return 'the SDK is imported as @capture/sdk, not by relative path';
  if (!file.startsWith(ENGINE) && target.startsWith(ENGINE) && target.replace(/\.[cm]?[jt]sx?$/, '') !== ENGINE_ENTRY && !ENGINE_ALLOWED.has(file)) {
    return 'the SQLite request engine is used through core/store/sqlite/requests/index.ts only';
  }
  if (target.replace(/\.[cm]?[jt]sx?$/, '') === 'core/main') return 'nothing imports core/main.ts (the process); start the service with core/server.ts';
  return null;
}

/**
 * Why plugin file `file` may not import the package specifier `spec`, or null (npm packages are free).
 * @param {string} file
 * @param {string} spec
 * @returns {string | null}
 */
export function packageViolation(file, spec) {
  if (!pluginFolder(file) || !spec.startsWith('@capture/')) return null;
  const allowed = isPluginTest(file) ? PLUGIN_TESTS_MAY_IMPORT_SDK : PLUGIN_CODE_MAY_IMPORT_SDK;
  if (allowed.has(spec)) return null;
  return isPluginTest(file) ? 'plugin tests import @capture/sdk and its subpaths only' : 'plugin code imports @capture/sdk only (its subpaths too, not @capture/sdk/testing)';
}

/** @type {import('eslint').Rule.RuleModule} */
export const importBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Layer boundaries between plugins, the SDK, core/http and the SQLite request engine (docs/architecture.md)' },
    schema: [],
    messages: { crosses: "'{{spec}}'{{target}}: {{why}}" },
  },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    if (file.startsWith('..')) return {};
    /** @param {import('estree').Node | null | undefined} source */
    function check(source) {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (!spec.startsWith('.')) {
        const why = packageViolation(file, spec);
        if (why) context.report({ node: source, messageId: 'crosses', data: { spec, target: '', why } });
        return;
      }
      const target = path
        .relative(ROOT, path.resolve(path.dirname(context.filename), spec))
        .split(path.sep)
        .join('/');
      const why = violation(file, target);
      if (why) context.report({ node: source, messageId: 'crosses', data: { spec, target: ` (${target})`, why } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // `import('…').Type` in a type position (typescript-eslint's TSImportType node).
      TSImportType: (node) => check('source' in node ? node.source : node.argument?.type === 'TSLiteralType' ? node.argument.literal : null),
    };
  },
};

export default { meta: { name: 'capture' }, rules: { 'import-boundaries': importBoundaries } };
