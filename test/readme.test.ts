// The README works as written, from a fresh start. Its quick start runs as the README says, in the
// repository: everything after `npm ci` (which this checkout has done), that is `export
// ADMIN_API_KEY=...`, `npm start &` and the wait for /readyz; then every example after it, in
// order, in the same bash session, each printing what the README says it prints (conventions in
// helpers/readme-examples.ts). Only where the service lives differs, since this machine may run
// other services: a free port in place of 8084 (PORT, and in the commands), a new DATA_DIR, free
// e-mail and DNS ports, and no MONGODB_URI.
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellExamples } from './helpers/readme-examples.js';
import { expectAsDocumented, runExamples, type Outcome } from './helpers/run-examples.js';
import type { Example } from './helpers/readme-examples.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = path.join(ROOT, 'README.md');
const blocks = shellExamples(fs.readFileSync(README, 'utf8'));
const [quickStart] = blocks;
const examples = blocks
  .filter((b) => !b.skip)
  .flatMap((b) => b.examples)
  .filter((e) => e.command !== 'npm ci');

let dataDir: string;
let outcomes = new Map<Example, Outcome>();

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-data-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, SMTP_PORT: '0', DNS_PORT: '0', MONGODB_URI: '', BASE_URL: '' };
  delete env.ADMIN_API_KEY; // the README's own `export` sets it
  // `npm start` rebuilds dist/ first when it is older than the sources: minutes on a busy machine.
  outcomes = await runExamples(examples, { address: `localhost:${port}`, cwd: ROOT, env, timeoutMs: 600_000 });
}, 660_000);

afterAll(() => {
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('README examples', () => {
  it('starts with the quick start: npm ci, an administrator key, npm start, wait until ready', () => {
    expect(quickStart!.examples.map((e) => e.command.split(/\s/)[0])).toEqual(['npm', 'export', 'npm', 'until']);
    expect(quickStart!.examples[0]!.command).toBe('npm ci');
    expect(quickStart!.examples[1]!.command).toMatch(/^export ADMIN_API_KEY=/);
    expect(quickStart!.examples[2]!.command).toBe('npm start &');
    expect(examples.filter((e) => e.output !== undefined).length).toBeGreaterThanOrEqual(6);
  });

  it.each(examples.map((e) => [`line ${e.line}: ${e.command.split('\n')[0]!.slice(0, 90)}`, e] as const))('%s', (_name, e) => {
    expectAsDocumented(e, outcomes.get(e), 'README.md');
  });
});
