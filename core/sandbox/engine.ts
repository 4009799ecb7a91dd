// Runs one script in a fresh QuickJS runtime + context of a warm WASM module. Used inside a sandbox
// worker thread (worker.ts); it has no knowledge of threads: async host calls go through `bridge`.

import { createHash, createHmac, randomBytes, randomUUID, type BinaryToTextEncoding } from 'node:crypto';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { ScriptOutput } from '@capture/sdk/output';
import { librarySource, lodashBatch, lodashFullSource } from './modules.js';
import { PRELUDE_PARTS, PRELUDE_SOURCE, wrapScript } from './prelude.js';
import type { WorkerJob } from './protocol.js';
import type { HostMethod, SandboxResponse, SandboxResult } from './types.js';

export interface EngineBridge {
  call(method: HostMethod, args: unknown[]): Promise<unknown>;
}

export interface EngineOutcome {
  result: SandboxResult;
  /** Set when the WASM module itself failed; the worker must not be reused. */
  fatal?: string;
}

const HOST_METHODS: ReadonlySet<string> = new Set<HostMethod>(['fetch', 'globalGet', 'globalSet', 'storeGet', 'storeSet', 'db', 'nats']);
const BYTE_ENCODINGS: ReadonlySet<string> = new Set(['hex', 'base64', 'base64url', 'latin1', 'binary', 'utf8', 'utf-8']);

