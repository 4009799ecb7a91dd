// The sender's address. X-Forwarded-For is believed only when the direct peer is a trusted proxy,
// and then only up to the first address that is not one.
import type { IncomingMessage } from 'node:http';

// Module constants, not literals in the functions: a regular expression literal is a new object
// each time it is evaluated (here: on every capture).
const MAPPED_IPV4 = /^::ffff:/;

const normalise = (ip: string) => ip.trim().replace(MAPPED_IPV4, '');

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
