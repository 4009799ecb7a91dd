// Starting a worker thread on one of this folder's modules, compiled or not.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const nodeRequire = createRequire(import.meta.url);

/**
 * A thread running `./<name>.js` next to this file (compiled, dist/), or `./<name>.ts` through
 * tsx's loader when running from the TypeScript sources (vitest, tsx).
 */
export function startThread(name: string, workerData: unknown): Worker {
  if (import.meta.url.endsWith('.ts')) {
    const api = pathToFileURL(nodeRequire.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL(`./${name}.ts`, import.meta.url).href;
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, workerData });
  }
  return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData });
}
