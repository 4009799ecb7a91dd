// The page's only door to the server: same-origin JSON API calls with the stored API key and any
// token password, errors as ApiError carrying the server's `{message, errors}`.
import { settings } from './settings';

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldErrors = {},
  ) {
    super(message);
  }
  /** The server has no such route at all (an optional part it does not run), not a missing record. */
  get notAvailable(): boolean {
    return this.status === 404 && /^No route for /.test(this.message);
  }
}

export interface Token {
  uuid: string;
  alias: string | null;
  actions: boolean;
  cors: boolean;
  expiry: number | boolean | null;
  timeout: number;
  listen: number;
  premium: boolean;
  user_id: number | null;
  default_content: string;
  default_status: number;
  default_content_type: string;
  request_limit: number | null;
  description: string | null;
  password?: boolean;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  requests?: number;
  latest_request_at?: string | null;
}

export interface FileMeta {
  id: string;
  name: string;
  filename: string;
  size: number;
  content_type: string;
}

export interface CapturedRequest {
  uuid: string;
  type: string;
  token_id: string;
  ip: string;
  hostname: string;
  method: string;
  user_agent: string;
  content: string;
  /** The body in base64 when it is not UTF-8 text. */
  content_base64?: string;
  /** Set when the body came with a Content-Encoding: whether `content` is decoded, or why not. */
  content_encoding?: string;
  decoded?: boolean;
  decode_error?: string;
  encoded_size?: number;
  query: Record<string, unknown> | null;
  /** Every value of each query key (`query` keeps the last of a repeated key). */
  query_all?: Record<string, string[]> | null;
  request: Record<string, unknown> | null;
  headers: Record<string, string[] | string>;
  url: string;
  size: number;
  files: FileMeta[] | Record<string, FileMeta>;
  custom_action_output: unknown[];
  custom_action_errors: unknown[];
  note?: string | null;
  time: number;
  sorting: number;
  created_at: string;
  updated_at: string;
  /** Where the sender's (public) address is, from the server's offline database (HTTP captures). */
  country?: string;
  country_code?: string;
  region?: string;
  city?: string;
  // E-mail captures
  sender?: string;
  subject?: string;
  destinations?: string[];
  message_id?: string;
  text_content?: string | null;
  html_content?: string | null;
  // DNS captures
  dns?: { name: string; type: string; protocol?: string; subdomain?: string };
}

export interface RequestPage {
  data: CapturedRequest[];
  total: number;
  per_page: number;
  current_page: number;
  is_last_page: boolean;
}

export interface Page<T> {
  data: T[];
  current_page: number;
  last_page: number;
  total: number;
  per_page: number;
  next_page_url: string | null;
}

export interface ServerConfig {
  base_url: string;
  email_domain: string;
  dns_domain: string;
  /** Set when `<token>.capture_domain` captures too (CAPTURE_DOMAIN). */
  capture_domain?: string | null;
  /** Hosted databases are configured (DATABASES_POSTGRES_URL). */
  databases?: boolean;
}

/** Token passwords the user typed, per token, for this tab only. */
const passwords = new Map<string, string>();
export function setTokenPassword(token: string, password: string | null): void {
  if (password) passwords.set(token, password);
  else passwords.delete(token);
  try {
    if (password) sessionStorage.setItem(`pw:${token}`, password);
    else sessionStorage.removeItem(`pw:${token}`);
  } catch {
    /* storage may be off */
  }
}
export function tokenPassword(token: string): string | undefined {
  if (!passwords.has(token)) {
    try {
      const v = sessionStorage.getItem(`pw:${token}`);
      if (v) passwords.set(token, v);
    } catch {
      /* storage may be off */
    }
  }
  return passwords.get(token);
}

export interface CallOptions {
  json?: unknown;
  body?: string;
  contentType?: string;
  accept?: string;
  /** The token whose password (if one was entered) goes along. */
  token?: string;
  /** A share link's secret (view-only access to a token's requests), sent as `Share-Key`. */
  share?: string;
  signal?: AbortSignal;
}

function authHeaders(token?: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const key = settings.apiKey();
  if (key) headers['Api-Key'] = key;
  const pw = token ? tokenPassword(token) : undefined;
  if (pw) headers.Authorization = `Basic ${btoa(unescape(encodeURIComponent(`:${pw}`)))}`;
  return headers;
}

/** A fetch of the API; resolves the parsed JSON (or text), throws ApiError on a non-2xx answer. */
export async function call<T = unknown>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = opts.share ? { Accept: opts.accept ?? 'application/json', 'Share-Key': opts.share } : { Accept: opts.accept ?? 'application/json', ...authHeaders(opts.token) };
  let body: string | undefined = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['Content-Type'] = 'application/json';
  } else if (body !== undefined && opts.contentType) headers['Content-Type'] = opts.contentType;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, signal: opts.signal, cache: 'no-store' });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'The server cannot be reached');
  }
  const type = res.headers.get('content-type') ?? '';
  const text = res.status === 204 ? '' : await res.text();
  let data: unknown = text;
  if (type.includes('json') && text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    const d = (typeof data === 'object' && data !== null ? data : {}) as { message?: string; errors?: FieldErrors };
    throw new ApiError(res.status, d.message ?? `${res.status} ${res.statusText}`, d.errors ?? {});
  }
  return data as T;
}

export const enc = encodeURIComponent;

/** Query string for the realtime stream, which cannot send headers. */
export function streamAuthQuery(token: string): string {
  const q = new URLSearchParams();
  const key = settings.apiKey();
  if (key) q.set('api_key', key);
  const pw = tokenPassword(token);
  if (pw) q.set('password', pw);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Downloads a file the API guards with headers: fetches it, then saves it through a blob URL. `share`: a share link's secret instead of the stored credentials. */
export async function download(path: string, filename: string, token: string, share?: string): Promise<void> {
  const res = await fetch(path, { headers: share ? { 'Share-Key': share } : authHeaders(token) });
  if (!res.ok) throw new ApiError(res.status, `Download failed: ${res.status}`);
  saveBlob(await res.blob(), filename);
}

/** Hands `blob` to the browser as a download named `filename`. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

let configPromise: Promise<ServerConfig> | undefined;
export function serverConfig(): Promise<ServerConfig> {
  configPromise ??= call<ServerConfig>('GET', '/app/config.json').catch(() => ({
    base_url: location.origin,
    email_domain: 'email.localhost',
    dns_domain: 'dns.localhost',
  }));
  return configPromise;
}
