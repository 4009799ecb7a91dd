// Starting a worker thread on one of the request engine's modules, compiled or not; lowering its priority.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

const nodeRequire = createRequire(import.meta.url);

/**
 * A thread running `./<name>.js` (a path below this folder, e.g. 'writer/writer-worker') from this file (compiled, dist/), or `./<name>.ts` through
 * tsx's loader when running from the TypeScript sources (vitest, tsx).
 */
export function startThread(name: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (import.meta.url.endsWith('.ts')) {
    const api = pathToFileURL(nodeRequire.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL(`./${name}.ts`, import.meta.url).href;
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, workerData, resourceLimits });
  }
  return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData, resourceLimits });
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
    const tid = threadId();
    os.setPriority(tid, value);
    return os.getPriority(tid);
  } catch {
    return null; // not Linux, or not allowed: the thread runs as the event loop does
  }
}

/** The niceness at which a thread also takes the idle scheduling class (idleClass). */
export const IDLE_NICE = 19;

/**
 * Puts the calling thread in Linux's idle scheduling class (SCHED_IDLE), through util-linux's chrt:
 * Node has no sched_setscheduler. Niced alone, a reader thread that the woken event loop found on
 * its core could keep the core for the rest of its time slice (the kernel's EEVDF scheduler lets a
 * running task reach its deadline); a task of the idle class is preempted at once by any other.
 * Returns whether the thread is in it now (false: not Linux, or no chrt).
 */
export function idleClass(): boolean {
  try {
    const tid = threadId();
    execFileSync('chrt', ['--idle', '-p', '0', String(tid)], { stdio: 'ignore', timeout: 5_000 });
    return schedPolicy(tid) === SCHED_IDLE;
  } catch {
    return false;
  }
}

/** Linux's number for the idle scheduling class. */
export const SCHED_IDLE = 5;

/** A thread's scheduling class (field 41 of /proc/self/task/<tid>/stat). */
export function schedPolicy(tid: number): number {
  const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
}

/** The calling thread's id (Linux). */
const threadId = (): number => Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
