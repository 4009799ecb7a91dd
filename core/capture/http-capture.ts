// The capture pipeline for HTTP: resolve token -> read body -> run actions -> store -> respond.
// It runs on plain node:http (not Koa): this is the hot path, and it needs nothing Koa offers.
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerResponse, OutgoingHttpHeaders } from 'node:http2';
import type { Config } from '../config.js';
import { HttpError, NotFound, PayloadTooLarge, TooManyRequests } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ServiceMetrics } from '../metrics/metrics.js';
import { renderError } from '../error-response.js';
import { headerSafe, sendableHeaders } from '@capture/sdk/headers';
import type { HttpVersion, RequestRecord, Store, TokenRecord } from '../store/types.js';
import { isExpired } from '../tokens/expiry.js';
import type { CapturedResponse, CapturePipeline } from './pipeline.js';
import { sleep, type Clock } from '../util/time.js';
import { uuidv7 } from '../util/uuid.js';
import { captureLog } from './capture-log.js';
import { clientIp } from './client-ip.js';
import { createLocator, locationDatabases } from './location.js';
import type { SubdomainCapture } from './subdomain.js';
import { parseForm, parseFormFile, type ParsedForm } from './form.js';
import { decodeReceived, type Decoding } from './content-encoding.js';
import { attachBodyFile, type BodySink } from '../store/bodies/body-files.js';
import { queryOf } from './query.js';
import { listenFor, responseFromSet } from './listen.js';
import { pathStatus, rememberResponse } from './sent-response.js';
import type { TokenCache } from './token-cache.js';
// Imported: the globals `performance` and `Buffer` are accessors, a getter call on every read.
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';

export interface CaptureServices {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  sortingKey: () => number;
  pipeline: CapturePipeline;
  /** Resolves capture URLs' tokens; the store itself when absent. */
  tokens?: TokenCache;
  /** Answer latency and refusals (stored captures are counted by the pipeline's hook). */
  metrics?: Pick<ServiceMetrics, 'captureAnswered' | 'captureRejected'>;
}

/** Capture URLs of tokens with a timeout get `100 / timeout` requests a minute (reference docs). */
export function timeoutRateLimit(timeout: number): number {
  return Math.max(1, Math.floor(100 / timeout));
}

/** The token a capture URL names, as written (at most 64 characters), for the log line of a refused capture. */
function tokenSegment(url: string): string {
  const end = url.slice(1).search(/[/?]/);
  return url.slice(1, end < 0 ? 65 : Math.min(end + 1, 65));
}

/** Captures without uploaded files share this (nothing writes to a capture's files once parsed). */
const NO_FILES: ReadonlyMap<string, Buffer> = new Map();

const COLON = 0x3a;

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * The Host header without a port at its end (`:` and digits, as `/:\d+$/` removes it), found by
 * hand from the end: a pattern's replace costs several times as much, and lastIndexOf is a call
 * into the engine's runtime, on every capture.
 */
function withoutPort(host: string): string {
  const last = host.length - 1;
  let i = last;
  while (i >= 0) {
    const c = host.charCodeAt(i);
    if (c < DIGIT_0 || c > DIGIT_9) break;
    i--;
  }
  // At least one digit, and a colon right before them.
  if (i === last || i < 0 || host.charCodeAt(i) !== COLON) return host;
  return host.slice(0, i);
}

/** Names longer than this are lower-cased each time, not kept (clients choose the names). */
const LONGEST_KEPT_NAME = 64;
const MAX_KEPT_NAMES = 1000;
/**
 * Header names as sent -> lower-cased. The same few names come with every capture: each
 * toLowerCase() is a new string, and a new string as a property name is looked up among the
 * engine's names again; a kept one is neither.
 */
const lowerNames = new Map<string, string>();

/**
 * The lower-case name of a header most requests send, when written as clients write it (`Host`
 * or `host`), else undefined. A received name is a new string with each request: a Map lookup
 * hashes it first, where comparing it with a few literals of its length does not, and the literal
 * returned is a property name the engine already knows.
 */
function commonName(name: string): string | undefined {
  const candidates = COMMON_NAMES_BY_LENGTH[name.length];
  if (candidates) for (const [sent, lower] of candidates) if (name === sent || name === lower) return lower;
  return undefined;
}

