// The import-boundary lint rule (scripts/lint/import-boundaries.js, run over the code by `npm run
// lint`): it sees every kind of import, and its rules refuse what they should and let the rest through.
import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { importBoundaries, packageViolation, ROOT, violation } from '../scripts/lint/import-boundaries.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' } });
const at = (file: string) => path.join(ROOT, file);

describe('import boundaries', () => {
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
    expect(packageViolation('plugins/http/src/send.ts', '@capture/sdk/testing')).toMatch(/plugin code imports @capture\/sdk only/);
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

  it('the SQLite request engine is entered only through its index.ts', () => {
    expect(violation('core/store/sqlite/index.ts', 'core/store/sqlite/requests/index.js')).toBeNull();
    expect(violation('core/store/sqlite/index.ts', 'core/store/sqlite/requests/writer/batch-writer.js')).toMatch(/through core\/store\/sqlite\/requests\/index\.ts only/);
    expect(violation('test/paging.test.ts', 'core/store/sqlite/requests/readers/chunks.js')).not.toBeNull();
    expect(violation('core/store/sqlite/requests/readers/chunks.ts', 'core/store/sqlite/requests/columns.js')).toBeNull();
    expect(violation('scripts/measure-catchup.ts', 'core/store/sqlite/requests/columns.js')).toBeNull();
  });

  it('nothing imports the process, core/main.ts', () => {
    expect(violation('test/startup.test.ts', 'core/main.js')).toMatch(/core\/server\.ts/);
    expect(violation('core/modules.ts', 'core/main.js')).not.toBeNull();
    expect(violation('cli/commands/serve.ts', 'cli/main.js')).toBeNull();
  });
});

// The rule as ESLint runs it: every import form is seen (and none in comments or strings), relative
// specifiers are resolved against the file's own folder.
tester.run('capture/import-boundaries', importBoundaries, {
  valid: [
    { filename: at('plugins/http/src/send.ts'), code: "import { a } from './retry.js';\nimport { z } from '@capture/sdk';\nimport { oauth } from '@capture/sdk/oauth';\nimport { z as zod } from 'zod';" },
    { filename: at('plugins/http/src/send.ts'), code: "// import { g } from '../../../core/actions/runner.js';\nconst s = \"import { h } from '../../../core/server.js'\";" },
    {
      filename: at('plugins/http/test/send.test.ts'),
      code: "import { runAction } from '@capture/sdk/testing';\nimport { startTestServer } from '../../../test/helpers/server.js';\nimport { x } from '../../text/src/index.js';",
    },
    { filename: at('core/server.ts'), code: "import { app } from './http/app.js';" },
    { filename: at('core/store/sqlite/index.ts'), code: "export { createRequestEngine } from './requests/index.js';" },
    { filename: at('scripts/measure-catchup.ts'), code: "import { toRow } from '../core/store/sqlite/requests/columns.js';" },
  ],
  invalid: [
    { filename: at('plugins/http/src/send.ts'), code: "import { a } from '../../../core/actions/runner.js';", errors: [{ messageId: 'crosses' }] },
    { filename: at('plugins/http/src/send.ts'), code: "import type { B } from '../../text/src/index.js';", errors: [{ messageId: 'crosses' }] },
    { filename: at('plugins/http/src/send.ts'), code: "import {\n  c,\n  d,\n} from '@capture/sdk/testing';", errors: [{ messageId: 'crosses' }] },
    { filename: at('plugins/http/src/send.ts'), code: "export { e } from '../../../core/errors.js';\nexport * from '@capture/client';", errors: [{ messageId: 'crosses' }, { messageId: 'crosses' }] },
    { filename: at('plugins/http/src/send.ts'), code: "const f = await import('../../../core/config.js');", errors: [{ messageId: 'crosses' }] },
    { filename: at('plugins/http/src/send.ts'), code: "let g: import('../../../core/config.js').Config;", errors: [{ messageId: 'crosses' }] },
    { filename: at('plugins/http/src/send.ts'), code: "import '../../../core/side-effect.js';", errors: [{ messageId: 'crosses' }] },
    { filename: at('core/capture/http-capture.ts'), code: "import { errors } from '../http/middleware/errors.js';", errors: [{ messageId: 'crosses' }] },
    { filename: at('packages/sdk/src/headers.ts'), code: "import { now } from '../../../core/util/time.js';", errors: [{ messageId: 'crosses' }] },
    { filename: at('core/actions/runner.ts'), code: "import { bytes } from '../../packages/sdk/src/bytes.js';", errors: [{ messageId: 'crosses' }] },
    { filename: at('core/store/sqlite/index.ts'), code: "import { createBatchWriter } from './requests/writer/batch-writer.js';", errors: [{ messageId: 'crosses' }] },
  ],
});
