// @capture/client as people outside this repository get it: `npm pack` makes a tarball holding the
// compiled package; installed into a new project (offline: it has no dependencies), it works from
// plain `node` as an ES module and through require(), and its types check in TypeScript. It carries
// the service's version.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const run = promisify(execFile);
const PACKAGE = path.join(import.meta.dirname, '..');
const ROOT = path.join(PACKAGE, '..', '..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;

let s: TestServer;
let project: string;
let tarball: string;
let packed: string[];

beforeAll(async () => {
  s = await startTestServer();
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  // prepack compiles dist/ first, so the tarball holds what src/ says now.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: PACKAGE });
  const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(project, info!.filename);
  packed = info!.files.map((f) => f.path);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-capture-client', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
}, 240_000);

afterAll(async () => {
  await s?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

/** Runs a script of the project with plain node; its stdout. */
async function node(file: string, source: string): Promise<string> {
  fs.writeFileSync(path.join(project, file), source);
  const { stdout } = await run(process.execPath, [file], { cwd: project, env: { ...process.env, CAPTURE_URL: s.url } });
  return stdout;
}

describe('@capture/client, packed and installed', () => {
  it('has the version of the service, and is not private', () => {
    const manifest = readJson(path.join(PACKAGE, 'package.json'));
    expect(manifest.version).toBe(readJson(path.join(ROOT, 'package.json')).version);
    expect(manifest.private).toBeUndefined();
    expect(readJson(path.join(project, 'node_modules', '@capture', 'client', 'package.json')).version).toBe(manifest.version);
  });

  it('packs compiled JavaScript with declarations and its README, not its sources or tests', () => {
    expect(packed).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts']));
    expect(packed.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md')).toEqual([]);
    expect(packed.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('works from plain node as an ES module: a token, a capture, the request waited for', async () => {
    const out = await node(
      'check.mjs',
      `import { CaptureClient, WaitTimeout } from '@capture/client';
const capture = new CaptureClient({ url: process.env.CAPTURE_URL });
const token = await capture.createToken({ default_content: 'thanks' });
const answer = await (await fetch(capture.captureUrl(token) + '/hook?order=7', { method: 'POST', body: '{"total":42}' })).text();
const request = await capture.waitForRequest(token, 'method:POST', 10);
let timedOut = false;
try { await capture.waitForRequest(token, 'method:PUT', 0.2); } catch (e) { timedOut = e instanceof WaitTimeout; }
console.log(JSON.stringify({ answer, content: request.content, query: request.query, timedOut }));
`,
    );
    expect(JSON.parse(out)).toEqual({ answer: 'thanks', content: '{"total":42}', query: { order: '7' }, timedOut: true });
  });

  it('works through require() (CommonJS)', async () => {
    const out = await node(
      'check.cjs',
      `const { CaptureClient, CaptureError } = require('@capture/client');
const capture = new CaptureClient({ url: process.env.CAPTURE_URL });
capture.getToken('no-such-token').catch((e) => console.log(JSON.stringify({ isCaptureError: e instanceof CaptureError, status: e.status })));
`,
    );
    expect(JSON.parse(out)).toEqual({ isCaptureError: true, status: 404 });
  });

  it('type-checks in a TypeScript project, with the API types generated from /openapi.json', async () => {
    fs.writeFileSync(
      path.join(project, 'check.ts'),
      `import { CaptureClient, type CapturedRequest, type Token } from '@capture/client';
const capture = new CaptureClient({ url: 'http://localhost:8084' });
export async function check(): Promise<string> {
  const token: Token = await capture.createToken({ default_status: 201 });
  const request: CapturedRequest = await capture.waitForRequest(token, 'method:POST', 10);
  // @ts-expect-error default_status is a number
  await capture.createToken({ default_status: 'created' });
  return request.content ?? '';
}
`,
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
        files: ['check.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project]).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(result).toBe('');
  });
});
