// The SSH actions against a real ssh2 server on a loopback port.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryProviders, runAction, validateParams } from '@capture/sdk/testing';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import type { Network } from '@capture/sdk';
import plugin from '../src/index.js';
import { sftpDownload } from '../src/sftp-download.js';
import { sftpUpload } from '../src/sftp-upload.js';
import { generateEd25519, sshKey } from '../src/ssh-key.js';
import { sshRunCommand } from '../src/ssh-run-command.js';
import { startSshServer, type TestSshServer } from './ssh-server.js';

let server: TestSshServer;
let keys: { credentials: { private_key: string }; settings?: Record<string, unknown> };
let strangerKeys: typeof keys;

/** Resolves every name to the loopback address and records the names asked for. */
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
  keys = await sshKey.generate!();
  strangerKeys = await sshKey.generate!();
  server = await startSshServer([
    { username: 'alice', password: 's3cret' },
    { username: 'deploy', publicKeys: [String(keys.settings!.public_key)] },
  ]);
});

afterAll(async () => {
  await server?.close();
});

const conn = () => ({ host: 'ssh.example.test', port: server.port, username: 'alice', password: 's3cret' });
const providers = () =>
  memoryProviders([
    { id: '7', type: 'ssh_key', credentials: keys.credentials },
    { id: '8', type: 'ssh_key', credentials: strangerKeys.credentials },
    { id: '9', type: 'aws', credentials: { key: 'x' } },
  ]);

