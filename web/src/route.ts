// Hash routes (`/#/<token>`...), so the page never takes a path that could be a capture URL.
import { useEffect, useState } from 'preact/hooks';

/** The account area's screens (`#/account/<section>`). */
export const ACCOUNT_SECTIONS = ['overview', 'keys', 'users', 'providers', 'templates', 'databases', 'variables', 'queue-profiles', 'groups', 'errors'] as const;
export type AccountSection = (typeof ACCOUNT_SECTIONS)[number];

export type Route =
  | { view: 'home' }
  | { view: 'welcome' }
  /** A share link (`#/share/<token>/<secret>[/<request>]`): the token's requests, view-only. */
  | { view: 'share'; token: string; secret: string; request?: string }
  /** An invite link (`#/invite/<secret>`): the invited person sets up their API key. */
  | { view: 'invite'; secret: string }
  | { view: 'account'; section: AccountSection; id?: string }
  | { view: 'schedules'; schedule?: string; logs?: boolean }
  | { view: 'token'; token: string; tab: 'requests' | 'settings' | 'workflow' | 'replay' | 'form'; request?: string };

/** First segments of the page's own hash routes; the server reserves them, so no alias can take them. */
export const PAGE_SEGMENTS = ['schedules', 'account', 'welcome', 'share', 'invite'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  if (parts.length === 0) return { view: 'home' };
  if (parts[0] === 'welcome') return { view: 'welcome' };
  if (parts[0] === 'share') return { view: 'share', token: parts[1] ?? '', secret: parts[2] ?? '', request: parts[3] && UUID.test(parts[3]) ? parts[3] : undefined };
  if (parts[0] === 'invite') return { view: 'invite', secret: parts[1] ?? '' };
  if (parts[0] === 'account') {
    const section = (ACCOUNT_SECTIONS as readonly string[]).includes(parts[1] ?? '') ? (parts[1] as AccountSection) : 'overview';
    return parts[2] ? { view: 'account', section, id: parts[2] } : { view: 'account', section };
  }
  if (parts[0] === 'schedules') return { view: 'schedules', schedule: parts[1], logs: parts[2] === 'logs' };
  const [token, second] = parts as [string, string | undefined];
  if (second === 'settings' || second === 'workflow' || second === 'replay' || second === 'form') return { view: 'token', token, tab: second };
  if (second && UUID.test(second)) return { view: 'token', token, tab: 'requests', request: second };
  return { view: 'token', token, tab: 'requests' };
}

export function href(r: Route): string {
  switch (r.view) {
    case 'home':
      return '#/';
    case 'welcome':
      return '#/welcome';
    case 'invite':
      return `#/invite/${encodeURIComponent(r.secret)}`;
    case 'share':
      return `#/share/${encodeURIComponent(r.token)}/${encodeURIComponent(r.secret)}${r.request ? `/${r.request}` : ''}`;
    case 'account':
      if (r.section === 'overview') return '#/account';
      return `#/account/${r.section}${r.id ? `/${encodeURIComponent(r.id)}` : ''}`;
    case 'schedules':
      return `#/schedules${r.schedule ? `/${encodeURIComponent(r.schedule)}${r.logs ? '/logs' : ''}` : ''}`;
    case 'token': {
      const base = `#/${encodeURIComponent(r.token)}`;
      if (r.tab !== 'requests') return `${base}/${r.tab}`;
      return r.request ? `${base}/${r.request}` : base;
    }
  }
}

export function navigate(r: Route, replace = false): void {
  const h = href(r);
  if (replace) history.replaceState(null, '', h);
  else history.pushState(null, '', h);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', on);
    window.addEventListener('popstate', on);
    return () => {
      window.removeEventListener('hashchange', on);
      window.removeEventListener('popstate', on);
    };
  }, []);
  return route;
}

export const isUuid = (s: string) => UUID.test(s);
