// The variables of one chain run: the request's default variables, the runtime variables actions
// set, and a snapshot of the account's global variables.
import { isUtf8 } from 'node:buffer';
import { bytesText } from '../bytes.js';
import { deeperThan } from '../parse-limits.js';
import type { CapturedFile, CapturedRequest, TokenInfo, Variables } from '../index.js';
import { resolveWithModifiers, template as replaceVariables } from './templating.js';

const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

const STORED_DATE = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/;

/** The last date read: captures of the same second share it. */
let lastCreated: { text: string; ms: number } | undefined;

/** parseCreatedAt, the last text's without reading it again; now for a date that does not parse. */
function createdAtMs(s: string): number {
  if (s === lastCreated?.text) return lastCreated.ms;
  const ms = parseCreatedAt(s);
  if (Number.isNaN(ms)) return Date.now();
  lastCreated = { text: s, ms };
  return ms;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) or ISO -> epoch ms (NaN when it does not parse). The stored form is read by hand: it comes with every capture. */
function parseCreatedAt(s: string): number {
  const m = STORED_DATE.exec(s);
  // Only fields Date.parse reads the same way (Date.UTC rolls any field over and maps years below 100 to 19xx).
  if (m && +m[1]! >= 100 && +m[2]! >= 1 && +m[2]! <= 12 && +m[3]! >= 1 && +m[3]! <= 31 && +m[4]! <= 23 && +m[5]! <= 59 && +m[6]! <= 59) {
    return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  }
  return Date.parse(m ? s.replace(' ', 'T') + 'Z' : s);
}

/** Pathnames of recent URLs: captures of one token repeat the same URL, and parsing one costs more than the rest of the request's variables. */
const pathnames = new Map<string, string | null>();
const MAX_PATHNAMES = 256;

/** The URL's pathname, or null when it does not parse. */
function pathnameOf(url: string): string | null {
  let pathname = pathnames.get(url);
  if (pathname !== undefined) return pathname;
  try {
    pathname = new URL(url, 'http://localhost').pathname;
  } catch {
    pathname = null;
  }
  if (pathnames.size >= MAX_PATHNAMES) pathnames.clear();
  pathnames.set(url, pathname);
  return pathname;
}

/** Recent sub-paths by URL and token (as pathnames: captures of one token repeat the same URL). */
const subPaths = new Map<string, string>();

/** The sub-path after the token id or alias; `/` when there is none. */
function subPath(url: string, token: Pick<TokenInfo, 'uuid' | 'alias'>): string {
  const key = `${token.uuid}\n${token.alias ?? ''}\n${url}`;
  let found = subPaths.get(key);
  if (found === undefined) {
    found = findSubPath(url, token);
    if (subPaths.size >= MAX_PATHNAMES) subPaths.clear();
    subPaths.set(key, found);
  }
  return found;
}

function findSubPath(url: string, token: Pick<TokenInfo, 'uuid' | 'alias'>): string {
  const pathname = pathnameOf(url);
  if (pathname === null) return '/';
  const segments = pathname.split('/');
  const first = segments[1] ?? '';
  // A stored URL may hold any escape a sender typed: one that does not decode names no token.
  let decoded = first;
  try {
    decoded = decodeURIComponent(first);
  } catch {
    // kept as sent
  }
  if (decoded === token.uuid || (token.alias && decoded === token.alias)) return '/' + segments.slice(2).join('/');
  return pathname || '/';
}

type RequestToken = Pick<TokenInfo, 'uuid' | 'alias'>;

/** The request variables that are one value each, by capture type, in the order they are listed. */
const COMMON = ['request.uuid', 'request.token_id', 'request.content', 'request.date', 'request.timestamp', 'request.sorting', 'request.hostname', 'request.size', 'request.type'];
const WEB = ['request.ip', 'request.user_agent', 'request.url', 'request.path', 'request.query', 'request.method', 'request.http_version'];
const EMAIL = ['request.sender', 'request.message_id', 'request.text_content', 'request.html_content', 'request.destinations'];
const DNS = ['request.dns.name', 'request.dns.type', 'request.dns.subdomain', 'request.ip'];
/** Not one of those names: the variable, if any, is one of a family (`request.header.x`...). */
const FAMILY = Symbol('family');

