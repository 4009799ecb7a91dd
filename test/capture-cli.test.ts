// The `capture` command line end to end: each command is a real child process (cli/main.ts under
// tsx, what packages/cli/bin/capture.mjs runs once compiled) talking to a started server over HTTP, with the
// server's address from CAPTURE_URL.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startTestServer, type TestServer } from './helpers/server.js';

const root = path.join(import.meta.dirname, '..');
const BUILD = '../scripts/build.mjs'; // plain JavaScript, without types
const { staleReason } = (await import(BUILD)) as { staleReason(): string | null };
const TSX = path.join(root, 'node_modules', '.bin', 'tsx');
const MAIN = path.join(root, 'cli', 'main.ts');

let s: TestServer;
let dir: string;
let target: http.Server;
let targetUrl: string;
const received: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const children = new Set<ChildProcess>();

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(TSX, [MAIN, ...args], {
    cwd: dir,
    env: { ...process.env, CAPTURE_URL: s.url, CAPTURE_API_KEY: '', CAPTURE_CONFIG: '', NO_COLOR: '', HOME: dir, XDG_CONFIG_HOME: '', BASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function capture(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(args, env);
  const timer = setTimeout(() => r.child.kill('SIGKILL'), 25_000);
  const code = await r.exit;
  clearTimeout(timer);
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Ctrl-C, as a user stops tail or forward. */
async function interrupt(r: Running): Promise<number | null> {
  r.child.kill('SIGINT');
  const timer = setTimeout(() => r.child.kill('SIGKILL'), 10_000);
  const code = await r.exit;
  clearTimeout(timer);
  return code;
}

const post = (url: string, body: string, init: RequestInit = {}) => fetch(url, { method: 'POST', body, ...init });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-cli-'));
  s = await startTestServer();
  target = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(201, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Target': 'yes' });
      res.end(`target saw ${req.method} ${req.url}`);
    });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await s?.close();
  await new Promise<void>((r) => (target ? target.close(() => r()) : r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('capture token', () => {
  it('create prints the UUID and URL, -q only the UUID, --json the token; get and delete', async () => {
    const plain = await capture(['token', 'create', '--status', '202', '--content', 'hi']);
    expect(plain.code, plain.stderr).toBe(0);
    const uuid = /^token {2}([0-9a-f-]{36})$/m.exec(plain.stdout)![1]!;
    expect(plain.stdout).toContain(`url    ${s.url}/${uuid}`);
    expect((await fetch(`${s.url}/${uuid}`)).status).toBe(202);

    const quiet = await capture(['token', 'create', '-q']);
    expect(quiet.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const json = await capture(['token', 'create', '--json', '--listen', '3']);
    expect(JSON.parse(json.stdout)).toMatchObject({ listen: 3, default_status: 200 });

    const got = await capture(['token', 'get', uuid]);
    expect(JSON.parse(got.stdout)).toMatchObject({ uuid, default_status: 202, default_content: 'hi' });
    expect((await capture(['token', 'delete', uuid])).code).toBe(0);
    const gone = await capture(['token', 'get', uuid]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^error: .*not found.*\(HTTP 404\)/im);
  });

  it('reports a field error from the API and exits 1; a bad option value is a usage error (2)', async () => {
    const bad = await capture(['token', 'create', '--alias', 'x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/alias/);
    const usage = await capture(['token', 'create', '--status', '99']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--status must be a number from 200 to 599');
  });
});

describe('capture wait', () => {
  it('prints a request that arrives while it waits, as JSON, and exits 0', async () => {
    const token = await s.token();
    const w = start(['wait', token.uuid, '--query', 'method:PUT', '--timeout', '15']);
    await new Promise((r) => setTimeout(r, 1500));
    await post(`${s.url}/${token.uuid}/x`, 'no');
    await fetch(`${s.url}/${token.uuid}/y`, { method: 'PUT', body: 'yes' });
    expect(await w.exit, w.stderr()).toBe(0);
    const r = JSON.parse(w.stdout());
    expect(r).toMatchObject({ method: 'PUT', content: 'yes', token_id: token.uuid });
  });

  it('exits 1 and says so on timeout', async () => {
    const token = await s.token();
    const r = await capture(['wait', token.uuid, '--query', 'method:DELETE', '--timeout', '0.5']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('timeout: no request matching "method:DELETE" arrived within 0.5 s');
  });
});

describe('capture tail', () => {
  it('--json prints each capture as one JSON line as it arrives; Ctrl-C exits 0', async () => {
    const token = await s.token();
    const t = start(['tail', token.uuid, '--json']);
    await until('tail to subscribe', () => t.stderr().includes('waiting for requests'));
    await post(`${s.url}/${token.uuid}/one`, 'a');
    await post(`${s.url}/${token.uuid}/two?x=1`, 'b');
    await until('two lines', () => t.stdout().split('\n').filter(Boolean).length >= 2);
    expect(await interrupt(t)).toBe(0);
    const lines = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((r) => [r.content, new URL(r.url).pathname])).toEqual([
      ['a', `/${token.uuid}/one`],
      ['b', `/${token.uuid}/two`],
    ]);
  });

  it('prints readable lines, without colour when stdout is not a terminal', async () => {
    const token = await s.token();
    const t = start(['tail', token.uuid]);
    await until('tail to subscribe', () => t.stderr().includes('waiting for requests'));
    await post(`${s.url}/${token.uuid}/hook?id=7`, '{"a":1}');
    await until('a line', () => t.stdout().includes('\n'));
    expect(await interrupt(t)).toBe(0);
    expect(t.stdout()).toMatch(/^\d\d:\d\d:\d\d POST {3}\/hook\?id=7 200 7 B 127\.0\.0\.1 [0-9a-f-]{36}\n$/);
    expect(t.stdout()).not.toContain('\x1b[');
  });
});

describe('capture forward', () => {
  it("sends each capture to the target and answers the waiting caller with the target's response", async () => {
    const token = await s.token();
    const f = start(['forward', token.uuid, '--target', `${targetUrl}/base`, '--listen-timeout', '5']);
    await until('forward to subscribe', () => f.stderr().includes('forwarding'));
    expect((await s.call('GET', `/token/${token.uuid}`)).data.listen).toBe(5);

    const before = received.length;
    const res = await fetch(`${s.url}/${token.uuid}/hook/path?foo=bar`, { method: 'PUT', headers: { 'Content-Type': 'application/json', 'X-Custom': 'v1' }, body: '{"hello":"world"}' });
    expect(res.status, f.stderr()).toBe(201);
    expect(await res.text()).toBe('target saw PUT /base/hook/path?foo=bar');
    expect(res.headers.get('x-target')).toBe('yes');
    const got = received[before]!;
    expect(got).toMatchObject({ method: 'PUT', url: '/base/hook/path?foo=bar', body: '{"hello":"world"}' });
    expect(got.headers['x-custom']).toBe('v1');
    expect(got.headers['content-type']).toBe('application/json');
    await until('the forward line', () => f.stdout().includes('->'));
    expect(f.stdout()).toContain(`PUT    ${targetUrl}/base/hook/path?foo=bar -> 201`);

    expect(await interrupt(f)).toBe(0);
    // The token's listen is put back as it was.
    expect((await s.call('GET', `/token/${token.uuid}`)).data.listen).toBe(0);
  });

  it('answers 502 when the target cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const token = await s.token();
    const f = start(['forward', token.uuid, '--target', `http://127.0.0.1:${port}`, '--listen-timeout', '5']);
    await until('forward to subscribe', () => f.stderr().includes('forwarding'));
    const res = await post(`${s.url}/${token.uuid}`, 'x');
    expect(res.status).toBe(502);
    expect(await res.text()).toContain('could not be reached (ECONNREFUSED)');
    expect(await interrupt(f)).toBe(0);
  });
});

describe('capture export and replay', () => {
  it('export --har writes an archive to a file, --csv to stdout; one of them is required', async () => {
    const token = await s.token();
    await post(`${s.url}/${token.uuid}/a`, 'one');
    await post(`${s.url}/${token.uuid}/b`, 'two');
    const file = path.join(dir, 'out.har');
    const har = await capture(['export', token.uuid, '--har', '-o', file]);
    expect(har.code, har.stderr).toBe(0);
    expect(har.stderr).toContain(`wrote ${file}`);
    const archive = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(archive.log.entries.map((e: { request: { postData: { text: string } } }) => e.request.postData.text)).toEqual(['one', 'two']);

    const csv = await capture(['export', token.uuid, '--csv', '--query', 'content:two']);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = csv.stdout.trim().split(/\r?\n/);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('two');

    const neither = await capture(['export', token.uuid]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('export needs --har or --csv');
  });

  it('replay sends the newest request to a target, or every match, with a summary', async () => {
    const token = await s.token();
    await post(`${s.url}/${token.uuid}/first`, 'one', { headers: { 'Content-Type': 'text/plain' } });
    await post(`${s.url}/${token.uuid}/second`, 'two', { headers: { 'Content-Type': 'text/plain' } });
    const before = received.length;
    const one = await capture(['replay', token.uuid, '--target', `${targetUrl}/again`]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/ POST {3}http:\/\/127\.0\.0\.1:\d+\/again -> 201 \d+ ms/);
    expect(received[before]).toMatchObject({ method: 'POST', url: '/again', body: 'two' });

    // Every request again, to the token's own URL: each becomes a new capture.
    const all = await capture(['replay', token.uuid, '--all']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toContain('2 of 2 replayed');
    expect((await s.call('GET', `/token/${token.uuid}/requests`)).data.total).toBe(4);

    const none = await capture(['replay', token.uuid, '--query', 'content:nothing']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no request to replay');
  });
});

describe('capture workflows', () => {
  it('validates locally, applies and exports through the API, and replay --actions runs the chain again', async () => {
    const token = await s.token();
    const file = path.join(dir, 'flow.yaml');
    fs.writeFileSync(file, `apiVersion: capture/v1\nkind: TokenActions\nmetadata:\n  token: ${token.uuid}\nspec:\n  steps:\n    - type: log\n      parameters:\n        text: "saw $request.method$"\n`);
    const valid = await capture(['workflows', 'validate', file]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain('1 document valid, 0 failed');

    const applied = await capture(['workflows', 'apply', file]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`applied  ${file} -> token ${token.uuid} (1 step)`);

    const exported = await capture(['workflows', 'export', token.uuid]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(YAML.parse(exported.stdout).spec.steps[0]).toMatchObject({ type: 'log', parameters: { text: 'saw $request.method$' } });

    await post(`${s.url}/${token.uuid}`, 'x');
    const again = await capture(['replay', token.uuid, '--actions', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(again.stdout))).toContain('saw POST');

    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, `apiVersion: capture/v1\nkind: TokenActions\nmetadata:\n  token: ${token.uuid}\nspec:\n  steps:\n    - type: log\n      parameters:\n        nope: 1\n`);
    const refused = await capture(['workflows', 'apply', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^${bad.replace(/[.]/g, '\\.')}:\\d+:\\d+: spec\\.steps\\.0\\.parameters`, 'm'));
    expect(refused.stdout).toContain('0 documents applied, 1 failed');
  });

  it('`npm run cli -- workflows ...` (capture --database) still works on the database directly', async () => {
    const data = fs.mkdtempSync(path.join(dir, 'data-'));
    const token = '9a3e2c1d-5b4f-4e6a-8c7d-0e1f2a3b4c5d';
    const file = path.join(dir, 'db-flow.yaml');
    fs.writeFileSync(file, `apiVersion: capture/v1\nkind: TokenActions\nmetadata:\n  token: ${token}\nspec:\n  steps:\n    - type: log\n      parameters:\n        text: hi\n`);
    const env = { DATA_DIR: data, LOG_LEVEL: 'silent', BASE_URL: '' };
    const r = await capture(['--database', 'workflows', 'apply', '--create', file], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`-> token ${token} (1 step)`);
    const out = await capture(['--database', 'workflows', 'export', token], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('text: hi');
  });
});

describe('capture: settings and errors', () => {
  it('takes the server from --server over CAPTURE_URL, and CAPTURE_URL over the config file', async () => {
    // A port nothing listens on: one the system just handed out and took back.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const nowhere = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((r) => probe.close(r));
    const rc = path.join(dir, 'rc.json');
    fs.writeFileSync(rc, JSON.stringify({ url: nowhere }));
    const fromFlag = await capture(['token', 'create', '-q', '--server', s.url, '--config', rc], { CAPTURE_URL: nowhere });
    expect(fromFlag.code, fromFlag.stderr).toBe(0);
    const fromEnv = await capture(['token', 'create', '-q', '--config', rc]);
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const fromFile = await capture(['token', 'create', '-q', '--config', rc], { CAPTURE_URL: '' });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toBe(`error: cannot reach ${nowhere} (ECONNREFUSED)\n`);
  });

  it('an unknown command or option is a usage error (exit 2); --help exits 0', async () => {
    const unknown = await capture(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error: unknown command "frobnicate"');
    const misplaced = await capture(['wait', 'tok', '--har']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--har does not go with wait');
    const help = await capture(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: capture <command>');
  });
});

describe('capture --help and --version', () => {
  it('--version prints the version of the service', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const r = await capture(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`capture ${pkg.version}\n`);
  });

  it("<command> --help prints that command's text with examples, not the list of commands", async () => {
    for (const command of ['token', 'tail', 'forward', 'wait', 'replay', 'export', 'send', 'workflows', 'secrets', 'migrate', 'backup']) {
      const r = await capture([command, '--help']);
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(new RegExp(`^usage: capture ${command}\\b`));
      expect(r.stdout, command).toMatch(/\nExamples?:\n {2}(capture|SECRET_KEY)/);
      expect(r.stdout, command).not.toContain('Commands that use a running server');
    }
    expect((await capture(['token', 'create', '-h'])).stdout).toMatch(/^usage: capture token create/);
    expect((await capture(['help', 'tail'])).stdout).toMatch(/^usage: capture tail <token>/);
  }, 120_000); // thirteen processes, each compiling the command line with tsx on a busy machine

  it("a usage error points at the command's own help", async () => {
    const r = await capture(['tail']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: tail needs one token\n(capture tail --help shows how to use it)\n');
  });
});

/**
 * Runs the command with a reader that takes the first line of stdout and stops reading, as
 * `| head -1` does (`closeAt: 'start'`: one that is gone before anything is written).
 */
function piped(args: string[], closeAt: 'first-line' | 'start' = 'first-line'): Running & { firstLine: () => string } {
  const r = start(args);
  let first = '';
  if (closeAt === 'start') r.child.stdout!.destroy();
  else
    r.child.stdout!.on('data', () => {
      const nl = r.stdout().indexOf('\n');
      if (nl >= 0 && !first) {
        first = r.stdout().slice(0, nl);
        r.child.stdout!.destroy();
      }
    });
  return { ...r, firstLine: () => first };
}

async function exitOf(r: Running, ms = 20_000): Promise<number | null> {
  const timer = setTimeout(() => r.child.kill('SIGKILL'), ms);
  const code = await r.exit;
  clearTimeout(timer);
  return code;
}

describe('capture with a reader that stops reading (EPIPE on stdout)', () => {
  it('tail --json | head -1: the first request, then a quiet exit 0', async () => {
    const token = await s.token();
    const t = piped(['tail', token.uuid, '--json']);
    await until('tail to subscribe', () => t.stderr().includes('waiting for requests'));
    // The reader goes after the first line; the next line written finds the pipe closed.
    for (let i = 0; t.child.exitCode === null && i < 50; i++) {
      await post(`${s.url}/${token.uuid}/n${i}`, String(i));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await exitOf(t)).toBe(0);
    expect(JSON.parse(t.firstLine())).toMatchObject({ content: '0' });
    expect(t.stderr()).not.toMatch(/EPIPE|Error|at /);
  });

  it('replay --json | head -1: stops sending and exits 0', async () => {
    const token = await s.token();
    for (let i = 0; i < 40; i++) await post(`${s.url}/${token.uuid}/r${i}`, String(i));
    const before = received.length;
    const r = piped(['replay', token.uuid, '--all', '--json', '--target', `${targetUrl}/replayed`]);
    expect(await exitOf(r)).toBe(0);
    expect(JSON.parse(r.firstLine())).toMatchObject({ status: 201 });
    expect(r.stderr()).not.toMatch(/EPIPE|Error|at /);
    // Requests not sent when the reader went stay unsent.
    expect(received.length - before).toBeLessThan(40);
  });

  it('every command ends quietly with exit 0 when stdout is closed before it writes', async () => {
    const token = await s.token();
    await post(`${s.url}/${token.uuid}/x`, 'stored');
    const once = async (args: string[]) => {
      const r = piped(args, 'start');
      const code = await exitOf(r);
      expect({ args, code, stderr: r.stderr() }).toMatchObject({ code: 0 });
      expect(r.stderr(), args.join(' ')).not.toMatch(/EPIPE|at /);
      return r;
    };
    await once(['--help']);
    await once(['--version']);
    await once(['tail', '--help']);
    await once(['token', 'create']);
    await once(['token', 'get', token.uuid]);
    await once(['wait', token.uuid, '--timeout', '5']);
    await once(['replay', token.uuid, '--json']);
    await once(['export', token.uuid, '--csv']);
    await once(['workflows', 'export', token.uuid]);

    // The streaming commands write when a request arrives; forward first puts the token's listen back.
    for (const args of [
      ['tail', token.uuid],
      ['forward', token.uuid, '--target', targetUrl, '--listen-timeout', '3'],
    ]) {
      const r = piped(args, 'start');
      await until(`${args[0]} to subscribe`, () => /waiting for requests|forwarding/.test(r.stderr()));
      await post(`${s.url}/${token.uuid}/live`, 'live');
      expect(await exitOf(r), `${args[0]}: ${r.stderr()}`).toBe(0);
      expect(r.stderr()).not.toMatch(/EPIPE|at /);
    }
    expect((await s.call('GET', `/token/${token.uuid}`)).data.listen).toBe(0);
  }, 180_000); // eleven processes, each compiling the command line with tsx on a busy machine
});

describe('the `capture` executable (workspace packages/cli, `npx capture`)', () => {
  const cliPackage = path.join(root, 'packages', 'cli');
  const bin = path.join(cliPackage, JSON.parse(fs.readFileSync(path.join(cliPackage, 'package.json'), 'utf8')).bin.capture as string);

  it('is an executable in a workspace, which npm links as node_modules/.bin/capture', () => {
    expect(fs.readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
    expect(fs.realpathSync(path.join(root, 'node_modules', '.bin', 'capture'))).toBe(fs.realpathSync(bin));
    // A bin in the root package.json would make npx install the repository into its own cache
    // (and build it there) on every first run, instead of running the linked one.
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).bin).toBeUndefined();
  });

  // It builds dist/ first when dist/ is older than the sources (a minute of tsc and vite): run it
  // when the build is current, as after `npm ci`, which builds.
  const stale = staleReason();
  it.skipIf(stale !== null)(`runs the compiled command line${stale ? ` (skipped: dist/ is not current: ${stale}; npm run build)` : ''}`, async () => {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, 'token', 'create', '-q'], { env: { ...process.env, CAPTURE_URL: s.url, CAPTURE_API_KEY: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^[0-9a-f-]{36}\n$/);
  });

  it.skipIf(stale !== null)("`npx capture` runs the linked executable, installing nothing into npx's cache", async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'npx-cache-'));
    try {
      const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn('npx', ['--offline', 'capture', '--version'], { cwd: root, env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (code) => resolve({ code, out, err }));
      });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^capture \d+\.\d+\.\d+\n$/);
      expect(fs.existsSync(path.join(cache, '_npx')), 'npx installed the repository into its cache').toBe(false);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
