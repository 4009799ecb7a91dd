// Import boundaries (one way to wire things). Every .ts file under core/, plugins/ and packages/sdk/ is
// scanned for its imports (static `import … from`, `export … from`, `import type`, dynamic
// `import('…')`) with TypeScript's own pre-processor, no build. The rules:
//
// Layers
//   1. Plugins use the SDK package only. Plugin code (plugins/<name>/**, outside its test/ folder and
//      *.test.ts files) imports `@capture/sdk` and its subpaths (the exports of
//      packages/sdk/package.json, `@capture/sdk/testing` excepted), its own files and npm packages: no
//      relative path out of its folder (so none into core/ or another plugin), no other `@capture/*`
//      package. Plugin tests may also import `@capture/sdk/testing` (runAction and in-memory
//      services), the host's own parts for end-to-end tests (test/helpers/host.ts: actions module,
//      registry, loader and runner, sandbox, outbound client, mail module, capture-time redaction),
//      start the real service (test/helpers/) and chain another built-in plugin's action (its src/).
//   2. Nothing below the HTTP layer imports core/http/**. Domain services own their schemas and
//      renderers (core/tokens/tokens.schema.ts, core/capture/request-view.ts, core/error-response.ts,
//      core/tokens/access.ts); core/http imports them, never the reverse. The composition root may
//      import core/http because it is where routers are mounted: core/main.ts, core/server.ts,
//      core/modules.ts, core/service-module.ts (the module contract: routers' type), and each feature's module file
//      (core/<feature>/module.ts), which wires its services to its routers.
//   3. The SDK stands alone. Files of packages/sdk/ import only their own files (and packages);
//      packages/sdk/src/testing.ts too (runAction runs the SDK's own chain runner); only the SDK's
//      own tests may reach into the host. Core imports the SDK as the package (`@capture/sdk`, its
//      subpaths), never by a relative path into packages/sdk/.
// A failure names the file and the import; fix it by moving the function to the layer it belongs to
// or by exporting it from the SDK (its root or a subpath), not by widening these rules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every specifier a TypeScript source imports or re-exports, dynamic imports included. */
function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tsFiles(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const COMPOSITION_ROOT = new Set(['core/main.ts', 'core/server.ts', 'core/modules.ts', 'core/service-module.ts']);
const isFeatureModule = (file: string) => /^core\/[^/]+\/module\.ts$/.test(file);
const isPluginTest = (file: string) => /^plugins\/[^/]+\/test\//.test(file) || file.endsWith('.test.ts');
/** `@capture/sdk` and its subpaths, as packages/sdk/package.json exports them. */
const SDK_ENTRIES = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'packages', 'sdk', 'package.json'), 'utf8')).exports as Record<string, unknown>)
  .filter((k) => k !== './package.json')
  .map((k) => (k === '.' ? '@capture/sdk' : `@capture/sdk/${k.slice(2)}`));
const PLUGIN_TESTS_MAY_IMPORT_SDK = new Set(SDK_ENTRIES);
const PLUGIN_CODE_MAY_IMPORT_SDK = new Set(SDK_ENTRIES.filter((e) => e !== '@capture/sdk/testing'));
/** The plugin folder a file belongs to (`plugins/<name>/`), or null. */
const pluginFolder = (file: string) => /^plugins\/[^/]+\//.exec(file)?.[0] ?? null;

/**
 * Why `file` may not import `target` (both relative to the repository root, `/`-separated), or null.
 * Only imports that resolve inside the repository are judged; packages are not.
 */
function violation(file: string, target: string): string | null {
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
  return null;
}

/** Why plugin file `file` may not import the package specifier `spec`, or null (npm packages are free). */
function packageViolation(file: string, spec: string): string | null {
  if (!pluginFolder(file) || !spec.startsWith('@capture/')) return null;
  const allowed = isPluginTest(file) ? PLUGIN_TESTS_MAY_IMPORT_SDK : PLUGIN_CODE_MAY_IMPORT_SDK;
  if (allowed.has(spec)) return null;
  return isPluginTest(file) ? 'plugin tests import @capture/sdk and its subpaths only' : 'plugin code import @capture/sdk only (its subpaths too, not @capture/sdk/testing)';
}

function scan(): { problems: string[]; files: number; relativeImports: number } {
  const problems: string[] = [];
  let files = 0;
  let relativeImports = 0;
  for (const abs of [...tsFiles(path.join(root, 'core')), ...tsFiles(path.join(root, 'plugins')), ...tsFiles(path.join(root, 'packages', 'sdk'))]) {
    const file = path.relative(root, abs).split(path.sep).join('/');
    files++;
    for (const spec of importsOf(fs.readFileSync(abs, 'utf8'))) {
      if (!spec.startsWith('.')) {
        const why = packageViolation(file, spec);
        if (why) problems.push(`${file} imports '${spec}': ${why}`);
        continue;
      }
      relativeImports++;
      const target = path.relative(root, path.resolve(path.dirname(abs), spec)).split(path.sep).join('/');
      const why = violation(file, target);
      if (why) problems.push(`${file} imports '${spec}' (${target}): ${why}`);
    }
  }
  return { problems, files, relativeImports };
}

