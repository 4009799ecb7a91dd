// What the command line prints: one readable line per captured request (coloured on a terminal
// when NO_COLOR is unset), and errors as `error: message` with the API's field errors below.
import { CaptureError, type CapturedRequest } from '../packages/client/src/index.js';

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org) or --no-color. */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, noColorFlag = false): boolean {
  return !!stream.isTTY && !noColorFlag && !env.NO_COLOR;
}

export interface Paint {
  dim(s: string): string;
  bold(s: string): string;
  method(m: string): string;
  status(n: number): string;
}

const sgr = (code: string) => (s: string) => `\x1b[${code}m${s}\x1b[0m`;
const METHOD_COLOURS: Record<string, string> = { GET: '32', POST: '33', PUT: '34', PATCH: '36', DELETE: '31', EMAIL: '35', DNS: '35' };

export function paint(colour: boolean): Paint {
  if (!colour) return { dim: (s) => s, bold: (s) => s, method: (m) => m, status: (n) => String(n) };
  return {
    dim: sgr('2'),
    bold: sgr('1'),
    method: (m) => sgr(METHOD_COLOURS[m.trim()] ?? '35')(m),
    status: (n) => sgr(n >= 500 ? '31' : n >= 400 ? '33' : '32')(String(n)),
  };
}

/** The part of a capture URL after the token: `/hook?x=1` of `http://host/<token>/hook?x=1`. */
export function pathAfterToken(url: string, token: { uuid: string; alias?: string | null }): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  const [, first, ...rest] = u.pathname.split('/');
  const own = [token.uuid, token.alias].filter(Boolean).map((s) => s!.toLowerCase());
  const pathname = first !== undefined && own.includes(decodeURIComponent(first).toLowerCase()) ? `/${rest.join('/')}` : u.pathname;
  return pathname + u.search;
}

export function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** One request as a line: time, method (or EMAIL/DNS), what was asked, size, sender, ID. */
export function requestLine(r: CapturedRequest, token: { uuid: string; alias?: string | null }, p: Paint): string {
  const time = r.created_at.slice(11);
  let kind: string;
  let what: string;
  if (r.type === 'email') {
    kind = 'EMAIL';
    what = `from ${r.sender ?? '?'}: ${r.headers.subject?.[0] ?? '(no subject)'}`;
  } else if (r.type === 'dns') {
    kind = 'DNS';
    what = `${r.dns?.type ?? '?'} ${r.dns?.name ?? r.hostname}`;
  } else {
    kind = r.method;
    what = pathAfterToken(r.url, token);
  }
  const status = r.response ? ` ${p.status(r.response.status)}` : '';
  return `${p.dim(time)} ${p.method(kind.padEnd(6))} ${what}${status} ${p.dim(`${bytes(r.size)} ${r.ip} ${r.uuid}`)}`;
}

/** An error as the command line shows it. */
export function describeError(err: unknown): string {
  if (err instanceof CaptureError) {
    const fields = Object.entries(err.errors).map(([k, v]) => `\n    ${k}: ${Array.isArray(v) ? v.join('; ') : String(v)}`);
    const status = err.status ? ` (HTTP ${err.status})` : '';
    return err.message + status + fields.join('');
  }
  return err instanceof Error ? err.message : String(err);
}
