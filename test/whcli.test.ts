// The official webhook.site CLI (whcli, from npm) against this server: `whcli forward` subscribes
// over socket.io (socket.io-client 2.x + laravel-echo), forwards each capture to a local target and,
// with the token's `listen`, answers the waiting capture with the target's response (set-response).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { BUS } from '../core/service-keys.js';

const CLI_PACKAGE = '@webhooksite/cli@^0.2.7';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let cliDir: string;
let cliEntry: string;
let server: TestServer;
let target: http.Server;
let targetUrl: string;
const received: Received[] = [];
const children: ChildProcess[] = [];

function run(cmd: string, args: string[], timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, out: out + String(err) });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Starts `whcli forward` against the test server; resolves once its subscription is active. */
async function startCli(tokenId: string, extraArgs: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WH_')) env[k] = v;
  Object.assign(env, { WH_API: server.url, WH_WS_HOST: server.url, WH_LOG_LEVEL: 'info' });
  const child = spawn(process.execPath, [cliEntry, 'forward', `--token=${tokenId}`, `--target=${targetUrl}`, ...extraArgs], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const bus = server.provided.get(BUS)!;
  const deadline = Date.now() + 20_000;
  while (bus.subscriberCount(tokenId) === 0) {
    if (child.exitCode !== null) throw new Error(`whcli exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`whcli did not subscribe within 20 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => out };
}

/** SIGINT lets the CLI reset the token's listen before it exits; SIGKILL if it lingers. */
async function stopCli(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function waitFor<T>(fn: () => T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'whcli-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = await run(npm, ['install', '--prefix', cliDir, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', CLI_PACKAGE], 240_000);
  cliEntry = path.join(cliDir, 'node_modules', '@webhooksite', 'cli', 'index.js');
  if (install.code !== 0 || !fs.existsSync(cliEntry)) {
    throw new Error(`Could not install ${CLI_PACKAGE} from the npm registry (npm exit ${install.code}); this test needs registry access.\n${install.out}`);
  }

  target = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(201, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Target': 'forwarded' });
      res.end(`target saw ${req.method} ${req.url}`);
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  server = await startTestServer();
}, 300_000);

afterAll(async () => {
  for (const c of children) await stopCli(c);
  await server?.close();
  await new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve()));
  if (cliDir) fs.rmSync(cliDir, { recursive: true, force: true });
});

describe('whcli forward (official CLI from npm)', () => {
  it('forwards a capture to the target and answers the caller with the target’s response', async () => {
    const token = await server.token();
    const cli = await startCli(token.uuid, ['--listen-timeout=5']);
    // The CLI sets the token's listen to its --listen-timeout before it subscribes.
    expect((await server.call('GET', `/token/${token.uuid}`)).data.listen).toBe(5);

    const before = received.length;
    const res = await fetch(`${server.url}/${token.uuid}/hook/path?foo=bar&n=2`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'v1' },
      body: '{"hello":"world"}',
    });
    const text = await res.text();
    const got = await waitFor(() => received[before], 5000, 'the target to receive the forwarded request');

    expect(got.method).toBe('PUT');
    expect(got.url).toBe('/hook/path?foo=bar&n=2');
    expect(got.headers['x-custom']).toBe('v1');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.body).toBe('{"hello":"world"}');

    // listen + set-response: the caller got what the target answered.
    expect(res.status, cli.output()).toBe(201);
    expect(text).toBe('target saw PUT /hook/path?foo=bar&n=2');
    expect(res.headers.get('x-target')).toBe('forwarded');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');

    await stopCli(cli.child);
    // On SIGINT the CLI puts the token's listen back to 0.
    expect((await server.call('GET', `/token/${token.uuid}`)).data.listen).toBe(0);
  });

  it('with --listen-timeout=0 forwards without holding the caller', async () => {
    const token = await server.token({ default_status: 202, default_content: 'default answer' });
    const cli = await startCli(token.uuid, ['--listen-timeout=0']);
    expect((await server.call('GET', `/token/${token.uuid}`)).data.listen).toBe(0);

    const before = received.length;
    const res = await fetch(`${server.url}/${token.uuid}/form?x=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=two',
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('default answer');
    const got = await waitFor(() => received[before], 5000, 'the target to receive the forwarded request');
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/form?x=1');
    expect(got.body).toBe('a=1&b=two');
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
    await stopCli(cli.child);
  });
});
