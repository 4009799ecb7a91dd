// Starting a worker thread on one of this folder's modules, compiled or not; lowering its priority.
import fs from 'node:fs';
import os from 'node:os';
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

/**
 * Lowers the calling thread's scheduling priority (Linux: setpriority on a thread id is per thread).
 * On a busy machine a woken writer or reader otherwise preempts the event loop on its core and
 * holds it for a whole commit or search, while the requests it answers wait; niced, it runs on the
 * spare core instead. It cannot starve: when it falls behind, the work it holds up leaves the event
 * loop idle. Returns the niceness now, null when it could not be set.
 */
export function nice(value: number): number | null {
  if (value <= 0) return null;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    os.setPriority(tid, value);
    return os.getPriority(tid);
  } catch {
    return null; // not Linux, or not allowed: the thread runs as the event loop does
  }
}
