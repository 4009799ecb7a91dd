// The one outgoing HTTP client of the service (schedules, the HTTP Request action, sandbox fetch,
// schema downloads). Every address a host name resolves to is checked against the outbound policy
// at connect time, inside the socket's own DNS lookup, so a name that resolves to a public address
// when validated and to a private one when connecting (DNS rebinding) is still refused. Literal IP
// hosts are checked before any socket is opened, and every redirect hop is checked again.
//
// Policy: link-local (169.254.0.0/16, fe80::/10), cloud metadata addresses, "this host"
// (0.0.0.0/8, ::), multicast and reserved ranges are always refused; loopback (127.0.0.0/8, ::1)
// and private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, 198.18/15, fc00::/7, fec0::/10) are
// allowed unless OUTBOUND_ALLOW_LOOPBACK / OUTBOUND_ALLOW_PRIVATE say false. IPv6 forms that embed an
// IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are classified by that IPv4 address.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Config } from '../config.js';
import { canonicalIpv6, embeddedIpv4, ipv6Groups } from './embedded-ipv4.js';

export type OutboundErrorCode = 'refused' | 'invalid_url' | 'timeout' | 'aborted' | 'too_many_redirects' | 'dns' | 'network';

/** Every failure of an outgoing request, with a message fit for a user's log. */
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

/** An address the outbound policy does not allow. */
export class OutboundRefused extends OutboundError {
  constructor(
    readonly address: string,
    readonly reason: string,
    readonly host?: string,
  ) {
    super('refused', `Outbound request refused: ${host && host !== address ? `${host} resolves to ${address}` : address}, ${reason}`);
    this.name = 'OutboundRefused';
  }
}

export interface OutboundPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

export interface OutboundRequest {
  method: string;
  url: string;
  /** Header values may repeat (arrays). */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Whole request: connect, send, response and body. Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Bytes of response body kept; the rest is not read (`truncated` is set). Default 10 MiB. */
  maxBodyBytes?: number;
  /** Redirects followed, each hop checked again. Default 5; 0 returns the 3xx itself. */
  maxRedirects?: number;
  /** Accept any TLS certificate (the user's "skip SSL verification"). Default false. */
  insecureTls?: boolean;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case header names to their values in order received. */
  headers: Record<string, string[]>;
  body: Buffer;
  /** True when the body was cut at maxBodyBytes. */
  truncated: boolean;
  /** Milliseconds from the start of the first request to the end of the body. */
  timeMs: number;
  /** The URL that answered (after redirects). */
  url: string;
  /** The TLS certificate of the requested URL's server (its first hop), for https URLs. */
  certificate?: PeerCertificate;
}

/** A server's TLS certificate as the connection saw it. */
export interface PeerCertificate {
  /** Milliseconds since the epoch. */
  validFrom: number;
  validTo: number;
  /** The subject's common name ('' when it has none). */
  subject: string;
  /** Whether it verified against the trusted authorities and the host name. */
  authorized: boolean;
  /** Why it did not (an OpenSSL code such as CERT_HAS_EXPIRED), else null. */
  authorizationError: string | null;
}

export interface OutboundClient {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  /**
   * A client whose requests share one kept-alive connection per origin, for connection-bound
   * authentication (NTLM). Every connection is still checked by the policy; close() ends them.
   */
  session(): OutboundSession;
  /**
   * The TLS certificate an https URL's server presents, whether or not it verifies: a TLS
   * connection to the same host and port, checked by the same policy, closed after the handshake.
   */
  certificate(url: string, opts?: { timeoutMs?: number }): Promise<PeerCertificate>;
}

