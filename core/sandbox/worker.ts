// Entry of a sandbox worker thread: loads the QuickJS WASM module once (warm), then runs one job at
// a time with a fresh runtime and context (engine.ts). Host calls go to the main thread over the
// worker's port as request/response messages with ids: the one promise bridge.

import { parentPort } from 'node:worker_threads';
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
import { runInSandbox } from './engine.js';
import type { FromWorker, ToWorker } from './protocol.js';
import type { HostMethod } from './types.js';

const port = parentPort;
if (!port) throw new Error('core/sandbox/worker must run in a worker thread');

const mod = await newQuickJSWASMModuleFromVariant(import('@jitl/quickjs-wasmfile-release-sync'));

interface PendingCall {
  resolve(value: unknown): void;
  reject(err: Error): void;
}
const calls = new Map<number, PendingCall>();
let nextCallId = 1;

const send = (msg: FromWorker) => port.postMessage(msg);

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'hostResult') {
    const call = calls.get(msg.callId);
    if (!call) return;
    calls.delete(msg.callId);
    if (msg.ok) call.resolve(msg.value);
    else call.reject(new Error(msg.error));
    return;
  }
  if (msg.type === 'run') {
    const { runId, job } = msg;
    const bridge = {
      call(method: HostMethod, args: unknown[]): Promise<unknown> {
        const callId = nextCallId++;
        return new Promise((resolve, reject) => {
          calls.set(callId, { resolve, reject });
          send({ type: 'hostCall', runId, callId, method, args });
        });
      },
    };
    void runInSandbox(mod, job, bridge).then(
      ({ result, fatal }) => {
        // Answers still on their way belong to a finished run; drop them.
        calls.clear();
        const wasmBytes = mod.getWasmMemory().buffer.byteLength;
        send({ type: 'done', runId, result, wasmBytes, ...(fatal !== undefined ? { fatal } : {}) });
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        const result = { variables: job.variables, output: [], response: null, stopped: false, dontSave: false, error: `Sandbox failure: ${message}` };
        send({ type: 'done', runId, result, wasmBytes: 0, fatal: message });
      },
    );
  }
});

send({ type: 'ready' });
