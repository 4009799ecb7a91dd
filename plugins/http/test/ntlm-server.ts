// A local HTTP server that performs the server side of NTLM (MS-NLMP) and checks the client's
// NTLMv2 proof against the password it knows. Written apart from src/ntlm.ts, from the spec, so
// the client is checked against a second reading of it. The challenge belongs to the connection:
// an answer on another connection is refused, as IIS does.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import md4 from 'js-md4';

export interface NtlmServer {
  url: string;
  /** One line per request: `<socket number> <what happened>`. */
  log: string[];
  close(): Promise<void>;
}

const av = (id: number, value: Buffer) => {
  const h = Buffer.alloc(4);
  h.writeUInt16LE(id, 0);
  h.writeUInt16LE(value.length, 2);
  return Buffer.concat([h, value]);
};

function challengeMessage(serverChallenge: Buffer, domain: string): Buffer {
  const name = Buffer.from(domain, 'utf16le');
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64LE((BigInt(Date.now()) + 11644473600000n) * 10000n);
  const info = Buffer.concat([av(2, name), av(1, Buffer.from('SRV', 'utf16le')), av(7, timestamp), av(0, Buffer.alloc(0))]);
  const head = Buffer.alloc(48);
  head.write('NTLMSSP\0', 0, 'latin1');
  head.writeUInt32LE(2, 8);
  head.writeUInt16LE(name.length, 12);
  head.writeUInt16LE(name.length, 14);
  head.writeUInt32LE(48, 16);
  // Unicode, request target, NTLM, target type domain, extended session security, target info.
  head.writeUInt32LE(0x00000001 | 0x00000004 | 0x00000200 | 0x00010000 | 0x00080000 | 0x00800000, 20);
  serverChallenge.copy(head, 24);
  head.writeUInt16LE(info.length, 40);
  head.writeUInt16LE(info.length, 42);
  head.writeUInt32LE(48 + name.length, 44);
  return Buffer.concat([head, name, info]);
}

/** `users`: user name (any case) -> password. */
export async function startNtlmServer(users: Record<string, string>, domain = 'CORP'): Promise<NtlmServer> {
  const log: string[] = [];
  const challenges = new WeakMap<Socket, Buffer>();
  const sockets = new Map<Socket, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = sockets.get(req.socket) ?? sockets.set(req.socket, sockets.size + 1).get(req.socket)!;
      const say = (status: number, what: string, headers: Record<string, string> = {}) => {
        log.push(`${n} ${what}`);
        res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
        res.end(what);
      };
      const m = /^NTLM ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
      if (!m) return say(401, 'no NTLM', { 'WWW-Authenticate': 'NTLM' });
      const msg = Buffer.from(m[1]!, 'base64');
      if (msg.length < 12 || msg.toString('latin1', 0, 8) !== 'NTLMSSP\0') return say(400, 'not NTLM');
      const type = msg.readUInt32LE(8);
      if (type === 1) {
        const c = randomBytes(8);
        challenges.set(req.socket, c);
        return say(401, 'challenge', { 'WWW-Authenticate': `NTLM ${challengeMessage(c, domain).toString('base64')}` });
      }
      if (type !== 3) return say(400, `message type ${type}`);
      const serverChallenge = challenges.get(req.socket);
      if (!serverChallenge) return say(401, 'no challenge on this connection', { 'WWW-Authenticate': 'NTLM' });
      const field = (at: number) => msg.subarray(msg.readUInt32LE(at + 4), msg.readUInt32LE(at + 4) + msg.readUInt16LE(at));
      const nt = field(20);
      const userDomain = field(28).toString('utf16le');
      const user = field(36).toString('utf16le');
      const password = Object.entries(users).find(([u]) => u.toLowerCase() === user.toLowerCase())?.[1];
      if (password === undefined || nt.length < 48) return say(401, 'unknown user');
      const ntHash = Buffer.from(md4.arrayBuffer(Buffer.from(password, 'utf16le')));
      const key = createHmac('md5', ntHash)
        .update(Buffer.from(user.toUpperCase() + userDomain, 'utf16le'))
        .digest();
      const proof = createHmac('md5', key).update(serverChallenge).update(nt.subarray(16)).digest();
      if (!proof.equals(nt.subarray(0, 16))) return say(401, 'bad proof');
      say(200, `hello ${userDomain}\\${user}: ${req.method} ${Buffer.concat(chunks).toString('utf8')}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
