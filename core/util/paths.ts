// Where the repository is, computed once. From source (tsx, vitest) this file is core/util/paths.ts;
// compiled it is dist/core/util/paths.js, and tsc mirrors the repository under dist/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when running the TypeScript sources (tsx, vitest), false for the compiled server. */
export const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');
/** The root the running code is laid out under: the repository from source, its dist/ compiled. */
export const BUILD_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The repository (plugins/, workflows/, schemas/, docs/, dist/), whichever way the code runs. */
export const REPO_ROOT = RUNNING_FROM_SOURCE ? BUILD_ROOT : path.resolve(BUILD_ROOT, '..');
