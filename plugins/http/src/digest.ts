// HTTP Digest authentication (RFC 7616, and RFC 2069 without qop): the answer to a server's
// `WWW-Authenticate: Digest ...` challenge, computed over the SDK's HTTP client by the caller.
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: string;
  qop?: string[];
}

/** The Digest challenge in a WWW-Authenticate value (which may hold several challenges), or null. */
export function parseDigestChallenge(header: string | undefined): DigestChallenge | null {
  if (!header) return null;
  const start = /(?:^|[\s,])Digest\s+/i.exec(header);
  if (!start) return null;
  let rest = header.slice(start.index + start[0].length);
  const params: Record<string, string> = {};
  for (;;) {
    rest = rest.replace(/^[\s,]+/, '');
    const m = /^([A-Za-z0-9_-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^,\s]*)/.exec(rest);
    if (!m) break; // the next challenge's scheme (or the end)
    params[m[1]!.toLowerCase()] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!;
    rest = rest.slice(m[0].length);
  }
  if (params.nonce === undefined) return null;
  return {
    realm: params.realm ?? '',
    nonce: params.nonce,
    opaque: params.opaque,
    algorithm: params.algorithm ?? 'MD5',
    qop: params.qop
      ?.split(',')
      .map((q) => q.trim().toLowerCase())
      .filter(Boolean),
  };
}

const HASHES: Record<string, string> = { md5: 'md5', 'sha-256': 'sha256', 'sha-512-256': 'sha512-256' };

const quote = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`;

/**
 * The `Authorization` value answering `challenge` for a request of `method` to `uri` (path and
 * query). Throws for an algorithm it does not know.
 */
export function digestAuthorization(challenge: DigestChallenge, opts: { username: string; password: string; method: string; uri: string; body?: Buffer; cnonce?: string }): string {
  const algorithm = challenge.algorithm;
  const base = algorithm.toLowerCase().replace(/-sess$/, '');
  const hashName = HASHES[base];
  if (!hashName) throw new Error(`Digest algorithm ${algorithm} is not supported`);
  const H = (s: string | Buffer) => createHash(hashName).update(s).digest('hex');
  const cnonce = opts.cnonce ?? randomBytes(8).toString('hex');
  const nc = '00000001';
  let ha1 = H(`${opts.username}:${challenge.realm}:${opts.password}`);
  if (algorithm.toLowerCase().endsWith('-sess')) ha1 = H(`${ha1}:${challenge.nonce}:${cnonce}`);
  const qop = challenge.qop?.includes('auth') ? 'auth' : challenge.qop?.includes('auth-int') ? 'auth-int' : undefined;
  const ha2 = qop === 'auth-int' ? H(`${opts.method}:${opts.uri}:${H(opts.body ?? '')}`) : H(`${opts.method}:${opts.uri}`);
  const response = qop ? H(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : H(`${ha1}:${challenge.nonce}:${ha2}`);
  const parts = [`username=${quote(opts.username)}`, `realm=${quote(challenge.realm)}`, `nonce=${quote(challenge.nonce)}`, `uri=${quote(opts.uri)}`, `algorithm=${algorithm}`, `response=${quote(response)}`];
  if (qop) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
  if (challenge.opaque !== undefined) parts.push(`opaque=${quote(challenge.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}
