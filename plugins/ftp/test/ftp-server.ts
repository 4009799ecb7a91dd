// A real FTP server (ftp-srv) on a loopback port over a temp directory, optionally offering
// explicit FTPS (AUTH TLS) with a self-signed certificate made by openssl at test time.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FtpSrv } from 'ftp-srv';

export interface TestFtpServer {
  port: number;
  root: string;
  /** The TLS server name (SNI) each FTPS login arrived with. */
  servernames: Array<string | false | undefined>;
  logins: string[];
  /** Connections not closed yet. */
  open(): number;
  close(): Promise<void>;
}

/** A self-signed certificate for `name`, or null when openssl is not available. */
export function selfSignedCert(name: string): { key: string; cert: string } | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ftp-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`], {
      cwd: dir,
      stdio: 'ignore',
    });
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const quiet = {
  child() {
    return quiet;
  },
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
};

/** `opts.passive: false`: PASV and EPSV are refused, so only active mode (PORT/EPRT) transfers. */
export async function startFtpServer(users: Record<string, string>, tls?: { key: string; cert: string }, opts: { passive?: boolean } = {}): Promise<TestFtpServer> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ftp-test-')));
  const port = await freePort();
  const pasvMin = 20_000 + Math.floor(Math.random() * 30_000);
  const server = new FtpSrv({
    url: `ftp://127.0.0.1:${port}`,
    pasv_url: '127.0.0.1',
    ...(opts.passive === false ? { blacklist: ['PASV', 'EPSV'] } : {}),
    pasv_min: pasvMin,
    pasv_max: pasvMin + 200,
    anonymous: false,
    greeting: ['test server'],
    tls: tls ?? false,
    log: quiet as never,
  });
  const servernames: TestFtpServer['servernames'] = [];
  const logins: string[] = [];
  server.on('login', ({ connection, username, password }, resolve, reject) => {
    logins.push(username);
    const socket = (connection as unknown as { commandSocket: { servername?: string | false } }).commandSocket;
    if ((connection as unknown as { secure: boolean }).secure) servernames.push(socket.servername);
    if (users[username] !== undefined && users[username] === password) resolve({ root });
    else reject(new Error('Invalid username or password'));
  });
  server.on('client-error', () => {});
  await server.listen();
  return {
    port,
    root,
    servernames,
    logins,
    open: () => Object.keys((server as unknown as { connections: object }).connections).length,
    async close() {
      await server.close().catch(() => {});
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
