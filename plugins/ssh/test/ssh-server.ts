// A real SSH server on a loopback port for the tests: password and public-key logins, an exec
// handler that interprets a tiny command language, and an SFTP subsystem over a temp directory.
//
// Commands, one per line (the exit code is the last command's, as with a shell):
//   echo <text>     <text> and a newline on stdout
//   warn <text>     <text> and a newline on stderr
//   exit <n>        stops with exit code n
//   sleep <s>       waits s seconds
//   flood <n>       n bytes of "x" on stdout
//   anything else   "sh: <cmd>: command not found" on stderr, code 127
import { timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ssh2 from 'ssh2';
import type { AuthContext, Connection, ServerChannel, SFTPWrapper } from 'ssh2';
import { generateEd25519 } from '../src/ssh-key.js';

const { Server, utils } = ssh2;
const { OPEN_MODE, STATUS_CODE } = utils.sftp;

export interface TestUser {
  username: string;
  password?: string;
  /** authorized_keys lines. */
  publicKeys?: string[];
}

export interface TestSshServer {
  port: number;
  /** The SFTP root (also the login directory). */
  root: string;
  /** `SHA256:...` of the host key. */
  fingerprint: string;
  /** Connections not closed yet. */
  open(): number;
  /** Commands received by exec. */
  commands: string[];
  close(): Promise<void>;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkKey(ctx: Extract<AuthContext, { method: 'publickey' }>, lines: string[]): boolean {
  for (const line of lines) {
    const key = utils.parseKey(line);
    if (key instanceof Error) continue;
    const k = Array.isArray(key) ? key[0]! : key;
    if (ctx.key.algo !== k.type || !ctx.key.data.equals(k.getPublicSSH())) continue;
    if (!ctx.signature) return true; // the client asks whether the key would do
    return k.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true;
  }
  return false;
}

async function runScript(script: string, stream: ServerChannel): Promise<number> {
  let code = 0;
  for (const line of script.split('\n')) {
    const [cmd = '', ...rest] = line.trim().split(/\s+/);
    const arg = line.trim().slice(cmd.length).trimStart();
    if (!cmd) continue;
    if (cmd === 'echo') (stream.write(arg + '\n'), (code = 0));
    else if (cmd === 'warn') (stream.stderr.write(arg + '\n'), (code = 0));
    else if (cmd === 'exit') return Number(rest[0] ?? 0);
    else if (cmd === 'sleep') (await new Promise((r) => setTimeout(r, Number(rest[0]) * 1000)), (code = 0));
    else if (cmd === 'flood') (stream.write(Buffer.alloc(Number(rest[0]), 'x')), (code = 0));
    else (stream.stderr.write(`sh: ${cmd}: command not found\n`), (code = 127));
  }
  return code;
}

function serveSftp(sftp: SFTPWrapper, root: string) {
  const handles = new Map<number, number>();
  let next = 0;
  const local = (p: string) => {
    const full = path.resolve(root, p.replace(/^\/+/, ''));
    if (full !== root && !full.startsWith(root + path.sep)) throw Object.assign(new Error('outside'), { code: 'EACCES' });
    return full;
  };
  const status = (reqid: number, e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    sftp.status(reqid, code === 'ENOENT' || code === 'ENOTDIR' ? STATUS_CODE.NO_SUCH_FILE : code === 'EACCES' ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.FAILURE);
  };
  const fd = (handle: Buffer) => (handle.length === 4 ? handles.get(handle.readUInt32BE(0)) : undefined);
  const attrs = (st: fs.Stats) => ({ mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, atime: Math.floor(st.atimeMs / 1000), mtime: Math.floor(st.mtimeMs / 1000) });

  sftp
    .on('OPEN', (reqid, filename, flags) => {
      try {
        const mode = utils.sftp.flagsToString(flags);
        if (!mode) return sftp.status(reqid, STATUS_CODE.OP_UNSUPPORTED);
        const n = fs.openSync(local(filename), mode);
        const handle = Buffer.alloc(4);
        handle.writeUInt32BE(next);
        handles.set(next++, n);
        sftp.handle(reqid, handle);
      } catch (e) {
        status(reqid, e);
      }
    })
    .on('READ', (reqid, handle, offset, length) => {
      const n = fd(handle);
      if (n === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
      const buf = Buffer.alloc(length);
      const got = fs.readSync(n, buf, 0, length, offset);
      if (!got) return sftp.status(reqid, STATUS_CODE.EOF);
      sftp.data(reqid, buf.subarray(0, got));
    })
    .on('WRITE', (reqid, handle, offset, data) => {
      const n = fd(handle);
      if (n === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
      fs.writeSync(n, data, 0, data.length, offset);
      sftp.status(reqid, STATUS_CODE.OK);
    })
    .on('FSTAT', (reqid, handle) => {
      const n = fd(handle);
      if (n === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
      sftp.attrs(reqid, attrs(fs.fstatSync(n)));
    })
    .on('STAT', (reqid, p) => {
      try {
        sftp.attrs(reqid, attrs(fs.statSync(local(p))));
      } catch (e) {
        status(reqid, e);
      }
    })
    .on('LSTAT', (reqid, p) => {
      try {
        sftp.attrs(reqid, attrs(fs.lstatSync(local(p))));
      } catch (e) {
        status(reqid, e);
      }
    })
    .on('REALPATH', (reqid, p) => {
      const name = path.posix.resolve('/', p);
      sftp.name(reqid, [{ filename: name, longname: name, attrs: {} as never }]);
    })
    .on('CLOSE', (reqid, handle) => {
      const n = fd(handle);
      if (n === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
      handles.delete(handle.readUInt32BE(0));
      fs.closeSync(n);
      sftp.status(reqid, STATUS_CODE.OK);
    });
  sftp.on('close', () => {
    for (const n of handles.values()) fs.closeSync(n);
    handles.clear();
  });
  void OPEN_MODE;
}

export async function startSshServer(users: TestUser[]): Promise<TestSshServer> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ssh-test-')));
  const hostKey = await generateEd25519();
  const parsedHost = utils.parseKey(hostKey.private);
  if (parsedHost instanceof Error) throw parsedHost;
  const { createHash } = await import('node:crypto');
  const hostPublic = (Array.isArray(parsedHost) ? parsedHost[0]! : parsedHost).getPublicSSH();
  const fingerprint = 'SHA256:' + createHash('sha256').update(hostPublic).digest('base64').replace(/=+$/, '');
  const clients = new Set<Connection>();
  const commands: string[] = [];

  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => {});
    client
      .on('authentication', (ctx) => {
        const user = users.find((u) => u.username === ctx.username);
        if (user && ctx.method === 'password' && user.password !== undefined && same(ctx.password, user.password)) return ctx.accept();
        if (user && ctx.method === 'publickey' && checkKey(ctx, user.publicKeys ?? [])) return ctx.accept();
        const methods = [user?.publicKeys?.length ? 'publickey' : '', user?.password !== undefined ? 'password' : ''].filter(Boolean) as Array<'publickey' | 'password'>;
        ctx.reject(methods.length ? methods : ['password']);
      })
      .on('ready', () => {
        client.on('session', (accept) => {
          const session = accept();
          session.on('exec', (acceptExec, _reject, info) => {
            commands.push(info.command);
            const stream = acceptExec();
            runScript(info.command, stream).then(
              (code) => {
                stream.exit(code);
                stream.end();
              },
              () => stream.end(),
            );
          });
          session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), root));
        });
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    root,
    fingerprint,
    commands,
    open: () => clients.size,
    async close() {
      for (const c of clients) c.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