describe('import boundaries', () => {
  it('the scanner sees static, type-only, re-exported and dynamic imports, and not ones in comments or strings', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import {\n  c,\n  d,\n} from './multi-line.js';",
      "export { e } from './e.js';",
      "export * from './star.js';",
      "import './side-effect.js';",
      "const f = await import('./dynamic.js');",
      "// import { g } from './commented.js';",
      "const s = \"import { h } from './in-a-string.js'\";",
    ].join('\n');
    expect(importsOf(source)).toEqual(['./a.js', '../b.js', './multi-line.js', './e.js', './star.js', './side-effect.js', './dynamic.js']);
  });

  it('the rules refuse what they should and let the rest through', () => {
    expect(violation('plugins/http/src/send.ts', 'plugins/http/src/retry.js')).toBeNull();
    expect(violation('plugins/http/test/send.test.ts', 'plugins/http/src/send.js')).toBeNull();
    expect(violation('plugins/http/src/send.ts', 'packages/sdk/src/index.js')).toMatch(/only through @capture\/sdk/);
    expect(violation('plugins/http/src/send.ts', 'core/actions/runner.js')).not.toBeNull();
    expect(violation('plugins/http/test/send.test.ts', 'packages/sdk/src/testing.js')).not.toBeNull();
    expect(violation('plugins/http/src/send.ts', 'plugins/text/src/index.js')).not.toBeNull();
    expect(violation('plugins/multimedia/test/pdf.test.ts', 'plugins/behaviour/src/modify-response.js')).toBeNull();
    expect(violation('plugins/http/test/http.e2e.test.ts', 'test/helpers/server.js')).toBeNull();
    expect(violation('plugins/http/src/send.ts', 'test/helpers/server.js')).not.toBeNull();
    expect(violation('plugins/http/test/http.e2e.test.ts', 'core/server.js')).not.toBeNull();
    expect(packageViolation('plugins/http/src/send.ts', '@capture/sdk')).toBeNull();
    expect(packageViolation('plugins/http/src/send.ts', '@capture/sdk/oauth')).toBeNull();
    expect(packageViolation('plugins/http/src/send.ts', '@capture/sdk/not-exported')).not.toBeNull();
    expect(packageViolation('plugins/http/src/send.ts', 'zod')).toBeNull();
    expect(packageViolation('plugins/http/src/send.ts', '@capture/sdk/testing')).toMatch(/plugin code import @capture\/sdk only/);
    expect(packageViolation('plugins/http/src/send.ts', '@capture/sdk/testing-host')).not.toBeNull();
    expect(packageViolation('plugins/http/src/send.ts', '@capture/client')).not.toBeNull();
    expect(packageViolation('plugins/http/test/send.test.ts', '@capture/sdk/testing')).toBeNull();
    expect(packageViolation('plugins/http/test/helpers.ts', '@capture/sdk/testing-host')).not.toBeNull();
    expect(violation('plugins/http/test/helpers.ts', 'test/helpers/host.js')).toBeNull();
    expect(violation('core/capture/http-capture.ts', 'core/http/middleware/errors.js')).toMatch(/composition root/);
    expect(violation('core/capture/query.test.ts', 'core/http/requests/requests.schema.js')).not.toBeNull();
    expect(violation('core/http/app.ts', 'core/http/services.js')).toBeNull();
    expect(violation('core/server.ts', 'core/http/app.js')).toBeNull();
    expect(violation('core/actions/module.ts', 'core/http/actions/actions.router.js')).toBeNull();
    expect(violation('core/web/module.ts', 'core/http/services.js')).toBeNull();
    expect(violation('core/actions/module-helpers.ts', 'core/http/services.js')).not.toBeNull();
    expect(violation('packages/sdk/src/headers.ts', 'core/util/time.js')).toMatch(/the SDK imports only its own files/);
    expect(violation('packages/sdk/src/testing.ts', 'core/actions/registry.js')).not.toBeNull();
    expect(violation('packages/sdk/src/bytes.test.ts', 'core/actions/registry.js')).toBeNull();
    expect(violation('packages/sdk/src/headers.ts', 'packages/sdk/src/bytes.js')).toBeNull();
    expect(violation('core/actions/runner.ts', 'packages/sdk/src/bytes.js')).toMatch(/imported as @capture\/sdk/);
  });

  it('no file in core/ or plugins/ crosses a layer boundary', () => {
    const { problems, files, relativeImports } = scan();
    expect(files).toBeGreaterThan(300); // core/ and plugins/ were found and read
    expect(relativeImports).toBeGreaterThan(1000);
    expect(problems).toEqual([]);
  });
});
