// The service as a real process (core/main.ts under tsx, as `npm run dev` starts it), for tests of
// what only separate processes show: several instances on one store, signals, start-up.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../core/main.ts', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** What it printed so far (for failure messages). */
  output(): string;
  /** SIGTERM, then waits for the exit; SIGKILL if it takes longer than `ms`. */
  stop(ms?: number): Promise<number | null>;
}

/**
 * Starts the service with these settings (added to a quiet, loopback-only base); resolves once it
 * logged `ready`. `nodeArgs` go to node before the entry (e.g. another `--import`).
 */
export function startServiceProcess(env: Record<string, string>, readyMs = 120_000, nodeArgs: string[] = []): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, MAIN], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', SMTP_ENABLED: 'false', DNS_ENABLED: 'false', LOG_FORMAT: 'text', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  async function stop(ms = 20_000): Promise<number | null> {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  return new Promise((resolve, reject) => {
    // Generous: tsx compiles the whole service first, on a machine that may be busy.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service was not ready within ${readyMs} ms:\n${out}`));
    }, readyMs);
    const read = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-100_000);
      const m = /ready page=http:\/\/localhost:(\d+)\//.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ url: `http://127.0.0.1:${m[1]}`, child, output: () => out, stop });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before it was ready:\n${out}`));
    });
  });
}

/**
 * Runs the service with these settings (SMTP and DNS on free ports unless set) until it exits, or
 * until it prints `until` (then SIGTERM); returns its exit code and what it printed. For start-up
 * that fails, or must print something before it is stopped.
 */
export function runServiceProcess(env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: { PATH: process.env.PATH, PORT: '0', SMTP_PORT: '0', DNS_PORT: '0', LOG_FORMAT: 'text', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // Generous: tsx compiles the whole service on a busy 2-core machine before it can fail or start.
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (until?.test(out)) child.kill('SIGTERM');
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}