/** Headers most requests send, as clients write them and in lower case (literals: known to the engine). */
const COMMON_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['Host', 'host'],
  ['Accept', 'accept'],
  ['Cookie', 'cookie'],
  ['Origin', 'origin'],
  ['User-Agent', 'user-agent'],
  ['Connection', 'connection'],
  ['Content-Type', 'content-type'],
  ['Authorization', 'authorization'],
  ['Content-Length', 'content-length'],
  ['Accept-Encoding', 'accept-encoding'],
  ['X-Forwarded-For', 'x-forwarded-for'],
];
/** COMMON_NAMES by length: a name is compared only with those of its own length. */
const COMMON_NAMES_BY_LENGTH: Array<Array<readonly [string, string]> | undefined> = [];
for (const pair of COMMON_NAMES) (COMMON_NAMES_BY_LENGTH[pair[0].length] ??= []).push(pair);

function lowerName(name: string): string {
  const common = commonName(name);
  if (common !== undefined) return common;
  if (name.length > LONGEST_KEPT_NAME) return name.toLowerCase();
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    if (lowerNames.size >= MAX_KEPT_NAMES) lowerNames.clear();
    lowerNames.set(name, (lower = name.toLowerCase()));
  }
  return lower;
}

/**
 * The request's headers by lower-case name, in the order sent. HTTP/2's pseudo-headers are its
 * request line, not headers; `:authority` is kept as the Host header it stands for (RFC 9113
 * §8.3.1), first, as an HTTP/1.1 client sends it.
 */
function headersOf(req: IncomingMessage): Record<string, string[]> {
  let out: Record<string, string[]> = {};
  let authority: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = lowerName(raw[i]!);
    if (name.charCodeAt(0) === COLON) {
      if (name === ':authority') authority = raw[i + 1];
      continue;
    }
    // A one-value literal for a name's first value: an empty array that is pushed to gets room
    // for 17 (most names are sent once).
    const values = out[name];
    if (values) values.push(raw[i + 1]!);
    else out[name] = [raw[i + 1]!];
  }
  if (authority !== undefined && !out.host) out = { host: [authority], ...out };
  return out;
}

/** The last content type made sendable, and what it became: most answers send their token's, again and again. */
let lastType = '';
let lastSendableType = '';

/** headerSafe() of a content type, remembered for the next answer with the same one. */
function sendableType(type: string): string {
  if (type !== lastType) {
    lastSendableType = headerSafe(type);
    lastType = type;
  }
  return lastSendableType;
}

/** Whether `o` has a key (no array of them built). */
function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

function httpVersionOf(req: IncomingMessage): HttpVersion {
  if (req.httpVersionMajor === 2) return '2';
  return req.httpVersion === '1.0' ? '1.0' : '1.1';
}

/** A received body: in memory, or (past BODY_FILE_THRESHOLD) in a file not yet read. */
type Received = { buffer: Buffer } | { file: string; size: number };

/**
 * The body, up to `limit` bytes. `declared` is the Content-Length header as a number (NaN without
 * one), taken from the capture's own header map like every header it reads. With `sink`, bytes past its threshold go to
 * a file as they arrive instead of being held.
 */
function readLimited(req: IncomingMessage, declared: number, limit: number, sink?: BodySink): Promise<Received> {
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLarge(`Body larger than ${limit} bytes`));
  return new Promise((resolve, reject) => {
    // Most bodies arrive in one chunk: an array (room for 17 once pushed to) only from a second one.
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    const fail = sink
      ? (err: unknown) => {
          sink.discard();
          reject(err);
        }
      : reject;
    // The file cannot take the body (a full disk): answered now, the rest of the body unread.
    sink?.failed((err) => {
      req.removeAllListeners('data');
      req.resume();
      fail(err);
    });
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        fail(new PayloadTooLarge(`Body larger than ${limit} bytes`));
      } else if (sink) {
        // The file is behind the network: stop reading rather than hold what it has not written.
        if (!sink.write(chunk)) {
          req.pause();
          sink.drained(() => req.resume());
        }
      } else if (!first) first = chunk;
      else (chunks ??= [first]).push(chunk);
    });
    req.on('end', () => {
      if (sink) sink.end().then(resolve, fail);
      else resolve({ buffer: chunks ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0)) });
    });
    req.on('error', fail);
  });
}

