// What the notify actions share: parameter helpers, reading a provider through its definition's
// schemas, and one HTTP call shape (through ctx.services.http, so the outbound policy applies) that
// turns a third party's answer into text, JSON and, on failure, a clear message without secrets.
import { type ActionContext, type HttpResponse, type ProviderDefinition, z } from '@capture/sdk';

/** Longest one call may take (the inline HTTP Request limit), within the chain's budget. */
export const TIMEOUT_MS = 15_000;
/** Bytes of an answer kept; the APIs answer with small JSON documents. */
const MAX_BODY_BYTES = 1 << 20;

/** An http(s) URL. */
export function httpUrl() {
  return z
    .string()
    .trim()
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }))
    .meta({ format: 'uri' });
}

/** An optional http(s) URL, where `''` and `null` (as editors send them) mean "not set". */
export function optionalUrl() {
  return z
    .union([z.literal(''), httpUrl()])
    .nullish()
    .transform((v) => v || undefined);
}

/** An optional provider id; `''` and `null` mean none. */
export function optionalProviderId() {
  return z
    .union([z.string(), z.number().int()])
    .nullish()
    .transform((v) => (v === null || v === undefined || String(v).trim() === '' ? undefined : String(v).trim()));
}

/** `base` without trailing slashes, then `path`. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

export interface UsableProvider<C extends z.ZodType, S extends z.ZodType> {
  id: string;
  name: string;
  credentials: z.output<C>;
  settings: z.output<S>;
}

/**
 * The provider `id` of the definition's type, its credentials and settings parsed by the
 * definition's schemas (defaults applied). Messages name fields, never values.
 */
export async function useProvider<C extends z.ZodType, S extends z.ZodType>(ctx: ActionContext<unknown>, id: string, def: ProviderDefinition<C, S>): Promise<UsableProvider<C, S>> {
  const p = await ctx.services.providers.get(id, def.type);
  const credentials = def.credentials.safeParse(p.credentials ?? {});
  if (!credentials.success) throw new Error(`${def.title} provider ${id} cannot be used: ${firstIssue('credentials', credentials.error)}`);
  const settings = (def.settings ?? z.object({})).safeParse(p.settings ?? {});
  if (!settings.success) throw new Error(`${def.title} provider ${id} cannot be used: ${firstIssue('settings', settings.error)}`);
  return { id, name: p.name, credentials: credentials.data, settings: settings.data as z.output<S> };
}

function firstIssue(field: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const missing = issue?.code === 'invalid_type' && /received undefined/.test(issue.message);
  return `${[field, ...(issue?.path ?? []).map(String)].join('.')} ${missing ? 'is required' : (issue?.message ?? 'is invalid')}`;
}

export interface ApiCall {
  method: 'POST' | 'GET';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Values that must never appear in a message (tokens, secrets, webhook URLs). */
  secrets?: Array<string | undefined>;
}

export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
  ok: boolean;
}

/** Sends one request through the outbound client. Network failures become `Could not reach <service> (host): ...`. */
export async function callApi(ctx: ActionContext<unknown>, service: string, call: ApiCall): Promise<ApiAnswer> {
  let res: HttpResponse;
  try {
    res = await ctx.services.http.request({
      method: call.method,
      url: call.url,
      headers: call.headers,
      body: call.body,
      timeoutMs: Math.max(1, Math.min(TIMEOUT_MS, ctx.timeLeftMs())),
      signal: ctx.signal,
      maxRedirects: 0,
      maxBodyBytes: MAX_BODY_BYTES,
    });
  } catch (e) {
    throw new Error(scrub(`Could not reach ${service} (${hostOf(call.url)}): ${errorText(e)}`, [call.url, ...(call.secrets ?? [])]));
  }
  const text = res.body.toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, ok: res.status >= 200 && res.status < 300 };
}

/**
 * `<service> answered <status>[: detail]`, with the Retry-After of a 429 and, when the service gave
 * no detail, the start of its body. Secrets are replaced by `***`.
 */
export function apiError(service: string, res: ApiAnswer, detail: string | undefined, secrets: Array<string | undefined> = []): Error {
  let text = detail?.trim() || snippet(res);
  if (res.status >= 300 && res.status < 400 && res.headers.location) text = `redirected to ${hostOf(res.headers.location)} (not followed)`;
  const retry = res.status === 429 && res.headers['retry-after'] ? ` (retry after ${res.headers['retry-after']} s)` : '';
  return new Error(scrub(`${service} answered ${res.status}${text ? `: ${text}` : ''}${retry}`, secrets));
}

function snippet(res: ApiAnswer): string {
  if (/<html|<!doctype/i.test(res.text)) return '';
  const one = res.text.replace(/\s+/g, ' ').trim();
  return one.length > 300 ? `${one.slice(0, 300)}...` : one;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

/** A record (a parsed JSON object), or undefined. */
export function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A string or number field of a JSON object, as text. */
export function field(obj: unknown, key: string): string | undefined {
  const v = asObject(obj)?.[key];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as Error & { cause?: unknown }).cause;
  const inner = cause instanceof Error && cause.message && !e.message.includes(cause.message) ? ` (${cause.message})` : '';
  return e.message + inner;
}

/** Replaces each secret (3+ characters) in `text` with `***`. */
export function scrub(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 3) out = out.split(s).join('***');
  return out;
}
