// network.md: HTTP requests go through the action's HTTP client (ctx.services.http, which applies
// the server's outbound policy) with the chain's signal; query strings and URL encoding.
import { randomBytes } from 'node:crypto';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import { WsRuntimeError, fail } from '../lang/errors.js';
import { WsArray, toText, typeName, type Value } from '../lang/values.js';
import { arg, arr, bool, headerPairs, optNum, optStr, str, type Host, type Library } from './host.js';

const DEFAULT_TIMEOUT_S = 5;
const MAX_TIMEOUT_S = 30;
const HOP_BY_HOP = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection']);

interface Outgoing {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body?: Buffer;
  timeoutS?: number | null;
  insecure?: boolean;
}

/** PHP urlencode: everything but A-Z a-z 0-9 - _ . is %XX, spaces are "+". */
export function urlEncode(s: string): string {
  return Array.from(textBytes(s), (b) => {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.]/.test(c)) return c;
    if (c === ' ') return '+';
    return '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }).join('');
}

export function urlDecode(s: string): string {
  const bytes: number[] = [];
  const raw = Buffer.from(s.replace(/\+/g, ' '), 'utf8');
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x25 && i + 2 < raw.length + 0 && /^[0-9a-fA-F]{2}$/.test(String.fromCharCode(raw[i + 1], raw[i + 2]))) {
      bytes.push(parseInt(String.fromCharCode(raw[i + 1], raw[i + 2]), 16));
      i += 2;
    } else bytes.push(raw[i]);
  }
  return bytesText(Buffer.from(bytes));
}

/** PHP http_build_query: nested arrays as `a[b][0]=c`. */
export function buildQuery(a: WsArray, prefix: string | null = null, depth = 0): string[] {
  if (depth > 20) fail('the array is nested too deeply');
  const out: string[] = [];
  for (const [k, v] of a.map) {
    const key = prefix === null ? String(k) : `${prefix}[${k}]`;
    if (v instanceof WsArray) out.push(...buildQuery(v, key, depth + 1));
    else if (v !== null) out.push(`${urlEncode(key)}=${urlEncode(v === true ? '1' : v === false ? '0' : toText(v))}`);
  }
  return out;
}