export interface OutboundSession {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  close(): void;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

const ALWAYS = new net.BlockList();
// "This host" and the unspecified addresses reach the local machine on some systems.
ALWAYS.addSubnet('0.0.0.0', 8, 'ipv4');
ALWAYS.addAddress('::', 'ipv6');
// Link-local, which is where most cloud metadata services live (169.254.169.254, fd00:ec2::254).
ALWAYS.addSubnet('169.254.0.0', 16, 'ipv4');
ALWAYS.addSubnet('fe80::', 10, 'ipv6');
// Multicast, reserved and broadcast.
ALWAYS.addSubnet('224.0.0.0', 4, 'ipv4');
ALWAYS.addSubnet('240.0.0.0', 4, 'ipv4');
ALWAYS.addSubnet('ff00::', 8, 'ipv6');

// Keyed by canonical text (IPv6 uncompressed) so that any spelling of the address matches.
const METADATA = new Map<string, string>(
  Object.entries({
    '169.254.169.254': 'the cloud metadata service',
    '169.254.170.2': 'the ECS task metadata service',
    'fd00:ec2::254': 'the AWS metadata service (IPv6)',
    '100.100.100.200': 'the Alibaba Cloud metadata service',
    '168.63.129.16': 'the Azure host service',
    '192.0.0.192': 'the Oracle Cloud metadata service',
  }).map(([address, name]) => [net.isIP(address) === 6 ? canonicalIpv6(ipv6Groups(address)!) : address, name]),
);

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const PRIVATE = new net.BlockList();
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
// Benchmarking (RFC 2544): lab networks, and the fake-IP range of some local DNS proxies.
PRIVATE.addSubnet('198.18.0.0', 15, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
// Deprecated site-local (RFC 3879), still routed inside some networks.
PRIVATE.addSubnet('fec0::', 10, 'ipv6');

// The IPv4 ranges of ALWAYS, LOOPBACK and PRIVATE above, as [base, mask] numbers.
const NON_PUBLIC_V4: Array<[number, number]> = (
  [
    ['0.0.0.0', 8],
    ['169.254.0.0', 16],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
    ['127.0.0.0', 8],
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
    ['198.18.0.0', 15],
  ] as const
).map(([a, bits]) => {
  const mask = (0xffffffff << (32 - bits)) >>> 0;
  return [(ipv4Number(a)! & mask) >>> 0, mask];
});

/** A dotted-quad IPv4 address as an unsigned number, or null. */
function ipv4Number(address: string): number | null {
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return null;
      n = n * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
      if (part > 255) return null;
    } else return null;
  }
  if (dots !== 3 || digits === 0) return null;
  return n * 256 + part;
}

/**
 * Whether an IP address is on the public internet: not loopback, private, link-local, multicast,
 * reserved or unspecified (an IPv6 form embedding an IPv4 address is judged by that address).
 */
export function isPublicAddress(address: string): boolean {
  // Dotted IPv4 (every capture's sender) by arithmetic: BlockList.check costs ~10 us a call.
  const v4 = ipv4Number(address);
  if (v4 !== null) return !NON_PUBLIC_V4.some(([base, mask]) => (v4 & mask) >>> 0 === base);
  if (address === '::1') return false;
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const groups = ipv6Groups(address)!;
    const v4 = embeddedIpv4(groups);
    if (v4) return isPublicAddress(v4);
    address = canonicalIpv6(groups);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return !ALWAYS.check(address, type) && !LOOPBACK.check(address, type) && !PRIVATE.check(address, type);
}

/** Why the policy refuses this IP address, or null when it is allowed. */
export function refusalReason(address: string, policy: OutboundPolicy): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const groups = ipv6Groups(address)!;
    const v4 = embeddedIpv4(groups);
    if (v4) {
      const reason = refusalReason(v4, policy);
      return reason && `which embeds the IPv4 address ${v4}, ${reason}`;
    }
    address = canonicalIpv6(groups);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const meta = METADATA.get(address);
  if (meta) return `which is ${meta}; such addresses are never allowed`;
  if (ALWAYS.check(address, type)) return 'which is a link-local, unspecified, multicast or reserved address; such addresses are never allowed';
  if (LOOPBACK.check(address, type) && !policy.allowLoopback) return 'which is a loopback address (OUTBOUND_ALLOW_LOOPBACK is false)';
  if (PRIVATE.check(address, type) && !policy.allowPrivate) return 'which is a private-network address (OUTBOUND_ALLOW_PRIVATE is false)';
  return null;
}

/**
 * An address of `host` the policy allows, for connections that are not HTTP (databases, SSH...):
 * the caller connects to the address itself, so the checked address is the one used.
 */
