// Runs a document's shell examples (helpers/readme-examples.ts reads them) in order in one bash
// session, as a reader pasting them would, and checks each against what the document says.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { outputMismatch, type Example } from './readme-examples.js';

export interface Outcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  statuses: number[];
}

// Every curl call reports its status on stderr, after whatever it prints.
const STATUS_MARK = '@@status=';
const PRELUDE = `curl() { command curl -w '%{stderr}\\n${STATUS_MARK}%{http_code}\\n' "$@"; }\n`;

export interface RunOptions {
  /** The service's host:port, written in place of the documents' localhost:8084. */
  address: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Ends the session (and what it started in the background) after this long. */
  timeoutMs?: number;
}

/**
 * Runs the examples in one bash session, each one's output in files of its own; resolves when
 * the session ends, after ending what it left running in the background (`npm start &`).
 */
export async function runExamples(examples: Example[], opts: RunOptions): Promise<Map<Example, Outcome>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-examples-'));
  try {
    const parts = examples.map((e, i) => {
      const command = e.command.replace(/\b(localhost|127\.0\.0\.1):8084\b/g, opts.address);
      return `{\n${command}\n} >"${dir}/${i}.out" 2>"${dir}/${i}.err"\necho $? >"${dir}/${i}.rc"\n`;
    });
    await new Promise<void>((resolve, reject) => {
      // Its own process group, so that what it starts in the background ends with it.
      const child = spawn('bash', ['-c', PRELUDE + parts.join('')], { cwd: opts.cwd ?? dir, env: opts.env ?? process.env, stdio: 'ignore', detached: true });
      const endGroup = () => {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(endGroup, opts.timeoutMs ?? 300_000);
      child.on('error', reject);
      child.on('exit', () => {
        clearTimeout(timer);
        endGroup();
        resolve();
      });
    });
    const outcomes = new Map<Example, Outcome>();
    examples.forEach((e, i) => {
      const read = (ext: string) => (fs.existsSync(path.join(dir, `${i}.${ext}`)) ? fs.readFileSync(path.join(dir, `${i}.${ext}`), 'utf8') : '');
      const err = read('err');
      const statuses = [...err.matchAll(new RegExp(`^${STATUS_MARK}(\\d{3})$`, 'gm'))].map((m) => Number(m[1]));
      outcomes.set(e, { stdout: read('out'), stderr: err.replace(new RegExp(`\\n?${STATUS_MARK}\\d{3}\\n`, 'g'), '').trim(), exitCode: Number(read('rc').trim() || -1), statuses });
    });
    return outcomes;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The example did what the document says: exit code 0; every curl call 2xx, or the last one the
 * documented status; what it printed matches the `# ...` lines. A waiting loop (`until curl ...`)
 * retries until its last call succeeds, so only that one must be 2xx.
 */
export function expectAsDocumented(e: Example, o: Outcome | undefined, file: string): void {
  expect(o, `${file} line ${e.line} did not run`).toBeDefined();
  const context = `${file} line ${e.line}\n${e.command}\nstdout: ${o!.stdout.slice(0, 500)}\nstderr: ${o!.stderr.slice(0, 500)}\nstatuses: ${o!.statuses.join(', ')}`;
  expect(o!.exitCode, context).toBe(0);
  if (/(^|[\s($|])curl\s/.test(e.command)) {
    expect(o!.statuses.length, context).toBeGreaterThan(0);
    const last = o!.statuses.at(-1)!;
    const waiting = /^(until|while)\s/.test(e.command.trimStart());
    const others = e.status === undefined && !waiting ? o!.statuses : o!.statuses.slice(0, -1);
    if (!waiting) for (const status of others) expect(status >= 200 && status < 300, context).toBe(true);
    if (e.status !== undefined) expect(last, context).toBe(e.status);
    else if (waiting) expect(last >= 200 && last < 300, context).toBe(true);
  }
  if (e.output !== undefined) expect(outputMismatch(e.output, o!.stdout), context).toBeNull();
}