/** One of the single-valued request variables (undefined when the capture's type has none of that name). */
function single(name: string, request: CapturedRequest, token: RequestToken, rawBody: Buffer | undefined): string | undefined | typeof FAMILY {
  const web = request.type === 'web';
  switch (name) {
    case 'request.uuid':
      return str(request.uuid);
    case 'request.token_id':
      return str(request.token_id || token.uuid);
    case 'request.content':
      // A body that is not UTF-8 (an image, a zip) is carried as bytes (../bytes.ts).
      return str(rawBody && rawBody.length && !isUtf8(rawBody) ? bytesText(rawBody) : request.content);
    case 'request.date':
      return str(request.created_at);
    case 'request.timestamp':
      return str(Math.floor(createdAtMs(request.created_at) / 1000));
    case 'request.sorting':
      // Microseconds since 1970, unique per capture: orders captures more finely than the date.
      return str(request.sorting);
    case 'request.hostname':
      return str(request.hostname);
    case 'request.size':
      return str(request.size);
    case 'request.type':
      return str(request.type);
    case 'request.ip':
      return web || request.type === 'dns' ? str(request.ip) : undefined;
    case 'request.user_agent':
      return web ? str(request.user_agent) : undefined;
    case 'request.url':
      return web ? str(request.url) : undefined;
    case 'request.path':
      return web ? subPath(request.url, token) : undefined;
    case 'request.query': {
      if (!web) return undefined;
      const q = request.url.indexOf('?');
      return q === -1 ? '' : request.url.slice(q + 1);
    }
    case 'request.method':
      return web ? str(request.method) : undefined;
    case 'request.http_version':
      return web ? str(request.http_version) : undefined;
  }
  if (request.type === 'email') {
    switch (name) {
      case 'request.sender':
        return str(request.sender);
      case 'request.message_id':
        return str(request.message_id);
      case 'request.text_content':
        return str(request.text_content);
      case 'request.html_content':
        return str(request.html_content);
      case 'request.destinations':
        return (request.destinations ?? []).join(',');
    }
  }
  if (request.type === 'dns') {
    const dns = (request.dns ?? {}) as Record<string, unknown>;
    switch (name) {
      case 'request.dns.name':
        return str(dns.name);
      case 'request.dns.type':
        return str(dns.type);
      case 'request.dns.subdomain':
        return str(dns.subdomain);
    }
  }
  return FAMILY;
}

/** The default variables of a capture (`request.*`), as the docs list them. */
export function requestVariables(request: CapturedRequest, token: RequestToken, rawBody?: Buffer): Map<string, string> {
  const vars = new Map<string, string>();
  const set = (name: string, value: unknown) => vars.set(name, str(value));
  const singles = (names: string[]) => {
    for (const name of names) set(name, single(name, request, token, rawBody));
  };
  singles(COMMON);
  for (const [name, values] of Object.entries(request.headers ?? {})) {
    const value = Array.isArray(values) ? values.join(', ') : str(values);
    set(`request.header.${name.toLowerCase()}`, value);
    // `request.headers.x` is a common slip for the documented `request.header.x`; both work.
    set(`request.headers.${name.toLowerCase()}`, value);
  }
  const files: CapturedFile[] = Array.isArray(request.files) ? request.files : Object.values(request.files ?? {});
  for (const f of files) {
    const p = `request.file.${f.name}`;
    set(`${p}.filename`, f.filename);
    set(`${p}.size`, f.size);
    set(`${p}.content_type`, f.content_type);
    set(`${p}.id`, f.id);
    if (f.link !== undefined) set(`${p}.link`, f.link);
    if (f.content !== undefined) set(`${p}.content`, Buffer.isBuffer(f.content) ? bytesText(f.content) : f.content);
  }
  if (request.type === 'web') {
    for (const [name, value] of Object.entries(request.query ?? {})) set(`request.query.${name}`, value);
    // Every value of a key (`request.query.x` is the last), as a JSON array: `$request.query_all.tags[]$`
    // is `["a","b"]` and `$request.query_all.tags[].0$` is `a`.
    for (const [name, values] of Object.entries(request.query_all ?? {})) set(`request.query_all.${name}`, values);
    for (const [name, value] of Object.entries(request.request ?? {})) set(`request.form.${name}`, value);
    singles(WEB);
  }
  if (request.type === 'email') {
    singles(EMAIL);
    // A check that could not be computed (null) is empty, not 'false'.
    for (const [name, ok] of Object.entries(request.checks ?? {})) set(`request.checks.${name}`, ok === null || ok === undefined ? '' : ok ? 'true' : 'false');
  }
  if (request.type === 'dns') singles(DNS);
  return vars;
}

/** Variables by name, and all of them in order (a Map is one). */
export interface VariableSource {
  get(name: string): string | undefined;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

/**
 * A capture's request variables as a chain reads them: a single-valued one (`request.content`) is
 * made when first read; the families (`request.header.x`...) and a listing make them all, once.
 * Most chains read one or two of some thirty: making them all was a tenth of a short chain's run.
 */
export class RequestVariables implements VariableSource {
  readonly #request: CapturedRequest;
  readonly #token: RequestToken;
  readonly #rawBody: Buffer | undefined;
  #read: Map<string, string | undefined> | undefined;
  #all: Map<string, string> | undefined;

  constructor(request: CapturedRequest, token: RequestToken, rawBody?: Buffer) {
    this.#request = request;
    this.#token = token;
    this.#rawBody = rawBody;
  }

