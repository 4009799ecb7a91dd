// The FTP actions against a real ftp-srv server on a loopback port, plain and explicit FTPS.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { runAction, validateParams } from '@capture/sdk/testing';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import type { Network } from '@capture/sdk';
import { startTestServer } from '../../../test/helpers/server.js';
import plugin from '../src/index.js';
import { ftpDownload } from '../src/ftp-download.js';
import { ftpUpload } from '../src/ftp-upload.js';
import { selfSignedCert, startFtpServer, type TestFtpServer } from './ftp-server.js';

const HOST = 'ftp.example.test';
const cert = selfSignedCert(HOST);

let plain: TestFtpServer;
let secure: TestFtpServer | undefined;

function loopbackNet(): Network & { asked: string[] } {
  const asked: string[] = [];
  return { asked, resolve: async (host) => (asked.push(host), { address: '127.0.0.1', family: 4 }) };
}

const refusingNet: Network = {
  resolve: async (host) => {
    throw new Error(`Outbound request refused: ${host} resolves to 169.254.169.254, link-local addresses are not allowed`);
  },
};

beforeAll(async () => {
  plain = await startFtpServer({ bob: 'pa55' });
  if (cert) secure = await startFtpServer({ bob: 'pa55' }, cert);
});

afterAll(async () => {
  await plain?.close();
  await secure?.close();
});

