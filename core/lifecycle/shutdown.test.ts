// SIGTERM, end to end: the service (core/main.ts, as `npm run dev` starts it) stops accepting
// connections at once, answers the captures it is working on (a listen wait answered through the
// shared store, as another instance's set-response would; an action chain waiting on a slow
// server), stores them, and exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../store/sqlite/index.js';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const ADMIN = 'shutdown-test-admin-key-0123';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'shutdown-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

/** Starts the service; resolves with its URL once it logged `ready`, and its exit code later. */
function startService(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null>; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', SMTP_ENABLED: 'false', DNS_ENABLED: 'false', LOG_FORMAT: 'text', ADMIN_API_KEY: ADMIN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready page=http:\/\/localhost:(\d+)\//.exec(out);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}`, child, exited, output: () => out });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`the service exited (${code}) before it was ready:\n${out}`)));
  });
}

async function api(url: string, method: string, p: string, json?: unknown): Promise<any> {
  const res = await fetch(url + p, { method, headers: { 'Api-Key': ADMIN, 'Content-Type': 'application/json' }, body: json === undefined ? undefined : JSON.stringify(json) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('SIGTERM', () => {
  it('refuses new connections, answers and stores the captures in flight, and exits 0', { timeout: 90_000 }, async () => {
    // A slow server the action chain calls: it answers only when told to.
    let slowArrived!: () => void;
    const arrived = new Promise<void>((r) => (slowArrived = r));
    let answerSlow!: () => void;
    const slowAnswer = new Promise<void>((r) => (answerSlow = r));
    const slow = http.createServer((_req, res) => {
      slowArrived();
      void slowAnswer.then(() => res.end('slow answer'));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = `http://127.0.0.1:${(slow.address() as net.AddressInfo).port}/`;

    const dataDir = path.join(tmp, 'data');
    const svc = await startService({ DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '20000' });
    try {
      const port = Number(new URL(svc.url).port);
      const waiting = await api(svc.url, 'POST', '/token', { listen: 10 });
      const chained = await api(svc.url, 'POST', '/token', { actions: true, default_content: 'chain done' });
      await api(svc.url, 'POST', `/token/${chained.uuid}/actions`, { type: 'send_request', parameters: { url: slowUrl, variable_name: 'slow' } });

      // A capture waiting for its set-response, stored before it waits.
      const listenAnswer = fetch(`${svc.url}/${waiting.uuid}`, { method: 'POST', body: 'waits' });
      const waitingUuid = await until(async () => (await api(svc.url, 'GET', `/token/${waiting.uuid}/requests`)).data[0]?.uuid as string | undefined, 'the listen capture');
      // A capture whose action chain is waiting on the slow server, not stored yet.
      const chainAnswer = fetch(`${svc.url}/${chained.uuid}`, { method: 'POST', body: 'chained' });
      await arrived;

      svc.child.kill('SIGTERM');
      await until(async () => ((await refused(port)) ? true : undefined), 'new connections to be refused', 5000);
      // Answers come well after SIGTERM (longer than the 2 s connections used to get).
      await new Promise((r) => setTimeout(r, 3000));

      // The set-response reaches the waiting capture through the shared store, as from another instance.
      const other = createSqliteStore(path.join(dataDir, 'capture.sqlite'));
      try {
        const content = Buffer.from('set while stopping').toString('base64');
        expect(await other.listeners.respond(waiting.uuid, waitingUuid, { status: 201, content, headers: { 'X-Set': 'yes' } }, Date.now())).toBe(true);
      } finally {
        await other.close();
      }
      const listened = await listenAnswer;
      expect(listened.status).toBe(201);
      expect(listened.headers.get('x-set')).toBe('yes');
      expect(await listened.text()).toBe('set while stopping');

      answerSlow();
      const chainedRes = await chainAnswer;
      expect(chainedRes.status).toBe(200);
      expect(await chainedRes.text()).toBe('chain done');

      expect(await svc.exited).toBe(0);
      expect(svc.output()).toMatch(/shutting down signal=SIGTERM/);

      // Both captures are in the database the service closed.
      const store = createSqliteStore(path.join(dataDir, 'capture.sqlite'));
      try {
        const page = { page: 1, perPage: 10, sorting: 'oldest' as const };
        const chainedStored = await store.requests.list(chained.uuid, page);
        expect(chainedStored.total).toBe(1);
        expect(chainedStored.items[0]!.custom_action_output.join('\n')).not.toMatch(/error/i);
        expect((await store.requests.list(waiting.uuid, page)).total).toBe(1);
      } finally {
        await store.close();
      }
    } finally {
      slow.close();
      slow.closeAllConnections();
    }
  });
});
