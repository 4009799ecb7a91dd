// `capture send` end to end: the command line as a child process (cli/main.ts under tsx) asks a
// started server for a signed sample delivery into a token or to a local receiver.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { verify as githubVerify } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const root = path.join(import.meta.dirname, '..');
const TSX = path.join(root, 'node_modules', '.bin', 'tsx');
const MAIN = path.join(root, 'cli', 'main.ts');

let s: TestServer;
// An empty home and working folder: no config file of the machine's is read.
const home = mkdtempSync(path.join(os.tmpdir(), 'capture-send-'));
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

function capture(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(TSX, [MAIN, ...args], {
    cwd: home,
    env: { ...process.env, CAPTURE_URL: s.url, CAPTURE_API_KEY: '', CAPTURE_CONFIG: '', HOME: home, XDG_CONFIG_HOME: '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

beforeAll(async () => {
  s = await startTestServer();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/stripe`;
});

afterAll(async () => {
  await s?.close();
  await new Promise((r) => receiver?.close(r));
  rmSync(home, { recursive: true, force: true });
});

describe('capture send', () => {
  it('sends a signed GitHub delivery into a token and says where it is stored', async () => {
    const token = await s.token();
    const r = await capture(['send', 'github', 'push', '--secret', 'cli-secret', '--to', token.uuid]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = /stored as request ([0-9a-f-]{36})/.exec(r.stdout)?.[1];
    expect(r.stdout).toContain(`sent github push to ${s.url}/${token.uuid}: 200`);
    const stored = await s.call('GET', `/token/${token.uuid}/request/${id}`);
    expect(stored.data.headers['x-github-event']).toEqual(['push']);
    expect(await githubVerify('cli-secret', stored.data.content, stored.data.headers['x-hub-signature-256'][0])).toBe(true);
  });

  it('sends to a URL with the API key, overrides merged; --json prints the whole answer', async () => {
    const { key } = await s.user(false);
    const overrides = JSON.stringify({ data: { object: { amount_paid: 999 } } });
    const r = await capture(['send', 'stripe', 'invoice.paid', '--secret', 'whsec_cli', '--to', receiverUrl, '--overrides', overrides, '--json'], { CAPTURE_API_KEY: key });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer.response).toMatchObject({ status: 200, body: '{"received":true}' });
    const [got] = received.splice(0);
    const event = Stripe.webhooks.constructEvent(got!.body, String(got!.headers['stripe-signature']), 'whsec_cli');
    expect(event).toMatchObject({ type: 'invoice.paid', data: { object: { object: 'invoice', amount_paid: 999 } } });
  });

  it('--list shows the providers, and a provider’s events', async () => {
    const all = await capture(['send', '--list']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^github\s+161 events/m);
    expect(all.stdout).toMatch(/^twilio\s+3 events/m);
    const twilio = await capture(['send', '--list', 'twilio']);
    expect(
      twilio.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['sms', 'voice', 'message_status']);
  });

  it('usage errors exit 2; the API’s refusals exit 1 with its message', async () => {
    expect((await capture(['send', 'github', 'push'])).code).toBe(2);
    expect((await capture(['send', 'github', '--to', 'x'])).code).toBe(2);
    expect((await capture(['send', 'github', 'push', '--to', 'x', '--overrides', '[1]'])).code).toBe(2);
    const noKey = await capture(['send', 'github', 'push', '--to', receiverUrl]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/Authentication required/);
    const token = await s.token();
    const noSecret = await capture(['send', 'stripe', 'invoice.paid', '--to', token.uuid]);
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/secret/);
    expect(received).toEqual([]);
  });
});
