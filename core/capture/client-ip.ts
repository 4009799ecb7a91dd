// The sender's address. X-Forwarded-For is believed only when the direct peer is a trusted proxy,
// and then only up to the first address that is not one.
import type { IncomingMessage } from 'node:http';

// Module constants, not literals in the functions: a regular expression literal is a new object
// each time it is evaluated (here: on every capture).
const MAPPED_IPV4 = /^::ffff:/;

const SPACE = 0x20;
const DEL = 0x7f;
const COLON = 0x3a;

/** Printable ASCII holds none of the whitespace trim() removes (that is at or below SPACE, or beyond DEL). */
const printable = (c: number) => c > SPACE && c < DEL;

/**
 * The address without surrounding whitespace or the IPv4-mapped prefix. Most peers have neither:
 * they are returned as they are, without a trim and a pattern run per capture.
 */
function normalise(ip: string): string {
  const plain = ip.length > 0 && printable(ip.charCodeAt(0)) && printable(ip.charCodeAt(ip.length - 1)) && ip.charCodeAt(0) !== COLON;
  return plain ? ip : ip.trim().replace(MAPPED_IPV4, '');
}

/** Whether the direct peer is one of the trusted proxies. */
export function isTrustedPeer(req: IncomingMessage, trustedProxies: string[]): boolean {
  return trustedProxies.includes(normalise(req.socket.remoteAddress ?? ''));
}

export function clientIp(req: IncomingMessage, trustedProxies: string[]): string {
  const peer = normalise(req.socket.remoteAddress ?? '');
  if (!trustedProxies.length || !trustedProxies.includes(peer)) return peer;
  const xff = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').map(normalise).filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) {
    if (!trustedProxies.includes(chain[i]!)) return chain[i]!;
  }
  return chain[0] ?? peer;
}