export async function resolveAllowed(host: string, policy: OutboundPolicy, resolve: typeof dns.promises.lookup = dns.promises.lookup): Promise<{ address: string; family: 4 | 6 }> {
  const name = host.trim().replace(/^\[|\]$/g, '');
  if (!name) throw new OutboundError('invalid_url', 'No host given');
  let list: dns.LookupAddress[];
  if (net.isIP(name)) list = [{ address: name, family: net.isIP(name) }];
  else {
    try {
      list = await resolve(name, { all: true });
    } catch (e) {
      throw new OutboundError('dns', `Could not resolve ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
    }
  }
  if (!list.length) throw new OutboundError('dns', `${name} has no addresses`);
  for (const a of list) {
    const reason = refusalReason(a.address, policy);
    if (reason) throw new OutboundRefused(a.address, reason, name === a.address ? undefined : name);
  }
  return { address: list[0]!.address, family: list[0]!.family === 6 ? 6 : 4 };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for sockets: resolves, then refuses the connection if any address is not allowed. */
export function policyLookup(policy: OutboundPolicy, resolve: typeof dns.lookup = dns.lookup) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as unknown as dns.LookupAddress[];
      for (const a of list) {
        const reason = refusalReason(a.address, policy);
        if (reason) return callback(new OutboundRefused(a.address, reason, hostname) as unknown as NodeJS.ErrnoException, '');
      }
      if (!list.length) return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function toHeaders(raw: NodeJS.Dict<string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) out[name] = value;
  return out;
}

function parseUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutboundError('invalid_url', `Invalid URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OutboundError('invalid_url', `Only http and https URLs can be requested, not ${u.protocol}`);
  return u;
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Repeated headers kept apart (`headers` joins them). */
  distinct: NodeJS.Dict<string[]>;
  body: Buffer;
  truncated: boolean;
  certificate?: PeerCertificate;
}

/** The peer certificate of a TLS socket; undefined for plain sockets or when none was presented. */
function certificateOf(socket: unknown): PeerCertificate | undefined {
  if (!(socket instanceof tls.TLSSocket)) return undefined;
  const c = socket.getPeerCertificate();
  if (!c || !c.valid_to) return undefined;
  const error = socket.authorizationError as unknown;
  return {
    validFrom: Date.parse(c.valid_from),
    validTo: Date.parse(c.valid_to),
    subject: typeof c.subject?.CN === 'string' ? c.subject.CN : '',
    authorized: socket.authorized,
    authorizationError: error ? String((error as { code?: string }).code ?? error) : null,
  };
}

export interface OutboundClientOptions {
  resolve?: typeof dns.lookup;
  /** Certificate authorities trusted besides Node's bundled ones (tests trust a certificate they made). */
  extraCa?: Array<string | Buffer>;
}

export function createOutboundClient(config: Pick<Config, 'OUTBOUND_ALLOW_LOOPBACK' | 'OUTBOUND_ALLOW_PRIVATE'>, opts: OutboundClientOptions = {}): OutboundClient {
  const policy: OutboundPolicy = { allowLoopback: config.OUTBOUND_ALLOW_LOOPBACK, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE };
  const lookup = policyLookup(policy, opts.resolve);
  const ca = opts.extraCa?.length ? { ca: [...tls.rootCertificates, ...opts.extraCa] } : {};

  function checkLiteral(u: URL): void {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host)) {
      const reason = refusalReason(host, policy);
      if (reason) throw new OutboundRefused(host, reason);
    }
  }

  /** `agents`: a session's kept-alive agents; unset, each request has its own connection. */
  function once(u: URL, method: string, headers: Record<string, string | string[]>, body: Buffer | undefined, signal: AbortSignal, maxBodyBytes: number, insecureTls: boolean, agents?: Agents): Promise<Hop> {
    checkLiteral(u);
    return new Promise<Hop>((resolve, reject) => {
      const mod = u.protocol === 'https:' ? https : http;
      const agent = agents ? (u.protocol === 'https:' ? agents.https : agents.http) : false;
      const h: Record<string, string | string[]> = { ...headers };
      if (body !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-length')) h['Content-Length'] = String(body.length);
      const req = mod.request(u, { method, headers: h, signal, lookup: lookup as unknown as net.LookupFunction, agent, ...ca, ...(insecureTls ? { rejectUnauthorized: false } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const certificate = certificateOf(res.socket);
        const finish = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, distinct: res.headersDistinct, body: Buffer.concat(chunks, size), truncated, certificate });
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = maxBodyBytes - size;
          if (chunk.length > room) {
            if (room > 0) chunks.push(chunk.subarray(0, room));
            size += Math.max(0, room);
            truncated = true;
            // Stop reading: what is kept is answered now, the rest is dropped with the socket.
            finish();
            res.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          if (!truncated) finish();
        });
        res.on('error', (err) => {
          if (!truncated) reject(err);
        });
      });
      req.on('error', reject);
      if (body !== undefined) req.end(body);
      else req.end();
    });
  }

  async function send(r: OutboundRequest, agents?: Agents): Promise<OutboundResponse> {
    const started = performance.now();
    const timeoutMs = r.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBodyBytes = r.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const maxRedirects = r.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = r.signal ? AbortSignal.any([r.signal, timeout]) : timeout;
    let url = parseUrl(r.url);
    let method = r.method.toUpperCase();
    let headers = { ...(r.headers ?? {}) };
    let body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
    if (method === 'GET' || method === 'HEAD') body = body?.length ? body : undefined;
    let certificate: PeerCertificate | undefined;
    try {
      for (let hop = 0; ; hop++) {
        if (signal.aborted) throw signal.reason;
        const res = await once(url, method, headers, body, signal, maxBodyBytes, r.insecureTls === true, agents);
        if (hop === 0) certificate = res.certificate;
        const location = res.headers.location;
        if (res.status >= 300 && res.status < 400 && res.status !== 304 && location && maxRedirects > 0) {
          if (hop >= maxRedirects) throw new OutboundError('too_many_redirects', `More than ${maxRedirects} redirects, stopped at ${url.href}`);
          const next = parseUrl(new URL(location, url).href);
          // 303, and 301/302 after a POST, continue as a GET without a body (what browsers do).
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !['content-length', 'content-type'].includes(k.toLowerCase())));
          }
          // Credentials are not sent to another origin.
          if (next.origin !== url.origin) {
            headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !['authorization', 'cookie', 'proxy-authorization'].includes(k.toLowerCase())));
          }
          url = next;
          continue;
        }
        return { status: res.status, headers: toHeaders(res.distinct), body: res.body, truncated: res.truncated, timeMs: performance.now() - started, url: url.href, ...(certificate ? { certificate } : {}) };
      }
    } catch (err) {
      throw normaliseError(err, url, timeout, timeoutMs);
    }
  }

  // Async, so a refused or malformed URL is a rejection like a failed connection.
  async function certificate(raw: string, { timeoutMs = DEFAULT_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<PeerCertificate> {
    const u = parseUrl(raw);
    if (u.protocol !== 'https:') throw new OutboundError('invalid_url', `${u.origin} has no TLS certificate: it is not https`);
    checkLiteral(u);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return new Promise<PeerCertificate>((resolve, reject) => {
      // Not verified here: the caller judges the certificate (authorized, authorizationError).
      const socket = tls.connect(
        { host, port: Number(u.port || 443), servername: net.isIP(host) ? undefined : host, lookup: lookup as unknown as net.LookupFunction, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...ca },
        () => {
          const cert = certificateOf(socket);
          socket.end();
          if (cert) resolve(cert);
          else reject(new OutboundError('network', `${u.host} presented no TLS certificate`));
        },
      );
      socket.setTimeout(timeoutMs, () => socket.destroy(new OutboundError('timeout', `Timed out after ${timeoutMs / 1000} s connecting to ${u.host}`)));
      socket.on('error', (err) => {
        const cause = err instanceof OutboundError ? err : (err as { cause?: unknown }).cause;
        reject(cause instanceof OutboundError ? cause : new OutboundError('network', `TLS connection to ${u.host} failed: ${err.message}`, { cause: err }));
      });
    });
  }

  return {
    request: (r) => send(r),
    certificate,
    session() {
      // One socket per origin, kept between requests: NTLM authenticates the connection.
      const agents: Agents = { http: new http.Agent({ keepAlive: true, maxSockets: 1 }), https: new https.Agent({ keepAlive: true, maxSockets: 1, ...ca }) };
      return {
        request: (r) => send(r, agents),
        close() {
          agents.http.destroy();
          agents.https.destroy();
        },
      };
    },
  };
}

function normaliseError(err: unknown, url: URL, timeout: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  // The lookup's refusal may come back wrapped by the socket.
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof OutboundError) return cause;
  if (timeout.aborted) return new OutboundError('timeout', `Timed out after ${timeoutMs / 1000} s requesting ${url.href}`, { cause: err });
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'AbortError' || e?.code === 'ABORT_ERR') return new OutboundError('aborted', `Request to ${url.href} was aborted`, { cause: err });
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return new OutboundError('dns', `Could not resolve ${url.hostname}`, { cause: err });
  return new OutboundError('network', `Request to ${url.href} failed: ${e?.message ?? String(err)}`, { cause: err });
}