  get(name: string): string | undefined {
    if (this.#all) return this.#all.get(name);
    if (!name.startsWith('request.')) return undefined;
    const read = (this.#read ??= new Map());
    if (read.has(name)) return read.get(name);
    const value = single(name, this.#request, this.#token, this.#rawBody);
    if (value === FAMILY) return this.all().get(name);
    read.set(name, value);
    return value;
  }

  /** Every request variable, in the documented order. */
  all(): Map<string, string> {
    return (this.#all ??= requestVariables(this.#request, this.#token, this.#rawBody));
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.all()[Symbol.iterator]();
  }
}

const MAX_JSON_CACHE = 16;

const NO_GLOBALS: Readonly<Record<string, string>> = Object.freeze({});

export class VariableScope implements Variables {
  private readonly runtime = new Map<string, string>();
  /** Parsed JSON variables (made when a path first walks into one). */
  #json: Map<string, { text: string; value: unknown }> | undefined;
  /** The global variables as given (never changed here: shared snapshots are fine)... */
  readonly #globals: Readonly<Record<string, string>>;
  /** ...until an action stores or deletes one: from then on, this copy. */
  #changedGlobals: Map<string, string> | undefined;
  #template: ((text: string) => string) | undefined;
  /**
   * Variables first (with modifiers), then paths into JSON variables (with modifiers): so the
   * documented `$example.json$` escapes a document even when it has a "json" key.
   */
  readonly resolve = (name: string): string | undefined => resolveWithModifiers(name, this.lookup) ?? resolveWithModifiers(name, this.jsonLookup);

  constructor(
    private readonly base: VariableSource,
    globals: Readonly<Record<string, string>> = NO_GLOBALS,
  ) {
    this.#globals = globals;
  }

  get(name: string): string | undefined {
    return this.resolve(name);
  }

  set(name: string, value: string | number | boolean): void {
    this.runtime.set(name, String(value));
  }

  has(name: string): boolean {
    return this.resolve(name) !== undefined;
  }

  all(): Record<string, string> {
    return Object.fromEntries([...this.base, ...this.runtime]);
  }

  /** Only what actions set (and the initial variables a test passed in). */
  runtimeVariables(): Record<string, string> {
    return Object.fromEntries(this.runtime);
  }

  /** Keeps the snapshot current after an action stored a global variable. */
  deleteGlobal(name: string): void {
    this.#ownGlobals().delete(name);
  }

  setGlobal(name: string, value: string): void {
    this.#ownGlobals().set(name, value);
  }

  #ownGlobals(): Map<string, string> {
    return (this.#changedGlobals ??= new Map(Object.entries(this.#globals)));
  }

  #global(name: string): string | undefined {
    if (this.#changedGlobals) return this.#changedGlobals.get(name);
    return Object.hasOwn(this.#globals, name) ? this.#globals[name] : undefined;
  }

  /** Replaces the variables in a text (made when first asked for). */
  get template(): (text: string) => string {
    return (this.#template ??= (text) => replaceVariables(text, this.resolve));
  }

  /** A name without modifiers: runtime, then request, then `global.x` or a global's own name. */
  private readonly lookup = (name: string): string | undefined => this.runtime.get(name) ?? this.base.get(name) ?? (name.startsWith('global.') ? this.#global(name.slice(7)) : undefined) ?? this.#global(name);

  private readonly jsonLookup = (name: string): string | undefined => this.jsonPath(name);

  /**
   * `$json.order.items.1.sku$` where an earlier variable (`json`, `http.content`,
   * `request.content`...) holds a JSON document: the longest defined prefix is parsed and walked.
   */
  private jsonPath(name: string): string | undefined {
    const parts = name.split('.');
    for (let n = parts.length - 1; n >= 1; n--) {
      const prefix = parts.slice(0, n).join('.');
      const text = this.runtime.get(prefix) ?? this.base.get(prefix) ?? this.#global(prefix);
      if (text === undefined) continue;
      const doc = this.parse(prefix, text);
      if (doc === undefined) return undefined;
      let cur: unknown = doc;
      for (const key of parts.slice(n)) {
        if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
        cur = (cur as Record<string, unknown>)[key];
      }
      return str(cur);
    }
    return undefined;
  }

  private parse(name: string, text: string): unknown {
    const json = (this.#json ??= new Map());
    const hit = json.get(name);
    if (hit && hit.text === text) return hit.value;
    const t = text.trimStart();
    let value: unknown;
    // A document nested deeper than the parse limit is not walked (a value is JSON.stringify'd, which recurses).
    if ((t.startsWith('{') || t.startsWith('[')) && deeperThan(t, 'json') < 0) {
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
    }
    if (json.size >= MAX_JSON_CACHE) json.delete(json.keys().next().value!);
    json.set(name, { text, value });
    return value;
  }
}
