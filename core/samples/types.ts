// What a sample provider is: a catalogue of example deliveries, and how it builds and signs one as
// the real sender does. The mirror of the verify_signature presets (plugins/signatures).
import { createHmac, randomBytes } from 'node:crypto';

/** The providers, by the name the API and the CLI use. */
export const SAMPLE_PROVIDERS = ['github', 'stripe', 'standard_webhooks', 'svix', 'slack', 'shopify', 'twilio'] as const;
export type SampleProviderId = (typeof SAMPLE_PROVIDERS)[number];

/** One event of a provider's catalogue. */
export interface SampleEvent {
  /** What POST /samples/send takes as `event`, e.g. `pull_request.opened`, `payment_intent.succeeded`, `sms`. */
  event: string;
  description: string;
  /** The body's media types it can be sent as (the first is the default). */
  formats: readonly SampleFormat[];
}

export type SampleFormat = 'json' | 'form';

/** What a delivery is built from. */
export interface DeliveryInput {
  event: string;
  /** The signing secret; undefined only where the provider sends unsigned deliveries (GitHub without a secret). */
  secret: string | undefined;
  /** Where it is sent: Twilio signs this URL. */
  url: string;
  /** Milliseconds since the epoch: the signature's timestamp and the payload's fresh times. */
  now: number;
  format: SampleFormat;
  /** Merged into the payload (objects deeply, everything else replaced). */
  overrides: Record<string, unknown> | undefined;
}

/** One delivery, as the provider would send it. */
export interface Delivery {
  method: 'POST';
  headers: Record<string, string>;
  body: Buffer;
}

export interface SampleProvider {
  id: SampleProviderId;
  name: string;
  /** Where the payloads come from, and under which licence. */
  source: string;
  licence: string;
  /** The verify_signature preset that checks its signature. */
  preset: 'github' | 'stripe' | 'standard_webhooks' | 'slack' | 'shopify' | 'twilio';
  /** Whether a delivery needs a secret (GitHub sends unsigned deliveries when none is set). */
  secretRequired: boolean;
  /** Why a secret cannot sign, or null (Standard Webhooks: base64 after `whsec_`). */
  secretProblem?(secret: string): string | null;
  events(): SampleEvent[];
  /** The delivery, or null for an event not in the catalogue. */
  deliver(input: DeliveryInput): Delivery | null;
}

export const hmac = (algorithm: 'sha1' | 'sha256', key: string | Buffer, data: string | Buffer): Buffer => createHmac(algorithm, key).update(data).digest();

/** Whole seconds, as every provider's signed timestamp counts. */
export const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A random identifier in a provider's style: `prefix` + `length` characters of [0-9A-Za-z]. */
export function randomId(prefix: string, length: number, alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

export const randomHex = (length: number, prefix = ''): string =>
  prefix +
  randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `overrides` merged into `base`: objects key by key, all else (arrays included) replaced. A fresh
 * object; own keys only, so `__proto__` is data, never the prototype.
 */
export function mergeOverrides<T>(base: T, overrides: Record<string, unknown> | undefined): T {
  if (!overrides) return base;
  const merge = (a: unknown, b: unknown): unknown => {
    if (!isPlainObject(a) || !isPlainObject(b)) return b;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    for (const [k, v] of Object.entries(b)) Object.defineProperty(out, k, { value: Object.hasOwn(a, k) ? merge(a[k], v) : v, enumerable: true, writable: true, configurable: true });
    return out;
  };
  return merge(base, overrides) as T;
}

/** A JSON body as the providers send it: compact UTF-8. */
export const jsonBody = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/** A form body (application/x-www-form-urlencoded) of string fields, in the order given. */
export function formBody(fields: Record<string, string>): Buffer {
  return Buffer.from(new URLSearchParams(Object.entries(fields)).toString(), 'utf8');
}

/** Form fields with overrides: each top-level key replaces the field (objects as JSON text). */
export function formFields(base: Record<string, string>, overrides: Record<string, unknown> | undefined): Record<string, string> {
  const out = { ...base };
  for (const [k, v] of Object.entries(overrides ?? {})) {
    Object.defineProperty(out, k, { value: typeof v === 'string' ? v : JSON.stringify(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
