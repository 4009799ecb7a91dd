// Capture by subdomain: `<token or alias>.CAPTURE_DOMAIN/any/path` is captured like `/{token}/any/path`.
// The check is one Host header comparison; with CAPTURE_DOMAIN unset there is no matcher at all.
import type { IncomingMessage } from 'node:http';
import { isTrustedPeer } from './client-ip.js';

export interface SubdomainCapture {
  /** The token's UUID or alias: the label in front of CAPTURE_DOMAIN. */
  ref: string;
  /** The host the sender used (with its port), as the captured URL shows it. */
  host: string;
  /** `http` or `https`, as the sender used it (BASE_URL's, or a trusted proxy's X-Forwarded-Proto). */
  scheme: string;
}

export type SubdomainMatcher = (req: IncomingMessage) => SubdomainCapture | null;

function first(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined) return undefined;
  const comma = s.indexOf(',');
  return (comma < 0 ? s : s.slice(0, comma)).trim();
}

/**
 * The matcher for `domain` (lower case, no dots at the ends), or null when capture by subdomain is
 * off. Behind a trusted proxy the proxy's X-Forwarded-Host (and -Proto) stand for the sender's.
 */
export function subdomainMatcher(domain: string | undefined, trustedProxies: string[], baseUrl: string | null): SubdomainMatcher | null {
  if (!domain) return null;
  const suffix = '.' + domain;
  const baseScheme = baseUrl ? baseUrl.slice(0, baseUrl.indexOf(':')) : null;
  return (req) => {
    const proxied = trustedProxies.length > 0 && isTrustedPeer(req, trustedProxies);
    const host = (proxied ? first(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host;
    if (!host || host.length <= suffix.length) return null;
    const colon = host.lastIndexOf(':');
    const name = (colon > host.lastIndexOf(']') && colon >= 0 ? host.slice(0, colon) : host).toLowerCase().replace(/\.$/, '');
    if (!name.endsWith(suffix)) return null;
    const ref = name.slice(0, name.length - suffix.length);
    // One label only: `a.b.hooks.example.com` is not a capture URL.
    if (!ref || ref.includes('.')) return null;
    const scheme = (proxied ? first(req.headers['x-forwarded-proto']) : undefined) ?? baseScheme ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
    return { ref, host, scheme: scheme === 'https' ? 'https' : 'http' };
  };
}