function encodingOf(value: unknown, fallback: BufferEncoding): BufferEncoding {
  return typeof value === 'string' && BYTE_ENCODINGS.has(value) ? (value as BufferEncoding) : fallback;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The natively implemented part of `require('crypto')`, plus btoa/atob. */
function cryptoOp(json: string): string {
  const req = JSON.parse(json) as Record<string, unknown>;
  switch (req.op) {
    case 'hash':
    case 'hmac': {
      const alg = String(req.alg);
      let h;
      try {
        h = req.op === 'hash' ? createHash(alg) : createHmac(alg, String(req.key ?? ''));
      } catch {
        throw new Error(`Digest method not supported: ${alg}`);
      }
      for (const chunk of (req.chunks as [string, string][]) ?? []) h.update(Buffer.from(String(chunk[0]), encodingOf(chunk[1], 'utf8')));
      const enc = encodingOf(req.enc, 'hex');
      return h.digest(enc as BinaryToTextEncoding);
    }
    case 'randomUUID':
      return randomUUID();
    case 'randomBytes': {
      const n = Number(req.n);
      if (!Number.isInteger(n) || n < 0 || n > 65536) throw new RangeError('randomBytes size must be an integer between 0 and 65536');
      return randomBytes(n).toString('hex');
    }
    case 'convert':
      return Buffer.from(String(req.data), encodingOf(req.from, 'utf8')).toString(encodingOf(req.enc, 'hex'));
    case 'btoa':
      return Buffer.from(String(req.data), req.latin1 === true ? 'latin1' : 'utf8').toString('base64');
    case 'atob':
      return Buffer.from(String(req.data), 'base64').toString('latin1');
    default:
      throw new Error('Unsupported crypto operation');
  }
}

interface ErrorInfo {
  name?: string;
  message: string;
  stack?: string;
}

export async function runInSandbox(mod: QuickJSWASMModule, job: WorkerJob, bridge: EngineBridge): Promise<EngineOutcome> {
  const deadline = Date.now() + job.timeoutMs;
  const vars: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(job.variables)) vars[k] = String(v);
  const output: string[] = [];
  const out = new ScriptOutput({ maxBytes: job.maxOutputBytes, maxLineBytes: job.maxOutputBytes, maxLines: 10_000 }, (line) => output.push(line));
  let response: SandboxResponse | null = null;
  let stopped = false;
  let dontSave = false;
  let error: string | null = null;
  let fatal: string | undefined;

  let alive = true;
  let pending = 0;
  const deferreds = new Set<QuickJSDeferredPromise>();
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  let bridgeFailure: string | null = null;
  const nodeTimers = new Set<NodeJS.Timeout>();

  const timeoutText = () => `Script timed out after ${job.timeoutMs} ms`;
  const memoryText = () => `Script exceeded the memory limit (${Math.round(job.memoryBytes / 1024 / 1024)} MiB)`;

  let rt: QuickJSRuntime | undefined;
  let ctx: QuickJSContext | undefined;

  const dumpText = (c: QuickJSContext, h: QuickJSHandle): string => {
    const copy = h.dup(); // dump() disposes promise handles itself
    try {
      const v: unknown = c.dump(copy);
      return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
    } finally {
      if (copy.alive) copy.dispose();
    }
  };
  const describe = (c: QuickJSContext, h: QuickJSHandle): ErrorInfo => {
    try {
      const t = c.typeof(h);
      if (t === 'object' && c.eq(h, c.null)) return { message: 'null' };
      if (t === 'object') {
        const read = (key: string): string | undefined => {
          const v = c.getProp(h, key);
          try {
            return c.typeof(v) === 'string' ? c.getString(v) : undefined;
          } finally {
            v.dispose();
          }
        };
        const message = read('message');
        if (message !== undefined) return { name: read('name'), message, stack: read('stack') };
        return { message: dumpText(c, h) };
      }
      if (t === 'string') return { message: c.getString(h) };
      return { message: t === 'undefined' ? 'undefined' : dumpText(c, h) };
    } catch {
      return { message: 'Script failed' };
    }
  };
  const errorText = (info: ErrorInfo): string => {
    const { name, message } = info;
    if (message === 'interrupted' && (name === 'InternalError' || name === undefined)) return timeoutText();
    if (message === 'out of memory') return memoryText();
    if (message === 'stack overflow') return 'Script exceeded the maximum stack size (too much recursion)';
    const line = info.stack ? /script\.js:(\d+)(?::(\d+))?/.exec(info.stack) : null;
    return `${name ? `${name}: ` : ''}${message}${line ? ` (line ${line[1]})` : ''}`;
  };
  const isStop = (c: QuickJSContext, h: QuickJSHandle): boolean => {
    if (c.typeof(h) !== 'object') return false;
    const v = c.getProp(h, '__sandboxStop');
    try {
      return c.typeof(v) === 'boolean' && c.dump(v) === true;
    } finally {
      v.dispose();
    }
  };

  try {
    rt = mod.newRuntime();
    // The inputs (variables, request) are copied into the context; the limit is on top of them.
    const varsJson = JSON.stringify(vars);
    const requestJson = job.requestJson;
    rt.setMemoryLimit(job.memoryBytes + 3 * (varsJson.length + requestJson.length));
    rt.setMaxStackSize(job.stackBytes);
    if (job.interrupt) rt.setInterruptHandler(() => Date.now() > deadline);
    rt.setModuleLoader((name) => ({
      error: new Error(`Cannot import '${name}': ES modules are not available in the sandbox, use require()`),
    }));
    const c = rt.newContext();
    ctx = c;

    const N = c.newObject();
    const def = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | void) => {
      const h = c.newFunction(name, fn);
      c.setProp(N, name, h);
      h.dispose();
    };
    const str = (h: QuickJSHandle | undefined): string => (h === undefined ? '' : c.typeof(h) === 'string' ? c.getString(h) : String(c.dump(h)));

    def('vars', () => c.newString(varsJson));
    def('request', () => c.newString(requestJson));
    def('info', () => c.newString(JSON.stringify({ hasDb: job.hasDb, hasStore: job.hasStore })));
    def('out', (line) => {
      if (!out.full) out.write(str(line));
    });
    def('setVar', (name, value) => {
      vars[str(name)] = str(value);
    });
    def('getVar', (name) => {
      const key = str(name);
      return Object.prototype.hasOwnProperty.call(vars, key) ? c.newString(vars[key]!) : c.undefined;
    });
    def('flag', (kind) => {
      const k = str(kind);
      if (k === 'stop') stopped = true;
      else if (k === 'dontSave') dontSave = true;
    });
    def('setResponse', (json) => {
      response = JSON.parse(str(json)) as SandboxResponse;
    });
    def('moduleSource', (name) => {
      const n = str(name);
      const src = librarySource(n);
      if (src === null) throw new Error(`Cannot find module '${n}'`);
      return c.newString(src);
    });
    def('crypto', (json) => c.newString(cryptoOp(str(json))));
    def('lodash', (nameH, knownH) => {
      const name = str(nameH);
      if (name === '') return c.newString(lodashFullSource());
      const known = str(knownH);
      return c.newString(lodashBatch(name, known === '?' ? '?' : new Set(known.split(','))));
    });
    def('part', (name) => {
      const n = str(name);
      const src = Object.prototype.hasOwnProperty.call(PRELUDE_PARTS, n) ? PRELUDE_PARTS[n] : undefined;
      if (src === undefined) throw new Error(`Unknown prelude part ${n}`);
      return c.newString(src);
    });
    const track = (d: QuickJSDeferredPromise, work: Promise<unknown>, settle: (value: unknown) => void) => {
      pending++;
      deferreds.add(d);
      work
        .then(
          (value) => {
            if (alive) settle(value);
          },
          (err: unknown) => {
            if (!alive) return;
            const e = c.newError(messageOf(err));
            d.reject(e);
            e.dispose();
          },
        )
        .catch((err: unknown) => {
          // Settling failed inside the runtime (typically: out of memory while building the value).
          bridgeFailure = messageOf(err);
        })
        .finally(() => {
          pending--;
          deferreds.delete(d);
          if (alive) d.dispose();
          notify();
        });
      return d.handle;
    };
    def('host', (methodH, argsH) => {
      const method = str(methodH);
      if (!HOST_METHODS.has(method)) throw new Error(`Unknown host call: ${method}`);
      if (pending >= job.maxPendingHostCalls) throw new Error(`Too many pending calls (at most ${job.maxPendingHostCalls} at a time)`);
      const args = JSON.parse(str(argsH)) as unknown[];
      const d = c.newPromise();
      return track(d, bridge.call(method as HostMethod, args), (value) => {
        const s = c.newString(JSON.stringify(value ?? null));
        d.resolve(s);
        s.dispose();
      });
    });
    def('timer', (msH) => {
      const ms = Math.max(0, Number(c.getNumber(msH)) || 0);
      const d = c.newPromise();
      // A timer due after the deadline never fires: the run times out first.
      const due =
        Date.now() + ms > deadline
          ? new Promise<void>(() => {})
          : new Promise<void>((resolve) => {
              const t = setTimeout(() => {
                nodeTimers.delete(t);
                resolve();
              }, ms);
              nodeTimers.add(t);
            });
      return track(d, due, () => d.resolve());
    });

    const preludeFn = c.unwrapResult(c.evalCode(PRELUDE_SOURCE, 'sandbox-prelude.js', { type: 'global', strict: true }));
    const installed = c.callFunction(preludeFn, c.undefined, N);
    preludeFn.dispose();
    N.dispose();
    c.unwrapResult(installed).dispose();

    const evaluated = c.evalCode(wrapScript(job.script), 'script.js', { type: 'global' });
    if (evaluated.error) {
      const info = describe(c, evaluated.error);
      evaluated.error.dispose();
      error = errorText(info);
    } else {
      const promise = evaluated.value;
      try {
        for (;;) {
          const jobs = rt.executePendingJobs();
          if (jobs.error) {
            const info = describe(c, jobs.error);
            jobs.error.dispose();
            error = errorText(info);
            break;
          }
          jobs.dispose();
          if (bridgeFailure !== null) {
            error = /memory/i.test(bridgeFailure) ? memoryText() : `Sandbox failure: ${bridgeFailure}`;
            break;
          }
          const state = c.getPromiseState(promise);
          if (state.type === 'fulfilled') {
            if (!state.notAPromise) state.value.dispose();
            break;
          }
          if (state.type === 'rejected') {
            if (!(stopped && isStop(c, state.error))) error = errorText(describe(c, state.error));
            state.error.dispose();
            break;
          }
          if (Date.now() > deadline) {
            error = timeoutText();
            break;
          }
          if (pending === 0) {
            error = 'Script awaits a promise that never settles';
            break;
          }
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
          });
          clearTimeout(timer);
          wake = null;
        }
      } finally {
        promise.dispose();
      }
    }
  } catch (err) {
    // A failure of the host-side machinery (WASM trap, V8 stack exhaustion inside the module...).
    const msg = messageOf(err);
    fatal = msg;
    error = err instanceof RangeError && /call stack/i.test(msg) ? 'Script exceeded the maximum stack size (too much recursion)' : `Sandbox failure: ${msg}`;
  } finally {
    alive = false;
    for (const t of nodeTimers) clearTimeout(t);
    if (fatal === undefined) {
      try {
        for (const d of deferreds) d.dispose();
        deferreds.clear();
        ctx?.dispose();
        rt?.dispose();
      } catch (err) {
        fatal = `dispose failed: ${messageOf(err)}`;
      }
    }
  }

  return {
    result: { variables: { ...vars }, output, response, stopped, dontSave, error },
    ...(fatal !== undefined ? { fatal } : {}),
  };
}