function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin;
  return {
    'Access-Control-Allow-Origin': origin ?? '*',
    'Access-Control-Allow-Methods': String(req.headers['access-control-request-method'] ?? 'GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD'),
    'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? '*'),
    'Access-Control-Expose-Headers': '*',
    ...(origin ? { 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' } : {}),
  };
}

/** The Content-Length of a body; an empty one (a token's default content) is not counted. */
function lengthOf(body: string | Buffer): string {
  if (typeof body !== 'string') return String(body.length);
  return body.length === 0 ? '0' : String(Buffer.byteLength(body));
}

/**
 * Answers: `head` by name, or as a flat list (name, value, ...), which writeHead takes as it is (no
 * object walked key by key); either holds Content-Length already (lengthOf). A string body stays a
 * string: node:http then sends it in the same write as the head, where a Buffer takes a second
 * chunk (writev).
 */
function send(req: IncomingMessage, res: ServerResponse, status: number, head: Record<string, string> | string[], body: string | Buffer): void {
  if (req.httpVersionMajor === 2 && Array.isArray(head)) respondHttp2(res as unknown as Http2ServerResponse, status, head);
  else res.writeHead(status, head);
  // An empty body is no chunk: over HTTP/2 a chunk, even empty, is a DATA frame of its own.
  res.end(req.method === 'HEAD' || body.length === 0 ? undefined : body);
}

/**
 * The head of an HTTP/2 answer, given to its stream as one header object. node:http2's
 * compatibility layer would check and lower-case each name again, and ask the stream to wait for
 * trailers, which costs an empty frame after the body (the layer sends trailers whether or not
 * any were set). The names here are the capture's own: lower-cased, they need no other check.
 */
function respondHttp2(res: Http2ServerResponse, status: number, head: string[]): void {
  const stream = res.stream;
  // A stream the client reset takes no answer (nor does the layer's writeHead send one then).
  if (stream.destroyed || stream.closed) return;
  const headers: OutgoingHttpHeaders = { ':status': status };
  for (let i = 0; i < head.length; i += 2) headers[lowerName(head[i]!)] = head[i + 1];
  // What the layer's writeHead keeps too: read by whoever looks at the answer after it went.
  res.statusCode = status;
  stream.respond(headers);
}

export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown, logger: Logger): void {
  const r = renderError(err, logger);
  if (res.headersSent) return void res.destroy();
  // The body may not have been read: do not keep the connection for a half-read request. (HTTP/2
  // has no such header: its stream ends with the answer, and the rest of the body is dropped.)
  if (!req.complete && req.httpVersionMajor < 2) r.headers.Connection = 'close';
  const body = JSON.stringify(r.body);
  send(req, res, r.status, { 'Content-Type': 'application/json', ...r.headers, 'Content-Length': lengthOf(body) }, body);
}