async function settled(): Promise<number> {
  for (let i = 0; i < 50 && server.open() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return server.open();
}

describe('plugin', () => {
  it('provides the three actions and the ssh_key provider', () => {
    expect(plugin.actions.map((a) => a.type)).toEqual(['ssh_run_command', 'sftp_upload', 'sftp_download']);
    expect(plugin.providers?.map((p) => p.type)).toEqual(['ssh_key']);
  });

  it('ssh_key generates an ed25519 pair in OpenSSH format', () => {
    expect(keys.credentials.private_key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(keys.settings!.public_key).toMatch(/^ssh-ed25519 AAAA\S+/);
    expect(sshKey.credentials.safeParse(keys.credentials).success).toBe(true);
    expect(sshKey.settings!.safeParse(keys.settings).success).toBe(true);
    expect(strangerKeys.settings!.public_key).not.toEqual(keys.settings!.public_key);
  });

  it('never hands out a pair ssh2 cannot parse (its generator drops a leading zero byte of one in 256)', async () => {
    for (let i = 0; i < 2000; i++) {
      const pair = await generateEd25519();
      expect(ssh2.utils.parseKey(pair.private)).not.toBeInstanceOf(Error);
      // ssh-ed25519 public keys: 4 + 11 bytes of type, 4 + 32 of key.
      expect(Buffer.from(pair.public.split(' ')[1]!, 'base64')).toHaveLength(51);
    }
  });
});

describe('ssh_run_command', () => {
  it('sets stdout, stderr and the exit code, connecting to the resolved address', async () => {
    const netStub = loopbackNet();
    const r = await runAction(sshRunCommand, { ...conn(), command: 'echo hello $request.method$\nwarn careful\nexit 3' }, { services: { net: netStub } });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ 'ssh.stdout': 'hello POST\n', 'ssh.stderr': 'careful\n', 'ssh.exit': '3' });
    expect(netStub.asked).toEqual(['ssh.example.test']);
    expect(server.commands.at(-1)).toBe('echo hello POST\nwarn careful\nexit 3');
    expect(r.output[0]).toContain('exit code 3');
    expect(r.output[0]).toContain(`host key ${server.fingerprint} (not verified`);
    expect(await settled()).toBe(0);
  });

  it('uses variable_name as the prefix and reports 0 for success', async () => {
    const r = await runAction(sshRunCommand, { ...conn(), command: 'echo one\r\necho two', variable_name: '$out$' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ 'out.stdout': 'one\ntwo\n', 'out.stderr': '', 'out.exit': '0' });
  });

  it('reports an unknown command through stderr and exit code 127', async () => {
    const r = await runAction(sshRunCommand, { ...conn(), command: 'frobnicate' }, { services: { net: loopbackNet() } });
    expect(r.vars).toMatchObject({ 'ssh.stderr': 'sh: frobnicate: command not found\n', 'ssh.exit': '127' });
  });

  it('logs in with the key pair of an ssh_key provider', async () => {
    const r = await runAction(
      sshRunCommand,
      { host: 'ssh.example.test', port: String(server.port), username: 'deploy', provider_id: 7, command: 'echo by key' },
      { services: { net: loopbackNet(), providers: providers() } },
    );
    expect(r.errors).toEqual([]);
    expect(r.vars['ssh.stdout']).toBe('by key\n');
  });

  it('refuses a key that is not authorized', async () => {
    const r = await runAction(sshRunCommand, { host: 'ssh.example.test', port: server.port, username: 'deploy', provider_id: '8', command: 'echo no' }, { services: { net: loopbackNet(), providers: providers() } });
    expect(r.errors).toEqual([`Authentication failed for deploy@ssh.example.test:${server.port} (tried publickey)`]);
  });

  it('refuses a provider of another type', async () => {
    const r = await runAction(sshRunCommand, { host: 'ssh.example.test', port: server.port, username: 'deploy', provider_id: '9', command: 'echo no' }, { services: { net: loopbackNet(), providers: providers() } });
    expect(r.errors).toEqual(['Provider 9 is a aws account, not ssh_key']);
  });

  it('reports a wrong password as an authentication failure and closes the connection', async () => {
    const r = await runAction(sshRunCommand, { ...conn(), password: 'wrong', command: 'echo x' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([`Authentication failed for alice@ssh.example.test:${server.port} (tried password)`]);
    expect(r.vars['ssh.stdout']).toBeUndefined();
    expect(await settled()).toBe(0);
  });

  it('needs a password or a provider', async () => {
    const r = await runAction(sshRunCommand, { host: 'h', username: 'alice', command: 'echo x' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual(['Give a password or an SSH key provider (provider_id) to log in with']);
  });

  it('reports a refused connection', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await runAction(sshRunCommand, { ...conn(), port, command: 'echo x' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([`Connection refused by alice@ssh.example.test:${port}`]);
  });

  it('does not connect when the outbound policy refuses the host', async () => {
    const before = server.commands.length;
    const r = await runAction(sshRunCommand, { ...conn(), command: 'echo x' }, { services: { net: refusingNet } });
    expect(r.errors).toEqual(['Outbound request refused: ssh.example.test resolves to 169.254.169.254, link-local addresses are not allowed']);
    expect(server.commands.length).toBe(before);
  });

  it('requires the pinned host key when host_key is set', async () => {
    const good = await runAction(sshRunCommand, { ...conn(), host_key: server.fingerprint, command: 'echo pinned' }, { services: { net: loopbackNet() } });
    expect(good.errors).toEqual([]);
    expect(good.output[0]).toContain(`host key ${server.fingerprint} (verified)`);
    const bad = await runAction(sshRunCommand, { ...conn(), host_key: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', command: 'echo x' }, { services: { net: loopbackNet() } });
    expect(bad.errors).toEqual([`Host key of alice@ssh.example.test:${server.port} is ${server.fingerprint}, not the expected SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA: connection refused`]);
  });

  it('cuts each stream at 1 MiB and says so', async () => {
    const r = await runAction(sshRunCommand, { ...conn(), command: `flood ${1024 * 1024 + 10}` }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([]);
    expect(r.vars['ssh.stdout']).toHaveLength(1024 * 1024);
    expect(r.output).toContain(`stdout was cut to its first 1 MiB (${1024 * 1024 + 10} bytes received)`);
  });

  it('stops and disconnects when the time budget is spent', async () => {
    const started = Date.now();
    const r = await runAction(sshRunCommand, { ...conn(), command: 'sleep 5\necho late' }, { services: { net: loopbackNet() }, budgetMs: 800 });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(r.errors[0]).toMatch(/time budget/);
    expect(r.vars['ssh.stdout']).toBeUndefined();
    expect(await settled()).toBe(0);
  });
});

describe('sftp_upload and sftp_download', () => {
  it('round-trips content byte for byte', async () => {
    const content = 'héllo wörld ✓\n\u0000binary-ish\r\n' + 'x'.repeat(200_000);
    const up = await runAction(sftpUpload, { ...conn(), path: 'upload/../body.txt', content: '$request.content$' }, { request: { content }, services: { net: loopbackNet() } });
    expect(up.errors).toEqual([]);
    expect(up.output[0]).toMatch(new RegExp(`^Uploaded ${Buffer.byteLength(content)} bytes to upload/../body.txt`));
    expect(fs.readFileSync(path.join(server.root, 'body.txt')).equals(Buffer.from(content))).toBe(true);

    const down = await runAction(sftpDownload, { ...conn(), path: 'body.txt', variable_name: 'file' }, { services: { net: loopbackNet() } });
    expect(down.errors).toEqual([]);
    expect(down.vars.file).toBe(content);
    expect(await settled()).toBe(0);
  });

  it('uploads bytes and downloads them back byte-exactly (every byte value)', async () => {
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const up = await runAction(sftpUpload, { ...conn(), path: 'all.bin', content: '$bin$' }, { vars: { bin: bytesText(allBytes) }, services: { net: loopbackNet() } });
    expect(up.errors).toEqual([]);
    expect(up.output[0]).toMatch(/^Uploaded 256 bytes to all.bin/);
    expect(fs.readFileSync(path.join(server.root, 'all.bin')).equals(allBytes)).toBe(true);

    const down = await runAction(sftpDownload, { ...conn(), path: 'all.bin', variable_name: 'file' }, { services: { net: loopbackNet() } });
    expect(down.errors).toEqual([]);
    expect(down.vars.file).toBe(bytesText(allBytes));
    expect(textBytes(down.vars.file!).equals(allBytes)).toBe(true);
    expect(down.output[0]).toMatch(/^Downloaded all.bin \(256 bytes\)/);
  });

  it('uploads a binary request body and an uploaded file as their bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    const body = await runAction(sftpUpload, { ...conn(), path: 'body.bin', content: '$request.content$' }, { rawBody: png, services: { net: loopbackNet() } });
    expect(body.errors).toEqual([]);
    expect(fs.readFileSync(path.join(server.root, 'body.bin')).equals(png)).toBe(true);
    const file = await runAction(
      sftpUpload,
      { ...conn(), path: '$request.file.img.filename$', content: '$request.file.img.content$' },
      { request: { files: [{ id: 'f', name: 'img', filename: 'image.png', size: png.length, content_type: 'image/png', content: png }] }, services: { net: loopbackNet() } },
    );
    expect(file.errors).toEqual([]);
    expect(fs.readFileSync(path.join(server.root, 'image.png')).equals(png)).toBe(true);
  });

  it('replaces an existing file', async () => {
    fs.writeFileSync(path.join(server.root, 'short.txt'), 'a much longer previous content');
    const up = await runAction(sftpUpload, { ...conn(), path: '/short.txt', content: 'new' }, { services: { net: loopbackNet() } });
    expect(up.errors).toEqual([]);
    expect(fs.readFileSync(path.join(server.root, 'short.txt'), 'utf8')).toBe('new');
  });

  it('uploads with a key from a provider', async () => {
    const ok = await runAction(sftpUpload, { host: 'h.test', port: server.port, username: 'deploy', provider_id: '7', path: 'keyed.txt', content: 'keyed' }, { services: { net: loopbackNet(), providers: providers() } });
    expect(ok.errors).toEqual([]);
    expect(fs.readFileSync(path.join(server.root, 'keyed.txt'), 'utf8')).toBe('keyed');
  });

  it('downloads into sftp_download by default and reads an empty file', async () => {
    fs.writeFileSync(path.join(server.root, 'empty.txt'), '');
    const r = await runAction(sftpDownload, { ...conn(), path: 'empty.txt' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ sftp_download: '' });
  });

  it('keeps the first 10 MiB of a larger file', async () => {
    fs.writeFileSync(path.join(server.root, 'big.bin'), Buffer.alloc(10 * 1024 * 1024 + 5, 'a'));
    const r = await runAction(sftpDownload, { ...conn(), path: 'big.bin', variable_name: 'big' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([]);
    expect(r.vars.big).toHaveLength(10 * 1024 * 1024);
    expect(r.output[1]).toBe(`The file is larger than 10 MiB (${10 * 1024 * 1024 + 5} bytes): only its first 10 MiB were kept`);
  });

  it('reports a missing file', async () => {
    const r = await runAction(sftpDownload, { ...conn(), path: 'nope/missing.txt' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual(['No such file or directory: nope/missing.txt (opening)']);
    expect(r.vars.sftp_download).toBeUndefined();
    expect(await settled()).toBe(0);
  });

  it('reports a missing directory on upload', async () => {
    const r = await runAction(sftpUpload, { ...conn(), path: 'no/such/dir/file.txt', content: 'x' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual(['No such file or directory: no/such/dir/file.txt (creating)']);
  });

  it('reports a wrong password', async () => {
    const r = await runAction(sftpDownload, { ...conn(), password: 'nope', path: 'body.txt' }, { services: { net: loopbackNet() } });
    expect(r.errors).toEqual([`Authentication failed for alice@ssh.example.test:${server.port} (tried password)`]);
  });

  it('does not connect when the outbound policy refuses the host', async () => {
    const r = await runAction(sftpUpload, { ...conn(), path: 'refused.txt', content: 'x' }, { services: { net: refusingNet } });
    expect(r.errors[0]).toMatch(/^Outbound request refused/);
    expect(fs.existsSync(path.join(server.root, 'refused.txt'))).toBe(false);
  });
});

describe('parameters', () => {
  it('accepts the documented parameters', () => {
    expect(validateParams(sshRunCommand, { provider_id: '1', host: 'example.com', port: 2222, username: 'u', command: 'ls' })).toMatchObject({ port: 2222 });
    expect(validateParams(sftpUpload, { host: 'example.com', username: 'u', password: 'p', path: 'a.txt', content: '' })).toMatchObject({ content: '' });
    expect(validateParams(sftpDownload, { host: 'example.com', port: '', username: 'u', password: 'p', path: 'a.txt', variable_name: 'f' })).toBeTruthy();
  });

  it('refuses missing or bad ones, naming the field', () => {
    expect(() => validateParams(sshRunCommand, { host: 'example.com', username: 'u', password: 'p' })).toThrow(/parameters.command/);
    expect(() => validateParams(sshRunCommand, { host: '', username: 'u', password: 'p', command: 'ls' })).toThrow(/parameters.host/);
    expect(() => validateParams(sshRunCommand, { host: 'h', port: 70000, username: 'u', password: 'p', command: 'ls' })).toThrow(/parameters.port/);
    expect(() => validateParams(sftpUpload, { host: 'h', username: 'u', password: 'p', path: 'a.txt' })).toThrow(/parameters.content/);
    expect(() => validateParams(sftpDownload, { host: 'h', username: '', password: 'p', path: 'a.txt' })).toThrow(/parameters.username/);
    expect(() => validateParams(sftpDownload, { host: 'h', username: 'u', password: 'p', path: '' })).toThrow(/parameters.path/);
  });

  it('reports a port that is bad after variable replacement as an action error', async () => {
    const r = await runAction(sshRunCommand, { ...conn(), port: '$p$', command: 'echo' }, { vars: { p: 'twenty-two' } });
    expect(r.errors[0]).toMatch(/port/);
  });
});
