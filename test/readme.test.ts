// The README's shell examples work as written: they run in order in one bash session against a
// started server (its address in place of localhost:8084), and each prints what the README says
// it prints (conventions in helpers/readme-examples.ts). The Databases examples need the
// PostgreSQL server of this machine (DATABASES_TEST_URL, as core/http/databases uses).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputMismatch, shellExamples, type Example } from './helpers/readme-examples.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';

const README = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const DATABASES_URL = process.env.DATABASES_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = shellExamples(fs.readFileSync(README, 'utf8'));
const examples = blocks.filter((b) => !b.skip).flatMap((b) => b.examples);

// Every curl call reports its status on stderr, after whatever it prints.
const STATUS_MARK = '@@status=';
const PRELUDE = `curl() { command curl -w '%{stderr}\\n${STATUS_MARK}%{http_code}\\n' "$@"; }\n`;

interface Outcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  statuses: number[];
}

let s: TestServer;
let dir: string;
const outcomes = new Map<Example, Outcome>();

function runScript(script: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ADMIN_API_KEY: ADMIN_KEY }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

beforeAll(async () => {
  s = await startTestServer({ DATABASES_POSTGRES_URL: DATABASES_URL });
  const address = new URL(s.url).host;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-'));
  const parts = examples.map((e, i) => {
    const command = e.command.replace(/\b(localhost|127\.0\.0\.1):8084\b/g, address);
    return `{\n${command}\n} >"${i}.out" 2>"${i}.err"\necho $? >"${i}.rc"\n`;
  });
  await runScript(PRELUDE + parts.join(''), dir);
  examples.forEach((e, i) => {
    const read = (ext: string) => (fs.existsSync(path.join(dir, `${i}.${ext}`)) ? fs.readFileSync(path.join(dir, `${i}.${ext}`), 'utf8') : '');
    const err = read('err');
    const statuses = [...err.matchAll(new RegExp(`^${STATUS_MARK}(\\d{3})$`, 'gm'))].map((m) => Number(m[1]));
    outcomes.set(e, { stdout: read('out'), stderr: err.replace(new RegExp(`\\n?${STATUS_MARK}\\d{3}\\n`, 'g'), '').trim(), exitCode: Number(read('rc').trim() || -1), statuses });
  });
});

afterAll(async () => {
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('README examples', () => {
  it('has the shell examples this test is about', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(examples.filter((e) => e.output !== undefined).length).toBeGreaterThanOrEqual(10);
  });

  it.each(examples.map((e) => [`line ${e.line}: ${e.command.split('\n')[0]!.slice(0, 90)}`, e] as const))('%s', (_name, e) => {
    const o = outcomes.get(e)!;
    const context = `README line ${e.line}\n${e.command}\nstdout: ${o.stdout.slice(0, 500)}\nstderr: ${o.stderr.slice(0, 500)}\nstatuses: ${o.statuses.join(', ')}`;
    expect(o.exitCode, context).toBe(0);
    if (/(^|[\s($|])curl\s/.test(e.command)) {
      expect(o.statuses.length, context).toBeGreaterThan(0);
      const last = o.statuses.at(-1)!;
      const others = e.status === undefined ? o.statuses : o.statuses.slice(0, -1);
      for (const status of others) expect(status >= 200 && status < 300, context).toBe(true);
      if (e.status !== undefined) expect(last, context).toBe(e.status);
    }
    if (e.output !== undefined) expect(outputMismatch(e.output, o.stdout), context).toBeNull();
  });
});
