// Request bodies sent with Content-Encoding (gzip, deflate, br, or a list of them): decoded for the
// capture's content, form fields, search and actions, with the decoded size bounded like any body.
// A body that cannot be decoded (unknown coding, corrupt data) is kept as sent and says why.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { PayloadTooLarge } from '../errors.js';
import type { BodySink } from '../store/bodies/body-files.js';

export type Coding = 'gzip' | 'deflate' | 'br';

/** More codings than this in one request are not decoded (each adds a decompressor to run). */
export const MAX_CODINGS = 4;

/** `x-gzip` is gzip (RFC 9110 §8.4.1.3); `identity` means no coding and is dropped. */
const KNOWN: Record<string, Coding> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'br' };

/** What the Content-Encoding header asks: the codings in the order they were applied, or why they cannot be undone. */
export type CodingPlan = { label: string; codings: Coding[] } | { label: string; unsupported: string };

/** The header's codings; null when there is none to undo (no header, empty, or only `identity`). */
export function codingPlan(values: readonly string[] | undefined): CodingPlan | null {
  if (!values?.length) return null;
  const listed = values
    .join(',')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (!listed.length) return null;
  const label = listed.join(', ');
  if (listed.length > MAX_CODINGS) return { label, unsupported: `more than ${MAX_CODINGS} content codings` };
  const unknown = listed.find((c) => !(c in KNOWN));
  if (unknown !== undefined) return { label, unsupported: `unsupported content coding "${unknown.slice(0, 64)}"` };
  return { label, codings: listed.map((c) => KNOWN[c]!) };
}

/** A received body: in memory, or (past BODY_FILE_THRESHOLD) in a file. */
export type ReceivedBody = { buffer: Buffer } | { file: string; size: number };

/** Decompression failed: the data is not what its coding says. The message says how. */
export class DecodeError extends Error {}

/**
 * `deflate` is the zlib format (RFC 1950), but some clients send raw deflate (RFC 1951): a zlib
 * stream starts with a header whose first byte names method 8 and whose first two bytes, read as a
 * big-endian number, are a multiple of 31.
 */
async function* inflateEither(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < 2 && !done) {
    const next = await it.next();
    if (next.done) done = true;
    else head = Buffer.concat([head, next.value]);
  }
  const zlibHeader = head.length >= 2 && (head[0]! & 0x0f) === 8 && head.readUInt16BE(0) % 31 === 0;
  const inflate = zlibHeader ? createInflate() : createInflateRaw();
  async function* rest(): AsyncGenerator<Buffer> {
    yield head;
    while (!done) {
      const next = await it.next();
      if (next.done) done = true;
      else yield next.value;
    }
  }
  // A failure on either side ends both, and surfaces here through the inflater.
  const feeding = pipeline(Readable.from(rest()), inflate).catch(() => undefined);
  yield* inflate as AsyncIterable<Buffer>;
  await feeding;
}

type Stage = NodeJS.ReadWriteStream | ((source: AsyncIterable<Buffer>) => AsyncIterable<Buffer>);

function decoder(c: Coding): Stage {
  if (c === 'gzip') return createGunzip();
  if (c === 'br') return createBrotliDecompress();
  return inflateEither;
}

/**
 * Undoes `codings` (last applied first) on `body`, streaming: the output is counted as it comes and
 * a body decoding past `limit` bytes is refused (413) as soon as it does, so a small compressed body
 * never expands in memory. With `sink` the output goes through it (to a file past its threshold).
 * Throws PayloadTooLarge, DecodeError, or what the sink failed with.
 */
export async function decodeBody(body: ReceivedBody, codings: readonly Coding[], limit: number, sink?: BodySink): Promise<ReceivedBody> {
  const source = 'buffer' in body ? Readable.from([body.buffer]) : createReadStream(body.file);
  const chunks: Buffer[] = [];
  let size = 0;
  // Kept here: the pipeline may report the stages it aborted rather than the error that stopped it.
  let tooLarge: PayloadTooLarge | null = null;
  let sinkFailure: unknown = null;
  let wake: (() => void) | null = null;
  sink?.failed((err) => {
    sinkFailure = err;
    wake?.();
  });
  async function collect(decoded: AsyncIterable<Buffer>): Promise<void> {
    for await (const chunk of decoded) {
      size += chunk.length;
      if (size > limit) throw (tooLarge = new PayloadTooLarge(`Body larger than ${limit} bytes once decoded (Content-Encoding: ${codings.join(', ')})`));
      if (!sink) chunks.push(chunk);
      else if (!sink.write(chunk)) await new Promise<void>((resolve) => ((wake = resolve), sink.drained(resolve)));
      if (sinkFailure) throw sinkFailure;
    }
  }
  const stages = [...codings].reverse().map(decoder);
  try {
    await (pipeline as (...s: unknown[]) => Promise<void>)(source, ...stages, collect);
  } catch (err) {
    sink?.discard();
    if (tooLarge) throw tooLarge;
    if (sinkFailure) throw sinkFailure;
    if ('file' in body && (err as NodeJS.ErrnoException).syscall) throw err;
    throw new DecodeError((err as Error).message || String(err));
  }
  if (sink) return sink.end();
  return { buffer: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) };
}

/** The id the bytes as sent are stored under, beside the request's uploaded files (never listed with them). */
export const SENT_BODY_FILE_ID = 'body-as-sent';

/** What a capture records about its coding (fields of the request's view, kept in `extra`). */
export interface CodingFields {
  [key: string]: unknown;
  /** The Content-Encoding codings, as listed (lower case, `identity` left out). */
  content_encoding: string;
  /** `content` (and search, forms, actions) hold the decoded body. */
  decoded: boolean;
  /** Why the body is kept as sent instead. */
  decode_error?: string;
  /** Bytes of the body as sent; `size` counts the decoded body. */
  encoded_size: number;
}

export interface Decoding {
  /** The body to capture: decoded, or as sent when it could not be. */
  body: ReceivedBody;
  /** The bytes as sent when `body` was decoded from them (kept for `raw`), else null. */
  sent: Buffer | null;
  fields: CodingFields;
}

/**
 * The capture's body after its Content-Encoding (`header`: the header's values); null when there
 * is nothing to decode. `newSink` gives the decoded body a sink of its own (BODY_FILE_THRESHOLD).
 * Only a decoded body past `limit` (PayloadTooLarge) or a failing sink rejects.
 */
export async function decodeReceived(received: ReceivedBody, header: readonly string[] | undefined, limit: number, newSink?: () => BodySink): Promise<Decoding | null> {
  const plan = codingPlan(header);
  const encodedSize = 'buffer' in received ? received.buffer.length : received.size;
  if (!plan || encodedSize === 0) return null;
  const kept = (why: string): Decoding => ({ body: received, sent: null, fields: { content_encoding: plan.label, decoded: false, decode_error: why, encoded_size: encodedSize } });
  if ('unsupported' in plan) return kept(plan.unsupported);
  let body: ReceivedBody;
  try {
    body = await decodeBody(received, plan.codings, limit, newSink?.());
  } catch (err) {
    if (err instanceof DecodeError) return kept(`could not decode ${plan.label}: ${err.message}`);
    throw err;
  }
  const sent = 'buffer' in received ? received.buffer : await readFile(received.file);
  return { body, sent, fields: { content_encoding: plan.label, decoded: true, encoded_size: encodedSize } };
}
