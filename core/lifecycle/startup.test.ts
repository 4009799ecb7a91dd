import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, testConfig } from '../config.js';
import { StartupError } from '../errors.js';
import { canMountTmpfs, mountTmpfs, NO_TMPFS } from '../../test/helpers/tmpfs.js';
import { explainStartupError, prepareDataDir, readyFields } from './startup.js';

const mountable = canMountTmpfs();

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'startup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs core/main.ts with these settings until it exits or prints `until`; returns what it printed. */
function runMain(env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; out: string; ms: number }> {
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
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

describe('DATA_DIR checks', () => {
  it('creates a missing folder, nested, private to this user', () => {
    const dir = path.join(tmp, 'a', 'b', 'c');
    prepareDataDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(dir, `.write-check-${process.pid}`))).toBe(false);
  });

  it('refuses a file where the folder should be, naming DATA_DIR', () => {
    const file = path.join(tmp, 'plain-file');
    writeFileSync(file, 'x');
    expect(() => prepareDataDir(file)).toThrow(/DATA_DIR=.*plain-file is not a folder/);
    expect(() => prepareDataDir(path.join(file, 'sub'))).toThrow(StartupError);
  });

  it.skipIf(!mountable)(mountable ? 'on a full disk says so, naming DATA_DIR (SQLite could not even open its database)' : `on a full disk: ${NO_TMPFS}`, () => {
    const tmpfs = mountTmpfs(1024 * 1024)!;
    try {
      tmpfs.fill();
      expect(() => prepareDataDir(tmpfs.dir)).toThrow(new StartupError(`DATA_DIR=${tmpfs.dir} has no storage space left (ENOSPC): free some space on its file system, then start again.`));
      tmpfs.free();
      prepareDataDir(tmpfs.dir);
      expect(readdirSync(tmpfs.dir)).toEqual([]);
    } finally {
      tmpfs.unmount();
    }
  });

  it('fails at once under /proc (Node recursive mkdir would loop there forever)', () => {
    const started = Date.now();
    expect(() => prepareDataDir('/proc/capture-test/data')).toThrow(/DATA_DIR=\/proc\/capture-test\/data cannot be created/);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('start-up errors in words', () => {
  const config = testConfig({ PORT: '8084', SMTP_PORT: '2525', DNS_PORT: '5353' });
  const listenError = (port: number, code = 'EADDRINUSE') => Object.assign(new Error(`listen ${code}: address already in use :::${port}`), { code, syscall: 'listen', port });

  it('a port in use names its setting and a free alternative', async () => {
    const e = await explainStartupError(listenError(8084), config);
    expect(e?.message).toMatch(/^PORT=8084 is already in use by another process: stop that process, or start with PORT=\d+ \(free right now\)/);
    expect((await explainStartupError(listenError(2525), config))?.message).toMatch(/^SMTP_PORT=2525 .*SMTP_ENABLED=false/);
    expect((await explainStartupError(Object.assign(listenError(5353), { syscall: 'bind' }), config))?.message).toMatch(/^DNS_PORT=5353 /);
  });

  it('a privileged port says so', async () => {
    expect((await explainStartupError(listenError(80, 'EACCES'), { ...config, PORT: 80 }))?.message).toMatch(/PORT=80: .*below 1024/);
  });

  it('an unwritable database names DATA_DIR and the permission needed', async () => {
    const err = Object.assign(new Error('attempt to write a readonly database'), { name: 'SqliteError' });
    expect((await explainStartupError(err, config))?.message).toMatch(/^DATA_DIR=.*read and write permission/);
  });

  it('an unreachable MongoDB names MONGODB_URI without its password', async () => {
    const mongo = loadConfig({ MONGODB_URI: 'mongodb://app:hunter2secret@db.invalid:27017/capture' });
    const err = Object.assign(new Error('getaddrinfo ENOTFOUND db.invalid'), { name: 'MongoServerSelectionError' });
    const e = await explainStartupError(err, mongo);
    expect(e?.message).toMatch(/^MONGODB_URI=mongodb:\/\/app:\*\*\*@db\.invalid:27017\/capture: cannot use the MongoDB server/);
    expect(e?.message).not.toContain('hunter2secret');
  });

  it('anything else is left to the caller (a bug keeps its stack)', async () => {
    expect(await explainStartupError(new TypeError('x is undefined'), config)).toBeNull();
  });

  it('bad settings never print a secret', () => {
    let message = '';
    try {
      loadConfig({ SECRET_KEY: 'too-short-but-secret', ADMIN_API_KEY: 'short-admin', SMTP_RELAY_URL: 'http://u:relay-password@x' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/SECRET_KEY="<hidden>"/);
    expect(message).toMatch(/ADMIN_API_KEY="<hidden>"/);
    expect(message).not.toMatch(/too-short-but-secret|short-admin|relay-password/);
  });

  it('the ready line says where the page, API and data are, and how to set an admin key', () => {
    const f = readyFields(loadConfig({ DATA_DIR: '/srv/capture' }), 'http://127.0.0.1:8084');
    expect(f).toEqual({
      page: 'http://localhost:8084/',
      api: 'http://localhost:8084',
      data: 'SQLite /srv/capture/capture.sqlite',
      admin: expect.stringMatching(/set ADMIN_API_KEY/),
    });
  });
});

describe('the service started as `npm start` runs it', { timeout: 120_000 }, () => {
  it('prints one ready line and no stack trace', async () => {
    // Stop it only once the ready line is out (other lines may say "ready", e.g. "already").
    const r = await runMain({ DATA_DIR: path.join(tmp, 'ready') }, /INFO  ready page=.*\n/);
    expect(r.out).toMatch(/INFO  ready page=http:\/\/localhost:\d+\/ api=http:\/\/localhost:\d+ data="SQLite \S+capture\.sqlite" admin=/);
    expect(r.code).toBe(0);
  });

  it('a port in use exits 2 with one sentence naming PORT', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const r = await runMain({ DATA_DIR: path.join(tmp, 'port'), HOST: '127.0.0.1', PORT: String(port) });
      expect(r.code).toBe(2);
      expect(r.out).toMatch(new RegExp(`cannot start: PORT=${port} is already in use by another process`));
      expect(r.out).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('DATA_DIR under /proc exits 2 within seconds, naming DATA_DIR', async () => {
    const r = await runMain({ DATA_DIR: '/proc/foo' });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/cannot start: DATA_DIR=\/proc\/foo cannot be created/);
    expect(r.ms).toBeLessThan(60_000); // tsx start-up included; prepareDataDir alone is checked above (< 1 s)
  });

  it('unreadable TLS files exit 2 naming the setting', async () => {
    const r = await runMain({ DATA_DIR: path.join(tmp, 'tls'), SMTP_TLS_CERT: path.join(tmp, 'missing-cert.pem'), SMTP_TLS_KEY: path.join(tmp, 'missing-key.pem') });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/cannot start: SMTP_TLS_CERT=.*missing-cert\.pem cannot be read \(ENOENT\)/);
  });

  it('a TLS file that is not PEM exits 2 naming both settings', async () => {
    const junk = path.join(tmp, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    const r = await runMain({ DATA_DIR: path.join(tmp, 'tls2'), SMTP_TLS_CERT: junk, SMTP_TLS_KEY: junk });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/cannot start: SMTP_TLS_CERT=.* \/ SMTP_TLS_KEY=.*: not a usable PEM certificate and private key pair/);
  });
});