export function createCaptureHandler(s: CaptureServices) {
  const { config, store, clock } = s;
  // Null when GEOIP_DATABASES is off: then no address is looked at.
  const databases = locationDatabases(config.GEOIP_DATABASES);
  const locator = databases ? createLocator(databases, s.logger) : null;
  const log = captureLog(config, s.logger);

  /**
   * One capture, answered here whatever happens. One async frame from the first byte to the answer:
   * on this hot path each async function, promise and await is memory allocated per capture.
   */
  async function capture(req: IncomingMessage, res: ServerResponse, started: number, sub: SubdomainCapture | undefined): Promise<void> {
    try {
      const rawUrl = req.url ?? '/';
      if (rawUrl.length > config.MAX_QUERY_LENGTH) throw new HttpError(414, `URL longer than ${config.MAX_QUERY_LENGTH} characters`);
      const q = rawUrl.indexOf('?');
      const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
      const search = q < 0 ? '' : rawUrl.slice(q + 1);
      // `/{token}[/{status}][/...]`, read without splitting the whole path; on a subdomain capture
      // the token is the Host's first label and the whole path is `[/{status}][/...]`.
      const afterRef = sub ? 0 : path.indexOf('/', 1);
      let ref = sub ? sub.ref : afterRef < 0 ? path.slice(1) : path.slice(1, afterRef);
      if (ref.includes('%')) {
        try {
          ref = decodeURIComponent(ref);
        } catch {
          throw new NotFound('Token not found');
        }
      }
      const token = s.tokens?.peek(ref) ?? (await (s.tokens ?? store.tokens).resolve(ref));
      const now = clock.now();
      if (!token || isExpired(token, now)) throw new NotFound('Token not found');

      if (token.timeout > 0) await limitTimeoutRate(token, now);

      const headers = headersOf(req);
      // NaN without the header (or with one that is no number).
      const declaredLength = Number(headers['content-length']?.[0]);
      // A body declared small enough never needs the file sink (most captures: no extra work).
      const sink = store.bodyFiles && !(declaredLength <= store.bodyFiles.threshold) ? store.bodyFiles.sink() : undefined;
      const received = await readLimited(req, declaredLength, config.MAX_BODY_BYTES, sink);
      let coding: Decoding | null = null;
      try {
        // Only a body sent with Content-Encoding takes the extra step.
        if (headers['content-encoding']) coding = await decodeReceived(received, headers['content-encoding'], config.MAX_BODY_BYTES, store.bodyFiles && (() => store.bodyFiles!.sink()));
        const body = coding?.body ?? received;
        const contentType = headers['content-type']?.[0] ?? null;
        // A filed body is parsed from its file (multipart: streamed, not read back whole).
        const parsed = 'file' in body ? parseFormFile(contentType, body.file, body.size) : parseForm(contentType, body.buffer);
        const form: ParsedForm & { read?: Buffer } = parsed instanceof Promise ? await parsed : parsed;
        const extra: Record<string, unknown> = coding ? { ...coding.fields } : {};
        const ip = clientIp(req, config.TRUSTED_PROXIES);
        if (locator) {
          // Loopback and private senders: null at once. The first public one waits for the files once.
          const found = locator.locate(ip);
          const location = found instanceof Promise ? await found : found;
          if (location) Object.assign(extra, location);
        }
        const record = recordOf(req, sub, token, now, rawUrl, search, headers, body, form, ip, extra);
        if (coding?.sent) record.sentBody = coding.sent;

        const initial: CapturedResponse = {
          status: pathStatus(path, afterRef) ?? token.default_status,
          content: token.default_content,
          contentType: token.default_content_type,
          headers: {},
        };
        const files = form.data ?? NO_FILES;
        // The steps of the rare cases are functions of their own: every variable of this function
        // is memory allocated with each capture's frame.
        let response = initial;
        if (token.listen > 0) response = await processListened(token, record, files, initial, started);
        else if (s.pipeline.runsActions(token)) response = (await s.pipeline.process(token, record, files, initial, started)).response;
        else {
          // The pipeline's work without actions, with this frame's await as the commit's only continuation.
          const commit = s.pipeline.store(token, record, files, started);
          if (commit) {
            await commit;
            s.pipeline.committed(token, record);
          }
        }
        if (token.timeout > 0) await sleep(token.timeout * 1000);
        answer(req, res, started, token, record, response);
      } finally {
        // Stored captures moved the file into the store; what is left here was never stored.
        if ('file' in received) await rm(received.file, { force: true });
        if (coding && coding.body !== received && 'file' in coding.body) await rm(coding.body.file, { force: true });
      }
    } catch (err) {
      failed(req, res, err, started, sub);
    }
  }

  /** Refuses a capture past its token's rate (`timeoutRateLimit`, counted across processes). */
  async function limitTimeoutRate(token: TokenRecord, now: number): Promise<void> {
    const window = now - (now % 60_000);
    const limit = timeoutRateLimit(token.timeout);
    if ((await store.counters.hit(`capture-timeout:${token.uuid}`, window, 120_000)) > limit) {
      throw new TooManyRequests(`This URL has a timeout of ${token.timeout}s and takes at most ${limit} requests a minute`, (window + 60_000 - now) / 1000);
    }
  }

  /** Processes a capture of a token that listens (listen.ts): answered as set for it in time, else as usual. */
  async function processListened(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, initial: CapturedResponse, started: number): Promise<CapturedResponse> {
    // Open before the capture is stored, so that it is never listed without its wait (listen.ts).
    const listening = await listenFor(store, clock, token.uuid, record.uuid, token.listen);
    try {
      const { response, stored } = await s.pipeline.process(token, record, files, initial, started);
      const set = await listening.response();
      if (!set) {
        s.logger.info('capture: no response was set in time; answered as usual', { request: record.uuid, token: token.uuid, listen: token.listen });
        return response;
      }
      const answer = responseFromSet(set, response.contentType);
      if (stored) await keepSetResponse(record, answer);
      return answer;
    } finally {
      await listening.close();
    }
  }

  /** The capture's record, as stored: `received` is the body as decoded, `form` what was parsed of it. */
  function recordOf(
    req: IncomingMessage,
    sub: SubdomainCapture | undefined,
    token: TokenRecord,
    now: number,
    rawUrl: string,
    search: string,
    headers: Record<string, string[]>,
    received: Received,
    form: ParsedForm & { read?: Buffer },
    ip: string,
    extra: Record<string, unknown>,
  ): RequestRecord {
    const filed = 'file' in received;
    const body = filed ? Buffer.alloc(0) : received.buffer;
    const host = sub ? sub.host : (headers.host?.[0] ?? '');
    const base = sub ? `${sub.scheme}://${host}` : (config.baseUrl ?? `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}`);
    const record: RequestRecord = {
      uuid: uuidv7(now),
      token_id: token.uuid,
      type: 'web',
      // From the (cached) token: no lookup per capture.
      team_id: token.team_id ?? null,
      ip,
      hostname: withoutPort(host),
      method: req.method ?? 'GET',
      user_agent: headers['user-agent']?.[0] ?? '',
      url: base + rawUrl,
      content_type: headers['content-type']?.[0] ?? null,
      body,
      size: filed ? received.size : body.length,
      query: queryOf(search, extra),
      headers,
      form: form.fields,
      files: form.files,
      custom_action_output: [],
      custom_action_errors: [],
      time: 0,
      note: null,
      sorting: s.sortingKey(),
      created_at: now,
      updated_at: now,
      extra,
      httpVersion: httpVersionOf(req),
    };
    // The record reads the file when something needs the bytes (actions, realtime); the store moves it.
    if (filed) attachBodyFile(record, received.file, form.read);
    return record;
  }

  /**
   * The one exit for what actions, scripts and settings put in the answer: whatever a stored or
   * computed header holds, it is made sendable here rather than failing the answer with a 500.
   */
  function answer(req: IncomingMessage, res: ServerResponse, started: number, token: TokenRecord, record: RequestRecord, response: CapturedResponse): void {
    const contentType = sendableType(response.contentType);
    if (!token.cors && !hasKeys(response.headers)) {
      // Most answers have no header of their own: the head as a flat list. The same headers as below, in order.
      const body = response.content;
      send(req, res, response.status, ['Content-Type', contentType, 'X-Request-Id', record.uuid, 'X-Token-Id', token.uuid, 'Content-Length', lengthOf(body)], body);
    } else {
      const out: Record<string, string> = { 'Content-Type': contentType, 'X-Request-Id': record.uuid, 'X-Token-Id': token.uuid };
      if (hasKeys(response.headers)) Object.assign(out, sendableHeaders(response.headers));
      if (token.cors) Object.assign(out, corsHeaders(req));
      // Last: a stored header of that name does not decide it.
      out['Content-Length'] = lengthOf(response.content);
      send(req, res, response.status, out, response.content);
    }
    s.metrics?.captureAnswered((performance.now() - started) / 1000);
    log?.({ request: record.uuid, token: token.uuid, method: record.method, status: response.status, size: record.size, ms: performance.now() - started });
  }

  /** The stored request gets the answer set for it; failing that, the answer still goes out. */
  async function keepSetResponse(record: RequestRecord, response: CapturedResponse): Promise<void> {
    rememberResponse(record, response);
    try {
      await store.requests.update(record.token_id, record.uuid, { extra: record.extra, updated_at: clock.now() });
    } catch (err) {
      s.logger.error('capture: could not store the set response', { err, request: record.uuid });
    }
  }

  function failed(req: IncomingMessage, res: ServerResponse, err: unknown, started: number, sub: SubdomainCapture | undefined): void {
    if (!(err instanceof HttpError)) s.logger.error('capture failed', { err, url: req.url });
    sendError(req, res, err, s.logger);
    if (s.metrics) {
      s.metrics.captureRejected('http', res.statusCode);
      s.metrics.captureAnswered((performance.now() - started) / 1000);
    }
    log?.({ token: sub?.ref ?? tokenSegment(req.url ?? '/'), method: req.method ?? 'GET', status: res.statusCode, ms: performance.now() - started, error: err instanceof Error ? err.message : String(err) });
  }
  /** `sub`: the token named by the Host header (capture by subdomain), else the path names it. */
  return function handle(req: IncomingMessage, res: ServerResponse, sub?: SubdomainCapture): Promise<void> {
    return capture(req, res, performance.now(), sub);
  };
}