async function settled(s: TestFtpServer): Promise<number> {
  for (let i = 0; i < 50 && s.open() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return s.open();
}

const conn = (s = plain) => ({ host: HOST, port: s.port, username: 'bob', password: 'pa55' });

describe('plugin', () => {
  it('provides ftp_upload and ftp_download', () => {
    expect(plugin.actions.map((a) => a.type)).toEqual(['ftp_upload', 'ftp_download']);
  });
});

describe('ftp_upload and ftp_download', () => {
  it('round-trips content byte for byte, connecting to the resolved address', async () => {
    const content = 'ünïcode ✓ {"a":1}\r\n' + 'y'.repeat(300_000);
    const netStub = loopbackNet();
    const up = await runAction(ftpUpload, { ...conn(), path: 'in/../body.json', content: '$request.content$', passive: true }, { request: { content }, services: { net: netStub } });
    expect(up.errors).toEqual([]);
    expect(up.output).toEqual([`Uploaded ${Buffer.byteLength(content)} bytes to in/../body.json on bob@${HOST}`]);
    expect(netStub.asked).toEqual([HOST]);
    expect(fs.readFileSync(path.join(plain.root, 'body.json')).equals(Buffer.from(content))).toBe(true);

    const down = await runAction(ftpDownload, { ...conn(), path: '/body.json', variable_name: 'got' }, { services: { net: loopbackNet() } });
    expect(down.errors).toEqual([]);
    expect(down.vars.got).toBe(content);
    expect(await settled(plain)).toBe(0);
  });

  it('uploads bytes and downloads them back byte-exactly (every byte value)', async () => {
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const up = await runAction(ftpUpload, { ...conn(), path: 'all.bin', content: '$bin$' }, { vars: { bin: bytesText(allBytes) }, services: { net: loopbackNet() } });
    expect(up.errors).toEqual([]);
    expect(up.output).toEqual([`Uploaded 256 bytes to all.bin on bob@${HOST}`]);
    expect(fs.readFileSync(path.join(plain.root, 'all.bin')).equals(allBytes)).toBe(true);

    const down = await runAction(ftpDownload, { ...conn(), path: 'all.bin', variable_name: 'file' }, { services: { net: loopbackNet() } });
    expect(down.errors).toEqual([]);
    expect(down.vars.file).toBe(bytesText(allBytes));
    expect(textBytes(down.vars.file!).equals(allBytes)).toBe(true);
  });

  it('uploads a binary request body and an uploaded file as their bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    const body = await runAction(ftpUpload, { ...conn(), path: 'body.bin', content: '$request.content$' }, { rawBody: png, services: { net: loopbackNet() } });
    expect(body.errors).toEqual([]);
    expect(fs.readFileSync(path.join(plain.root, 'body.bin')).equals(png)).toBe(true);
    const file = await runAction(
      ftpUpload,
      { ...conn(), path: '$request.file.img.filename$', content: '$request.file.img.content$' },
      { request: { files: [{ id: 'f', name: 'img', filename: 'image.png', size: png.length, content_type: 'image/png', content: png }] }, services: { net: loopbackNet() } },
    );
    expect(file.errors).toEqual([]);
    expect(fs.readFileSync(path.join(plain.root, 'image.png')).equals(png)).toBe(true);
  });

  it('downloads into ftp_download by default', async () => {
    fs.writeFileSync(path.join(plain.root, 'hello.txt'), 'hi there');
    const r = await runAction(ftpDownload, { ...conn(), port: String(plain.port), path: 'hello.txt' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ ftp_download: 'hi there' });
  });

  it('keeps the first 10 MiB of a larger file', async () => {
    fs.writeFileSync(path.join(plain.root, 'big.bin'), Buffer.alloc(10 * 1024 * 1024 + 3, 'b'));
    const r = await runAction(ftpDownload, { ...conn(), path: 'big.bin', variable_name: 'big' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([]);
    expect(r.vars.big).toHaveLength(10 * 1024 * 1024);
    expect(r.output).toContain('The file is larger than 10 MiB: only its first 10 MiB were kept');
  });

  it('active mode (passive: false) uploads and downloads through a server that refuses passive mode', async () => {
    const activeOnly = await startFtpServer({ bob: 'pa55' }, undefined, { passive: false });
    try {
      const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
      const up = await runAction(ftpUpload, { ...conn(activeOnly), path: 'active.bin', content: '$bin$', passive: 'false' }, { vars: { bin: bytesText(bytes) }, services: { net: loopbackNet() } });
      expect(up.errors).toEqual([]);
      expect(up.output).toEqual([`Uploaded 70000 bytes to active.bin on bob@${HOST} (active mode)`]);
      expect(fs.readFileSync(path.join(activeOnly.root, 'active.bin')).equals(bytes)).toBe(true);

      const down = await runAction(ftpDownload, { ...conn(activeOnly), path: 'active.bin', variable_name: 'got', passive: false }, { services: { net: loopbackNet() } });
      expect(down.errors).toEqual([]);
      expect(textBytes(down.vars.got!).equals(bytes)).toBe(true);
      expect(down.output[0]).toMatch(/\(active mode\) into \$got\$$/);

      // The same server in passive mode fails: active mode really was used above.
      const passive = await runAction(ftpDownload, { ...conn(activeOnly), path: 'active.bin' }, { services: { net: loopbackNet() } });
      expect(passive.errors).toHaveLength(1);
      expect(passive.errors[0]).toMatch(/502/);

      // A missing file in active mode is the same clear error as in passive mode.
      const missing = await runAction(ftpDownload, { ...conn(activeOnly), path: 'nope.txt', passive: false }, { services: { net: loopbackNet() } });
      expect(missing.errors[0]).toMatch(/^No such file or not readable: nope.txt \(the server said 55\d /);
      expect(await settled(activeOnly)).toBe(0);
    } finally {
      await activeOnly.close();
    }
  });

  it('active mode with ssl is refused with a clear error', async () => {
    const r = await runAction(ftpUpload, { ...conn(), path: 'x.txt', content: 'a', passive: false, ssl: true }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual(['Active mode (passive: false) is for plain FTP only; with ssl use passive mode']);
  });

  it('reports a missing file', async () => {
    const r = await runAction(ftpDownload, { ...conn(), path: 'missing.txt' }, { services: { net: loopbackNet() } });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^No such file or not readable: missing.txt \(the server said 55\d /);
    expect(r.vars.ftp_download).toBeUndefined();
  });

  it('reports a wrong password', async () => {
    const r = await runAction(ftpUpload, { ...conn(), password: 'nope', path: 'x.txt', content: 'x' }, { services: { net: loopbackNet() } });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(new RegExp(`^Authentication failed for bob@${HOST}:${plain.port}: the server said 530 `));
    expect(fs.existsSync(path.join(plain.root, 'x.txt'))).toBe(false);
  });

  it('reports a refused connection', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await runAction(ftpDownload, { ...conn(), port, path: 'a' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([`Connection refused by bob@${HOST}:${port}`]);
  });

  it('reports a server that never answers as a timeout when the time budget is spent', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const r = await runAction(ftpDownload, { ...conn(), port: (silent.address() as net.AddressInfo).port, path: 'a' }, { services: { net: loopbackNet() }, budgetMs: 500 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(r.errors[0]).toMatch(/time budget/);
    } finally {
      silent.close();
    }
  });

  it('does not connect when the outbound policy refuses the host', async () => {
    const before = plain.logins.length;
    const r = await runAction(ftpUpload, { ...conn(), path: 'refused.txt', content: 'x' }, { services: { net: refusingNet } });
    expect(r.errors).toEqual([`Outbound request refused: ${HOST} resolves to 169.254.169.254, link-local addresses are not allowed`]);
    expect(plain.logins.length).toBe(before);
  });

  it('reports a server without FTPS when ssl is asked for', async () => {
    const r = await runAction(ftpUpload, { ...conn(), ssl: true, path: 'x.txt', content: 'x' }, { services: { net: loopbackNet() } });
    expect(r.errors[0]).toMatch(new RegExp(`^bob@${HOST}:${plain.port} does not offer FTPS \\(AUTH TLS was refused: 502`));
  });
});

describe.skipIf(!cert)('FTPS (explicit TLS)', () => {
  it('uploads and downloads over TLS, sending the host name as SNI', async () => {
    const s = secure!;
    const up = await runAction(ftpUpload, { ...conn(s), ssl: true, skip_ssl_verification: true, path: 'tls.txt', content: 'over tls ✓' }, { services: { net: loopbackNet() } });
    expect(up.errors).toEqual([]);
    expect(up.output[0]).toMatch(/\(FTPS\)$/);
    expect(fs.readFileSync(path.join(s.root, 'tls.txt'), 'utf8')).toBe('over tls ✓');
    const down = await runAction(ftpDownload, { ...conn(s), ssl: 'true', skip_ssl_verification: 'yes', path: 'tls.txt' }, { services: { net: loopbackNet() } });
    expect(down.errors).toEqual([]);
    expect(down.vars.ftp_download).toBe('over tls ✓');
    expect(s.servernames).toEqual([HOST, HOST]);
  });

  it('transfers bytes byte-exactly over TLS', async () => {
    const s = secure!;
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i));
    const tls = { ...conn(s), ssl: true, skip_ssl_verification: true };
    const up = await runAction(ftpUpload, { ...tls, path: 'tls.bin', content: '$bin$' }, { vars: { bin: bytesText(allBytes) }, services: { net: loopbackNet() } });
    expect(up.errors).toEqual([]);
    expect(fs.readFileSync(path.join(s.root, 'tls.bin')).equals(allBytes)).toBe(true);
    const down = await runAction(ftpDownload, { ...tls, path: 'tls.bin' }, { services: { net: loopbackNet() } });
    expect(textBytes(down.vars.ftp_download!).equals(allBytes)).toBe(true);
  });

  it('refuses a self-signed certificate unless skip_ssl_verification', async () => {
    const s = secure!;
    const before = s.logins.length;
    const r = await runAction(ftpUpload, { ...conn(s), ssl: true, path: 'no.txt', content: 'x' }, { services: { net: loopbackNet() } });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(new RegExp(`^The TLS certificate of bob@${HOST}:${s.port} is not trusted \\(.*\\); set skip_ssl_verification to accept it$`));
    expect(s.logins.length).toBe(before);
  });
});

describe('parameters', () => {
  it('accepts the documented parameters', () => {
    expect(validateParams(ftpUpload, { host: 'example.com', port: 21, username: 'u', password: 'p', path: 'a.txt', content: 'c', ssl: false, passive: true })).toMatchObject({ port: 21 });
    expect(validateParams(ftpDownload, { host: 'example.com', username: 'u', password: '$ftp_password$', path: 'a.txt', variable_name: 'v' })).toBeTruthy();
  });

  it('refuses missing or bad ones, naming the field', () => {
    expect(() => validateParams(ftpUpload, { host: 'h', username: 'u', password: 'p', path: 'a' })).toThrow(/parameters.content/);
    expect(() => validateParams(ftpUpload, { host: 'h', username: 'u', path: 'a', content: '' })).toThrow(/parameters.password/);
    expect(() => validateParams(ftpDownload, { username: 'u', password: 'p', path: 'a' })).toThrow(/parameters.host/);
    expect(() => validateParams(ftpDownload, { host: 'h', username: 'u', password: 'p', path: '' })).toThrow(/parameters.path/);
    expect(() => validateParams(ftpDownload, { host: 'h', port: 0, username: 'u', password: 'p', path: 'a' })).toThrow(/parameters.port/);
    expect(() => validateParams(ftpDownload, { host: 'h', username: 'u', password: 'p', path: 'a', ssl: 'maybe' })).toThrow(/parameters.ssl/);
  });
});

describe('active mode end to end through the running service', () => {
  it("a capture's ftp_upload in active mode stores the body on a server that allows only active mode", async () => {
    const s = await startTestServer({}, { modules: [createActionsModule()] });
    const activeOnly = await startFtpServer({ bob: 'pa55' }, undefined, { passive: false });
    try {
      const t = await s.token({ actions: true });
      const created = await s.call('POST', `/token/${t.uuid}/actions`, {
        json: { type: 'ftp_upload', order: 1, parameters: { host: '127.0.0.1', port: activeOnly.port, username: 'bob', password: 'pa55', path: 'hook.txt', content: '$request.content$', passive: false } },
      });
      expect(created.status, created.text).toBe(200);
      expect((await s.call('POST', `/${t.uuid}`, { body: 'captured body' })).status).toBe(200);
      const [req] = (await s.call('GET', `/token/${t.uuid}/requests`)).data.data;
      expect(req.custom_action_errors).toEqual([]);
      expect(req.custom_action_output[0]).toMatch(/Uploaded 13 bytes to hook.txt on bob@127\.0\.0\.1 \(active mode\)/);
      expect(fs.readFileSync(path.join(activeOnly.root, 'hook.txt'), 'utf8')).toBe('captured body');
    } finally {
      await activeOnly.close();
      await s.close();
    }
  });
});
