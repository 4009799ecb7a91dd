// NTLM authentication (MS-NLMP) for the HTTP Request action: NTLMv2 responses only (NTLMv1 and
// LM are broken and refused by current Windows defaults). The exchange is bound to one connection:
//   -> Authorization: NTLM <negotiate>     <- 401 WWW-Authenticate: NTLM <challenge>
//   -> Authorization: NTLM <authenticate>  <- the answer
// so both requests go through one kept-alive session of the HTTP client (and its outbound policy).
import { createHmac, randomBytes } from 'node:crypto';
import md4 from 'js-md4';

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');

// Negotiate flags (MS-NLMP 2.2.2.5).
const UNICODE = 0x00000001;
const OEM = 0x00000002;
const REQUEST_TARGET = 0x00000004;
const NTLM = 0x00000200;
const ALWAYS_SIGN = 0x00008000;
const EXTENDED_SESSION_SECURITY = 0x00080000;
const TARGET_INFO = 0x00800000;
const KEY_128 = 0x20000000;
const KEY_56 = 0x80000000;
const NEGOTIATE_FLAGS = (UNICODE | OEM | REQUEST_TARGET | NTLM | ALWAYS_SIGN | EXTENDED_SESSION_SECURITY | KEY_128 | KEY_56) >>> 0;

export interface NtlmCredentials {
  username: string;
  password: string;
  domain: string;
  workstation?: string;
}

/** `DOMAIN\user`, `user@domain` or a plain user name (domain from the server's challenge then). */
export function splitUser(username: string): { user: string; domain: string | null } {
  const slash = username.indexOf('\\');
  if (slash >= 0) return { domain: username.slice(0, slash), user: username.slice(slash + 1) };
  const at = username.lastIndexOf('@');
  if (at > 0) return { user: username.slice(0, at), domain: username.slice(at + 1) };
  return { user: username, domain: null };
}

/** Type 1: what the client can do. */
export function negotiateMessage(): string {
  const m = Buffer.alloc(32);
  SIGNATURE.copy(m, 0);
  m.writeUInt32LE(1, 8);
  m.writeUInt32LE(NEGOTIATE_FLAGS, 12);
  // Empty domain and workstation fields (length 0, offset 32).
  m.writeUInt32LE(32, 20);
  m.writeUInt32LE(32, 28);
  return `NTLM ${m.toString('base64')}`;
}

export interface Challenge {
  flags: number;
  serverChallenge: Buffer;
  targetName: string;
  targetInfo: Buffer;
}

/** The Type 2 message in a WWW-Authenticate header (`NTLM <base64>`, maybe among other schemes). */
export function parseChallenge(header: string | undefined): Challenge | null {
  if (!header) return null;
  const m = /(?:^|,\s*)NTLM\s+([A-Za-z0-9+/=]+)/i.exec(header);
  if (!m) return null;
  const b = Buffer.from(m[1]!, 'base64');
  if (b.length < 32 || !b.subarray(0, 8).equals(SIGNATURE) || b.readUInt32LE(8) !== 2) return null;
  const field = (at: number) => {
    const len = b.readUInt16LE(at);
    const off = b.readUInt32LE(at + 4);
    return off + len <= b.length ? b.subarray(off, off + len) : Buffer.alloc(0);
  };
  const flags = b.readUInt32LE(20);
  const name = field(12);
  return {
    flags,
    serverChallenge: Buffer.from(b.subarray(24, 32)),
    targetName: flags & UNICODE ? name.toString('utf16le') : name.toString('latin1'),
    targetInfo: b.length >= 48 && flags & TARGET_INFO ? Buffer.from(field(40)) : Buffer.alloc(0),
  };
}

const hmac = (key: Buffer, ...data: Buffer[]) => {
  const h = createHmac('md5', key);
  for (const d of data) h.update(d);
  return h.digest();
};

/** NTOWFv2 (MS-NLMP 3.3.2): HMAC-MD5 over MD4(password) of upper-case user name and the domain. */
export function ntowfv2(password: string, user: string, domain: string): Buffer {
  const ntHash = Buffer.from(md4.arrayBuffer(Buffer.from(password, 'utf16le')));
  return hmac(ntHash, Buffer.from(user.toUpperCase() + domain, 'utf16le'));
}

/** MsvAvTimestamp from the target info, when the server sent one. */
function avTimestamp(info: Buffer): Buffer | null {
  for (let i = 0; i + 4 <= info.length;) {
    const id = info.readUInt16LE(i);
    const len = info.readUInt16LE(i + 2);
    if (id === 0) break;
    if (id === 7 && len === 8) return info.subarray(i + 4, i + 12);
    i += 4 + len;
  }
  return null;
}

/** Now as a Windows FILETIME (100 ns since 1601), little-endian. */
function fileTime(ms: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE((BigInt(ms) + 11644473600000n) * 10000n);
  return b;
}

/** The NTLMv2 and LMv2 responses (MS-NLMP 3.3.2). */
export function ntlmv2Responses(key: Buffer, serverChallenge: Buffer, clientChallenge: Buffer, time: Buffer, targetInfo: Buffer): { nt: Buffer; lm: Buffer } {
  const temp = Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]), time, clientChallenge, Buffer.alloc(4), targetInfo, Buffer.alloc(4)]);
  const proof = hmac(key, serverChallenge, temp);
  return { nt: Buffer.concat([proof, temp]), lm: Buffer.concat([hmac(key, serverChallenge, clientChallenge), clientChallenge]) };
}

/** Type 3: the proof that the client knows the password, for this challenge. */
export function authenticateMessage(challenge: Challenge, creds: NtlmCredentials, opts: { clientChallenge?: Buffer; now?: number } = {}): string {
  const clientChallenge = opts.clientChallenge ?? randomBytes(8);
  const time = avTimestamp(challenge.targetInfo) ?? fileTime(opts.now ?? Date.now());
  const key = ntowfv2(creds.password, creds.username, creds.domain);
  const { nt, lm } = ntlmv2Responses(key, challenge.serverChallenge, clientChallenge, time, challenge.targetInfo);
  const unicode = (challenge.flags & UNICODE) !== 0;
  const str = (s: string) => Buffer.from(s, unicode ? 'utf16le' : 'latin1');
  const fields = [lm, nt, str(creds.domain), str(creds.username), str(creds.workstation ?? ''), Buffer.alloc(0)];
  const header = Buffer.alloc(64);
  SIGNATURE.copy(header, 0);
  header.writeUInt32LE(3, 8);
  let offset = 64;
  fields.forEach((f, i) => {
    header.writeUInt16LE(f.length, 12 + i * 8);
    header.writeUInt16LE(f.length, 14 + i * 8);
    header.writeUInt32LE(offset, 16 + i * 8);
    offset += f.length;
  });
  const flags = (NEGOTIATE_FLAGS & ~(unicode ? OEM : UNICODE)) >>> 0;
  header.writeUInt32LE((flags | (challenge.flags & TARGET_INFO)) >>> 0, 60);
  return `NTLM ${Buffer.concat([header, ...fields]).toString('base64')}`;
}
