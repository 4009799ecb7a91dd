import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, testConfig } from '../config.js';
import { StartupError } from '../errors.js';
import { runServiceProcess } from '../../test/helpers/service-process.js';
import { canMountTmpfs, mountTmpfs, NO_TMPFS } from '../../test/helpers/tmpfs.js';
import type { ListenFailure, PortSetting, Transport } from '../net/listen.js';
import { explainStartupError, prepareDataDir, readyFields } from './startup.js';

const mountable = canMountTmpfs();

const tmp = mkdtempSync(path.join(os.tmpdir(), 'startup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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
  const config = testConfig({ PORT: '8084', SMTP_PORT: '2525', DNS_PORT: '5300' });
  /** What listenOn (core/net/listen.ts) rejects with: Node's error, marked with the setting. */
  const listenError = (setting: PortSetting, port: number, code = 'EADDRINUSE', transport: Transport = 'tcp'): ListenFailure =>
    Object.assign(new Error(`${transport === 'udp' ? 'bind' : 'listen'} ${code} 127.0.0.1:${port}`), { code, syscall: transport === 'udp' ? 'bind' : 'listen', port, setting, transport });

  it('a port in use names its setting and a free alternative, for every listener', async () => {
    const e = await explainStartupError(listenError('PORT', 8084), config);
    expect(e?.message).toMatch(/^PORT=8084 is already in use by another process: stop that process, or start with PORT=\d+ \(free right now\)\.$/);
    expect((await explainStartupError(listenError('SMTP_PORT', 2525), config))?.message).toMatch(
      /^SMTP_PORT=2525 is already in use by another process: stop that process, or start with SMTP_PORT=\d+ \(free right now\); SMTP_PORT=0 picks any free port and SMTP_ENABLED=false runs without the SMTP server\.$/,
    );
    expect((await explainStartupError(listenError('DNS_PORT', 5300, 'EADDRINUSE', 'udp'), config))?.message).toMatch(/^DNS_PORT=5300 \(UDP\) is already in use .* DNS_PORT=\d+ \(free right now\); .*DNS_ENABLED=false/);
    expect((await explainStartupError(listenError('DNS_PORT', 5300), config))?.message).toMatch(/^DNS_PORT=5300 \(TCP\) is already in use/);
  });

  it('names the setting that chose the port, not the one whose value matches', async () => {
    // Two settings on one port: the error says which listener failed.
    const same = { ...config, SMTP_PORT: 8084 };
    expect((await explainStartupError(listenError('SMTP_PORT', 8084), same))?.message).toMatch(/^SMTP_PORT=8084 /);
  });

  it('a privileged port says so', async () => {
    expect((await explainStartupError(listenError('PORT', 80, 'EACCES'), { ...config, PORT: 80 }))?.message).toMatch(/PORT=80: .*below 1024/);
    expect((await explainStartupError(listenError('DNS_PORT', 53, 'EACCES', 'udp'), { ...config, DNS_PORT: 53 }))?.message).toMatch(/^DNS_PORT=53 \(UDP\): .*below 1024.*docs\/email-dns\.md/);
  });

  it('any other listen failure is one sentence too', async () => {
    expect((await explainStartupError(listenError('SMTP_PORT', 2525, 'EINVAL'), config))?.message).toMatch(/^SMTP_PORT=2525: cannot listen on HOST=\S+ \(EINVAL\)/);
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
    const r = await runServiceProcess({ DATA_DIR: path.join(tmp, 'ready') }, /INFO {2}ready page=.*\n/);
    expect(r.out).toMatch(/INFO {2}ready page=http:\/\/localhost:\d+\/ api=http:\/\/localhost:\d+ data="SQLite \S+capture\.sqlite" admin=/);
    expect(r.code).toBe(0);
  });

  it('a port in use exits 2 with one sentence naming PORT', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const r = await runServiceProcess({ DATA_DIR: path.join(tmp, 'port'), HOST: '127.0.0.1', PORT: String(port) });
      expect(r.code).toBe(2);
      expect(r.out).toMatch(new RegExp(`cannot start: PORT=${port} is already in use by another process`));
      expect(r.out).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('an SMTP port in use exits 2 with one sentence naming SMTP_PORT and a free port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const r = await runServiceProcess({ DATA_DIR: path.join(tmp, 'smtp-port'), HOST: '127.0.0.1', SMTP_PORT: String(port) });
      expect(r.code).toBe(2);
      expect(r.out).toMatch(new RegExp(`^cannot start: SMTP_PORT=${port} is already in use by another process: stop that process, or start with SMTP_PORT=\\d+ \\(free right now\\);[^\\n]*\\.\\n$`, 'm'));
      expect(r.out).not.toMatch(/fatal|\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('a DNS port in use (UDP) exits 2 with one sentence naming DNS_PORT and a free port', async () => {
    const taken = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    const port = taken.address().port;
    try {
      const r = await runServiceProcess({ DATA_DIR: path.join(tmp, 'dns-port'), HOST: '127.0.0.1', DNS_PORT: String(port) });
      expect(r.code).toBe(2);
      expect(r.out).toMatch(new RegExp(`^cannot start: DNS_PORT=${port} \\(UDP\\) is already in use by another process: stop that process, or start with DNS_PORT=\\d+ \\(free right now\\);[^\\n]*\\.\\n$`, 'm'));
      expect(r.out).not.toMatch(/fatal|\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('DATA_DIR under /proc exits 2 within seconds, naming DATA_DIR', async () => {
    const r = await runServiceProcess({ DATA_DIR: '/proc/foo' });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/cannot start: DATA_DIR=\/proc\/foo cannot be created/);
    expect(r.ms).toBeLessThan(60_000); // tsx start-up included; prepareDataDir alone is checked above (< 1 s)
  });

  it('unreadable TLS files exit 2 naming the setting', async () => {
    const r = await runServiceProcess({ DATA_DIR: path.join(tmp, 'tls'), SMTP_TLS_CERT: path.join(tmp, 'missing-cert.pem'), SMTP_TLS_KEY: path.join(tmp, 'missing-key.pem') });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/cannot start: SMTP_TLS_CERT=.*missing-cert\.pem cannot be read \(ENOENT\)/);
  });

  it('a TLS file that is not PEM exits 2 naming both settings', async () => {
    const junk = path.join(tmp, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    const r = await runServiceProcess({ DATA_DIR: path.join(tmp, 'tls2'), SMTP_TLS_CERT: junk, SMTP_TLS_KEY: junk });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/cannot start: SMTP_TLS_CERT=.* \/ SMTP_TLS_KEY=.*: not a usable PEM certificate and private key pair/);
  });
});