function multipartBody(items: WsArray): { body: Buffer; contentType: string } {
  const boundary = '----WebhookScript' + randomBytes(12).toString('hex');
  const parts: Buffer[] = [];
  for (const item of items.values()) {
    if (!(item instanceof WsArray)) fail(`each multipart item must be an array with "name" and "content", not ${typeName(item)}`);
    const it = item as WsArray;
    const name = it.get('name');
    if (name === undefined || name === null) fail('a multipart item has no "name"');
    const filename = it.get('filename');
    const type = it.get('content-type') ?? it.get('content_type');
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${toText(name!).replace(/"/g, '%22')}"`;
    if (filename !== undefined && filename !== null) head += `; filename="${toText(filename).replace(/"/g, '%22')}"`;
    head += '\r\n';
    if (type !== undefined && type !== null) head += `Content-Type: ${toText(type)}\r\n`;
    for (const [n, v] of headerPairs(it.get('headers') ?? null)) head += `${n}: ${v}\r\n`;
    parts.push(Buffer.from(head + '\r\n'), textBytes(toText(it.get('content') ?? it.get('value') ?? '')), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function responseArray(url: string, status: number | null, headers: Record<string, string>, content: string): WsArray {
  return WsArray.entries([
    ['content', content],
    ['status', status],
    ['headers', WsArray.entries(Object.entries(headers))],
    ['url', url],
  ]);
}

/** Sends a request; network failures give `status` null and the message as `content`. */
async function send(host: Host, req: Outgoing): Promise<WsArray> {
  const { ctx } = host;
  if (!/^https?:\/\//i.test(req.url)) fail(`${JSON.stringify(req.url)} is not an http(s) URL`);
  host.countRequest();
  const headers: Record<string, string> = {};
  for (const [n, v] of req.headers) {
    if (/[\r\n]/.test(n + v)) fail(`the header ${JSON.stringify(n)} contains a line break`);
    headers[n] = v;
  }
  const timeoutMs = Math.min(Math.max(0.001, req.timeoutS ?? DEFAULT_TIMEOUT_S), MAX_TIMEOUT_S) * 1000;
  const left = ctx.timeLeftMs();
  if (left <= 0) throw new WsRuntimeError("the actions' time budget is spent");
  const method = req.method.toUpperCase();
  try {
    const res = await host.wait(
      ctx.services.http.request({
        method,
        url: req.url,
        headers,
        ...(req.body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body: req.body } : {}),
        timeoutMs: Math.max(1, Math.min(timeoutMs, left)),
        signal: ctx.signal,
        insecureTls: req.insecure,
      }),
    );
    return responseArray(res.url ?? req.url, res.status, res.headers, bytesText(res.body));
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    const err = e as Error & { cause?: { message?: string } };
    const msg = err.name === 'TimeoutError' || err.name === 'AbortError' ? `Request timed out after ${timeoutMs / 1000} s` : err.cause?.message ? `${err.message}: ${err.cause.message}` : err.message;
    return responseArray(req.url, null, {}, msg);
  }
}

/** GETs a URL for import(); fails unless it answers 2xx. */
export async function fetchText(host: Host, url: string): Promise<string> {
  const res = await send(host, { url, method: 'GET', headers: [] });
  const status = res.get('status');
  if (typeof status !== 'number' || status < 200 || status > 299) {
    fail(`could not download ${url}: ${status === null ? toText(res.get('content') ?? '') : `status ${status}`}`);
  }
  return toText(res.get('content') ?? '');
}

function body(v: Value): Buffer | undefined {
  if (v === null || v === undefined) return undefined;
  if (v instanceof WsArray) return Buffer.from(buildQuery(v).join('&'));
  return textBytes(toText(v));
}

export function networkLibrary(host: Host): Library {
  const { ctx } = host;
  return {
    query: (_c, a) => buildQuery(arr(a, 0)).join('&'),
    url_encode: (_c, a) => urlEncode(str(a, 0)),
    url_decode: (_c, a) => urlDecode(str(a, 0)),
    request: (_c, a) =>
      send(host, {
        url: str(a, 0),
        body: body(arg(a, 1)),
        method: optStr(a, 2, 'GET') || 'GET',
        headers: headerPairs(arg(a, 3)),
        timeoutS: optNum(a, 5),
      }),
    multipart: (_c, a) => {
      const { body: b, contentType } = multipartBody(arr(a, 1));
      return send(host, {
        url: str(a, 0),
        method: optStr(a, 2, 'POST') || 'POST',
        headers: [['Content-Type', contentType], ...headerPairs(arg(a, 3))],
        body: b,
        timeoutS: optNum(a, 4),
      });
    },
    http: (_c, a) => {
      const url = str(a, 0);
      const o = a.length > 1 && arg(a, 1) !== null ? arr(a, 1) : new WsArray();
      const get = (k: string) => o.get(k) ?? null;
      const mode = toText(get('mode') ?? 'text').toLowerCase();
      const method = get('method') === null ? null : toText(get('method'));
      const headers = headerPairs(get('headers'));
      const timeoutS = get('timeout') === null ? null : Number(toText(get('timeout')));
      const insecure = bool([get('skip_ssl_verification')], 0);
      const base = { url, timeoutS, insecure };
      switch (mode) {
        case 'text':
          return send(host, { ...base, method: method || 'GET', headers, body: body(get('content')) });
        case 'multipart': {
          const items = get('multipart');
          const { body: b, contentType } = multipartBody(items instanceof WsArray ? items : new WsArray());
          return send(host, { ...base, method: method || 'POST', headers: [['Content-Type', contentType], ...headers], body: b });
        }
        case 'urlencoded': {
          const items = get('urlencoded');
          const pairs: string[] = [];
          if (items instanceof WsArray) {
            for (const it of items.values()) {
              if (it instanceof WsArray) pairs.push(`${urlEncode(toText(it.get('name') ?? ''))}=${urlEncode(toText(it.get('value') ?? ''))}`);
            }
          }
          return send(host, { ...base, method: method || 'POST', headers: [['Content-Type', 'application/x-www-form-urlencoded'], ...headers], body: Buffer.from(pairs.join('&')) });
        }
        case 'forward': {
          const original = Object.entries(ctx.request.headers ?? {})
            .filter(([n]) => !HOP_BY_HOP.has(n.toLowerCase()))
            .map(([n, v]): [string, string] => [n, Array.isArray(v) ? v.join(', ') : String(v)]);
          const q = ctx.request.url.indexOf('?');
          const target = q >= 0 ? url + (url.includes('?') ? '&' : '?') + ctx.request.url.slice(q + 1) : url;
          return send(host, { ...base, url: target, method: method || ctx.request.method, headers: [...original, ...headers], body: ctx.rawBody });
        }
        default:
          return fail(`unknown mode ${JSON.stringify(mode)} (text, multipart, urlencoded or forward)`);
      }
    },
  };
}
