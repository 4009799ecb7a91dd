// Vitest setup (every test file): installs the host's ActionRunner for @capture/sdk/testing's
// runAction, imported only when a test first runs an action. Importing core/sdk/runner.ts is cheap
// (types and two functions); it is the same module plugin tests reach as @capture/sdk/testing.
import { useActionRunner } from '@capture/sdk/runner';

useActionRunner(() => import('../../core/actions/test-runner.js').then((m) => m.hostActionRunner));
