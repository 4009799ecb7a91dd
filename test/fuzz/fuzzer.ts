// The route fuzzer: every operation of /openapi.json (the route objects of core/http/routes.ts, the
// capture URLs with any method, the live stream) and the socket.io endpoint, sent hostile requests
// (hostile.ts) built around values that fit their schemas (schema-values.ts), for a bounded time.
// A request fails the run when it is answered with a 5xx (other than a capture's own answer and an
// upstream's 502/504), is not answered in time, gets no answer at all, or answers a caller with a
// canary it may not read; a batch fails when a protected fixture changed (world.ts). fast-check
// draws the batches from a seed: the same seed draws the same requests again.
import fc from 'fast-check';
import { deepJson, hostileBody, hostileHeaders, hostileQuery, hostileQueryValue, hostileRestPath, hostileSegment, type Body } from './hostile.js';
import { sendRaw, type RawOutcome, type RawRequest } from './raw-http.js';
import { SocketChannel, type SubscribeOutcome } from './socket.js';
import { corpus } from './corpus.js';
import { valuesOf } from './schema-values.js';
import { changes, ensure, PROTECTED, SCRATCH_FOR, snapshot, type FixtureName, type World } from './world.js';

export interface FuzzOptions {
  /** How long to keep drawing batches. */
  seconds: number;
  seed: number;
  /** The time a request may take; waiting routes get WAIT_MS more. */
  requestTimeoutMs: number;
  /** Whether the target is still alive (a process that exited is reported as such). */
  alive?: () => string | null;
  /** Prints each request before it is sent. */
  trace?: boolean;
  /**
   * Leaves out the requests whose `<caller> <METHOD> <route> <body description>` it matches: a local
   * aid while a known failure is being fixed elsewhere (FUZZ_SKIP); none by default.
   */
  skip?: RegExp;
}

export interface FuzzResult {
  requests: number;
  /** Answers by status (`hang` and `no-answer` for the others), over all routes and per route. */
  statuses: Record<string, number>;
  byRoute: Record<string, Record<string, number>>;
  batches: number;
  seed: number;
  /** Null when the run passed; else what failed, with the seed and the request to replay. */
  failure: string | null;
}

/** Longest legitimate wait of a request: a token's timeout (30 s), a chain's budget (30 s), `listen`, /requests/wait. */
const WAIT_MS = 75_000;
const WAITING = /^\/\{token_id\}|\/wait$|\/forward$|\/test-action$|\/workflow\/test$|\/execute$|\/run-now$|\/replays$|\/query$|^\/users\/invite$/;
/** Routes that report an upstream's failure as 502/504 (a forward target, the SMTP relay). */
const UPSTREAM = /\/forward$|^\/users\/invite$/;
const CAPTURE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH', 'PURGE', 'LOCK', 'REPORT'];

export type Caller = 'none' | 'user' | 'bogus' | 'password' | 'wrongPassword' | 'share' | 'admin';
export type Param = { fixture: FixtureName } | { matching: true } | { raw: string };

export interface Operation {
  method: string;
  path: string;
  query: Array<{ name: string; schema: unknown }>;
  body?: unknown;
}

export interface Drawn {
  op: number;
  method: string;
  caller: Caller;
  params: Record<string, Param>;
  query: string;
  headers: Array<[string, string]>;
  body: Body | null;
  /** Where the caller's password or share secret goes. */
  viaHeader: boolean;
  /** Which form a socket.io subscription takes (subscribePayload). */
  variant: number;
}

export interface Batch {
  admin: boolean;
  requests: Drawn[];
}

/** Scratch tokens come up more often: requests that get past the access check reach more code. */
const TOKEN_POOL: FixtureName[] = ['anonToken', 'anonToken', 'ownToken', 'ownToken', 'ownAlias', 'victimToken', 'victimAlias', 'lockedToken'];
const POOLS: Record<string, FixtureName[]> = {
  token_id: TOKEN_POOL,
  request_id: ['anonRequest', 'ownRequest', 'victimRequest', 'lockedRequest'],
  file_id: ['anonFile', 'ownFile', 'victimFile', 'lockedFile'],
  group_id: ['ownGroup', 'victimGroup'],
  schedule_id: ['ownSchedule', 'victimSchedule'],
  action_id: ['ownAction', 'victimAction'],
  user_id: ['userId', 'victimId'],
  key_id: ['userKeyId', 'victimKeyId'],
};
/** A request, its file or an action that belongs to the token chosen in the same path. */
const MATCHING: Partial<Record<FixtureName, Record<'request_id' | 'file_id' | 'action_id', FixtureName>>> = {
  anonToken: { request_id: 'anonRequest', file_id: 'anonFile', action_id: 'ownAction' },
  ownToken: { request_id: 'ownRequest', file_id: 'ownFile', action_id: 'ownAction' },
  ownAlias: { request_id: 'ownRequest', file_id: 'ownFile', action_id: 'ownAction' },
  victimToken: { request_id: 'victimRequest', file_id: 'victimFile', action_id: 'victimAction' },
  victimAlias: { request_id: 'victimRequest', file_id: 'victimFile', action_id: 'victimAction' },
  lockedToken: { request_id: 'lockedRequest', file_id: 'lockedFile', action_id: 'victimAction' },
};

/** The operations of /openapi.json, and the socket.io endpoint. */
export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => ({ name: p.name, schema: p.schema }));
      ops.push({ method: method.toUpperCase(), path, query, body: op.requestBody?.content?.['application/json']?.schema });
    }
  }
  ops.push({
    method: 'GET',
    path: '/socket.io/',
    query: [
      { name: 'EIO', schema: { enum: ['3', '4', '5'] } },
      { name: 'transport', schema: { enum: ['polling', 'websocket'] } },
      { name: 'sid', schema: { type: 'string' } },
    ],
  });
  ops.push({ method: 'SUBSCRIBE', path: '/socket.io/ private-token.{token_id}', query: [] });
  ops.push({
    method: 'POST',
    path: '/socket.io/',
    query: [
      { name: 'EIO', schema: { enum: ['3', '4'] } },
      { name: 'transport', schema: { enum: ['polling'] } },
      { name: 'sid', schema: { type: 'string' } },
    ],
    body: {},
  });
  return ops;
}

function paramArb(name: string, path: string, admin: boolean): fc.Arbitrary<Param> {
  let pool = POOLS[name];
  if (name === 'id' && path.startsWith('/global-variables')) pool = ['ownGlobal', 'victimGlobal'];
  // Small numbers name protected fixtures too (the victim is user 2): not for the administrator.
  const raw = (admin ? hostileSegment : fc.oneof(hostileSegment, fc.constantFrom('1', '2', '3'))).map((s) => ({ raw: s }) as Param);
  if (name === 'path') return hostileRestPath.map((s) => ({ raw: s }));
  if (!pool) return raw;
  const fixture = fc.constantFrom(...pool).map((f) => ({ fixture: f }) as Param);
  const matching = name === 'request_id' || name === 'file_id' || name === 'action_id' ? [{ arbitrary: fc.constant({ matching: true } as Param), weight: 3 }] : [];
  return fc.oneof({ arbitrary: fixture, weight: 4 }, ...matching, { arbitrary: raw, weight: 1 });
}

function queryArb(op: Operation, doc: any): fc.Arbitrary<string> {
  const one = (p: { name: string; schema: unknown }) =>
    // Values past MAX_QUERY_LENGTH (414) are sent now and then anyway (hostileQuery): cut these.
    fc
      .oneof(
        valuesOf(p.schema as object, doc).map((v) => encodeURIComponent(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).slice(0, 4_000)),
        hostileQueryValue,
      )
      .map((v) => `${p.name}=${v}`);
  return fc
    .tuple(
      fc.subarray(op.query).chain((ps) => (ps.length ? fc.tuple(...ps.map(one)) : fc.constant([] as string[]))),
      fc.option(hostileQuery, { freq: 2 }),
    )
    .map(([parts, odd]) => [...parts, ...(odd ? [odd] : [])].join('&'));
}

function bodyArb(op: Operation, doc: any, actionTypes: Array<{ type: string; schema: object }>): fc.Arbitrary<Body | null> {
  const isCapture = op.path.startsWith('/{token_id}');
  let valid: fc.Arbitrary<unknown>;
  if (/\/actions(\/\{action_id\})?$|\/test-action$/.test(op.path)) {
    valid = fc.oneof(...actionTypes.map((t) => fc.record({ type: fc.constant(t.type), parameters: valuesOf(t.schema, t.schema), order: fc.nat(5) }, { requiredKeys: ['type', 'parameters'] })));
  } else if (op.body) valid = valuesOf(op.body as object, doc);
  else valid = fc.jsonValue({ maxDepth: 3 });
  const body = hostileBody(valid);
  // A body where none is expected, now and then.
  const none = op.body || isCapture ? 1 : 9;
  return fc.oneof({ arbitrary: fc.constant(null), weight: none }, { arbitrary: body, weight: 10 - none });
}

function drawnArb(ops: Operation[], doc: any, actionTypes: Array<{ type: string; schema: object }>, admin: boolean): fc.Arbitrary<Drawn> {
  const callers = admin
    ? fc.constant<Caller>('admin')
    : fc.oneof({ arbitrary: fc.constant<Caller>('user'), weight: 6 }, { arbitrary: fc.constantFrom<Caller>('none', 'bogus', 'password', 'wrongPassword', 'share'), weight: 5 });
  // Each operation's arbitrary is built once (building them is slow: schemas, patterns).
  const perOp = ops.map((op, i) => {
    const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const isCapture = op.path.startsWith('/{token_id}');
    return fc.record({
      op: fc.constant(i),
      method: isCapture ? fc.oneof({ arbitrary: fc.constant(op.method), weight: 4 }, { arbitrary: fc.constantFrom(...CAPTURE_METHODS), weight: 1 }) : fc.constant(op.method),
      caller: callers,
      params: fc.record(Object.fromEntries(names.map((n) => [n, paramArb(n, op.path, admin)]))),
      query: queryArb(op, doc),
      headers: hostileHeaders,
      body: bodyArb(op, doc, actionTypes),
      viaHeader: fc.boolean(),
      variant: fc.nat(7),
    });
  });
  // Operations that take a body have the most to parse: they are drawn three times as often.
  return fc.oneof(...perOp.map((arbitrary, i) => ({ arbitrary, weight: ops[i]!.body && !ops[i]!.path.startsWith('/{token_id}') ? 3 : 1 })));
}

export function batchArb(ops: Operation[], doc: any, actionTypes: Array<{ type: string; schema: object }>): fc.Arbitrary<Batch> {
  // The administrator may change anything: its batches reach scratch fixtures only.
  const forAdmin = drawnArb(ops, doc, actionTypes, true);
  const forOthers = drawnArb(ops, doc, actionTypes, false);
  return fc
    .oneof({ arbitrary: fc.constant(false), weight: 9 }, { arbitrary: fc.constant(true), weight: 1 })
    .chain((admin) => fc.record({ admin: fc.constant(admin), requests: fc.array(admin ? forAdmin : forOthers, { minLength: 1, maxLength: 16 }) }));
}

const isProtected = (f: FixtureName): f is (typeof PROTECTED)[number] => (PROTECTED as readonly string[]).includes(f);

/** A path parameter's value, with today's id of the fixture it names. */
function paramValue(d: Drawn, name: string, w: World): string {
  const id = (f: FixtureName) => w.ids[d.caller === 'admin' && isProtected(f) ? SCRATCH_FOR[f] : f];
  const p = d.params[name]!;
  if ('raw' in p) return p.raw;
  if ('fixture' in p) return id(p.fixture);
  const token = d.params.token_id;
  const pair = token && 'fixture' in token ? MATCHING[token.fixture] : undefined;
  const matched = pair?.[name as keyof typeof pair];
  return matched ? id(matched) : '1';
}

/** The request as sent. */
function resolve(d: Drawn, op: Operation, w: World): RawRequest {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => paramValue(d, name, w));
  const headers: Array<[string, string]> = [['Accept', 'application/json'], ...d.headers];
  const query = [d.query];
  const secret = d.caller === 'password' ? w.password : d.caller === 'wrongPassword' ? 'not-the-password' : undefined;
  if (d.caller === 'user') headers.push(['Api-Key', w.userKey]);
  if (d.caller === 'admin') headers.push(['Api-Key', w.api.adminKey]);
  if (d.caller === 'bogus') headers.push(d.viaHeader ? ['Api-Key', 'whk_not_a_key'] : ['Authorization', 'Basic %%%']);
  if (secret !== undefined) {
    if (d.viaHeader) headers.push(['Authorization', `Basic ${Buffer.from(`x:${secret}`).toString('base64')}`]);
    else query.push(`password=${encodeURIComponent(secret)}`);
  }
  if (d.caller === 'share') {
    if (d.viaHeader) headers.push(['Share-Key', w.share]);
    else query.push(`share=${encodeURIComponent(w.share)}`);
  }
  if (d.body?.contentType) headers.push(['Content-Type', d.body.contentType]);
  const qs = query.filter(Boolean).join('&');
  return { method: d.method, target: path + (qs ? `?${qs}` : ''), headers, body: d.body?.bytes };
}

/** What a caller may read: the canaries stored where its credentials open. */
function readable(w: World, caller: Caller): string[] {
  if (caller === 'admin') return Object.values(w.canaries);
  if (caller === 'share') return [w.canaries.victim];
  if (caller === 'password') return [w.canaries.locked];
  return [];
}

/** A socket.io `subscribe` payload: as the CLI sends it with the caller's credentials, or spoiled. */
function subscribePayload(d: Drawn, token: string, w: World): unknown {
  const headers: Record<string, unknown> = {};
  if (d.caller === 'user') headers['Api-Key'] = w.userKey;
  if (d.caller === 'admin') headers['Api-Key'] = w.api.adminKey;
  if (d.caller === 'bogus') headers['Api-Key'] = 'whk_not_a_key';
  const secret = d.caller === 'password' ? w.password : d.caller === 'wrongPassword' ? 'not-the-password' : undefined;
  const auth: Record<string, unknown> = { headers };
  if (secret !== undefined) {
    if (d.viaHeader) headers.Authorization = `Basic ${Buffer.from(`x:${secret}`).toString('base64')}`;
    else auth.password = secret;
  }
  switch (d.variant) {
    case 4:
      return { channel: `token.${token}`, auth };
    case 5:
      return { channel: d.viaHeader ? `private-token.${'x'.repeat(300)}` : `private-token.${token}/../x`, auth };
    case 6:
      return d.viaHeader ? [{ channel: `private-token.${token}` }, 'x'] : { channel: JSON.parse(deepJson(2_500, 'object')), auth };
    case 7:
      return { channel: `private-token.${token}`, auth: d.viaHeader ? { headers: 'x', password: 5 } : { headers: { 'Api-Key': ['x'], Authorization: 7 }, password: JSON.parse(deepJson(2_500, 'array')) } };
    default:
      return { channel: `private-token.${token}`, auth };
  }
}

function subscribeVerdict(outcome: SubscribeOutcome, token: Param | undefined, caller: Caller): string | null {
  if (outcome.kind === 'hang') return `no answer to the subscription within ${outcome.ms} ms`;
  if (outcome.kind === 'no-answer') return `no answer to the subscription: ${outcome.error}`;
  if (outcome.kind === 'refused' && !(outcome.status >= 400 && outcome.status < 500)) return `subscription_error ${outcome.status}`;
  // The administrator's subscriptions reach scratch tokens only (resolve).
  if (outcome.kind === 'subscribed' && caller !== 'admin' && token && 'fixture' in token) {
    const f = token.fixture;
    if (f === 'victimToken' || f === 'victimAlias' || (f === 'lockedToken' && caller !== 'password')) return `subscribed a caller (${caller}) to another user's token`;
  }
  return null;
}

export function describeRequest(req: RawRequest, what: string): string {
  const body = req.body ? `${req.body.length} bytes (${what}): ${JSON.stringify(req.body.subarray(0, 240).toString('utf8'))}${req.body.length > 240 ? '...' : ''}` : 'none';
  const target = req.target.length > 400 ? `${req.target.slice(0, 400)}... (${req.target.length} characters)` : req.target;
  const headers = req.headers.map(([n, v]) => `    ${n}: ${v.length > 120 ? `${v.slice(0, 120)}... (${v.length} characters)` : v}`).join('\n');
  return `  ${req.method} ${JSON.stringify(target).slice(1, -1)}\n${headers}\n  body: ${body}`;
}

/** Why an outcome fails the run, or null. */
function verdict(outcome: RawOutcome, op: Operation, req: RawRequest, w: World, caller: Caller): string | null {
  if (outcome.kind === 'hang') return `no answer within ${outcome.ms} ms${outcome.head ? ` (it started: ${JSON.stringify(outcome.head)})` : ''}`;
  if (outcome.kind === 'no-answer') return `no answer: ${outcome.error}`;
  if (outcome.kind === 'cut-off') return null;
  const { status, headers, body } = outcome;
  // A capture answers with its token's status, path status (/{token}/500) or actions' status.
  const captured = op.path.startsWith('/{token_id}') && headers['x-request-id'] !== undefined && headers['x-token-id'] !== undefined;
  if (!(status >= 100 && status <= 599)) return `an unreadable status line`;
  if (status >= 500 && !captured && !((status === 502 || status === 504) && UPSTREAM.test(op.path))) return `answered ${status}: ${body.subarray(0, 300).toString('utf8')}`;
  const text = body.toString('latin1');
  const allowed = readable(w, caller);
  for (const canary of Object.values(w.canaries)) {
    if (!allowed.includes(canary) && text.includes(canary))
      return `answered ${status} with data the caller may not read (${canary.split('-')[0]}): ${text.slice(Math.max(0, text.indexOf(canary) - 200), text.indexOf(canary) + 60)}`;
  }
  void req;
  return null;
}

/** Ends a run when its time is up (fast-check stops at the first failure; this one is none). */
class TimeIsUp extends Error {}

/** Runs the fuzzer against a started service with its world made (makeWorld). */
export async function fuzz(doc: any, actionTypes: Array<{ type: string; schema: object }>, w: World, opts: FuzzOptions): Promise<FuzzResult> {
  const ops = operationsOf(doc);
  let requests = 0;
  let batches = 0;
  const statuses: Record<string, number> = {};
  const byRoute: Record<string, Record<string, number>> = {};
  const tally = (op: Operation, status: string) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    const route = (byRoute[`${op.method} ${op.path}`] ??= {});
    route[status] = (route[status] ?? 0) + 1;
  };
  const socket = new SocketChannel(w.api.base);
  let baseline = await snapshot(w);
  const deadline = Date.now() + opts.seconds * 1000;
  const examples = corpus(ops);
  const property = fc.asyncProperty(batchArb(ops, doc, actionTypes), async (batch) => {
    // The time is up once a batch has ended: the run stops here, never in the middle of a request.
    // The corpus, run first, is always sent whole.
    if (batches >= examples.length && Date.now() > deadline) throw new TimeIsUp();
    if (batches++ % 5 === 0) await ensure(w);
    const sent: string[] = [];
    for (const d of batch.requests) {
      const op = ops[d.op]!;
      if (op.method === 'SUBSCRIBE') {
        const token = paramValue(d, 'token_id', w);
        const payload = subscribePayload(d, token, w);
        const shown = `  socket.io subscribe ${JSON.stringify(payload).slice(0, 400)}`;
        if (opts.skip?.test(`${d.caller} SUBSCRIBE ${op.path} variant ${d.variant}`)) continue;
        if (opts.trace) console.log(`fuzz: as ${d.caller}\n${shown}`);
        sent.push(`as ${d.caller}:\n${shown}`);
        const outcome = await socket.subscribe(payload, opts.requestTimeoutMs);
        requests++;
        tally(op, outcome.kind === 'refused' ? `error ${outcome.status}` : outcome.kind);
        const why = subscribeVerdict(outcome, d.params.token_id, d.caller);
        const exited = opts.alive?.() ?? null;
        if (why || exited) throw new Error(`${exited ? `the service exited (${exited}) after this subscription` : why}\n  caller: ${d.caller}\n${shown}`);
        continue;
      }
      const req = resolve(d, op, w);
      const what = d.body?.what ?? 'no body';
      if (opts.skip?.test(`${d.caller} ${d.method} ${op.path} ${what}`)) continue;
      const shown = describeRequest(req, what);
      if (opts.trace) console.log(`fuzz: ${op.method} ${op.path} as ${d.caller}\n${shown}`);
      sent.push(`as ${d.caller}:\n${shown}`);
      const timeout = opts.requestTimeoutMs + (WAITING.test(op.path) ? WAIT_MS : 0);
      const outcome = await sendRaw(w.api.base, req, timeout);
      requests++;
      tally(op, outcome.kind === 'answer' ? String(outcome.status) : outcome.kind);
      const why = verdict(outcome, op, req, w, d.caller);
      const exited = opts.alive?.() ?? null;
      if (why || exited) throw new Error(`${exited ? `the service exited (${exited}) after this request` : why}\n  route: ${op.method} ${op.path}, caller: ${d.caller}\n${shown}`);
    }
    const now = await snapshot(w);
    const changed = changes(baseline, now);
    baseline = now;
    if (changed.length) throw new Error(`protected data changed:\n  ${changed.join('\n  ')}\nby one of these requests (a batch${batch.admin ? ' of the administrator' : ''}):\n${sent.join('\n')}`);
  });
  const details = await fc
    .check(property, {
      seed: opts.seed,
      numRuns: Number.MAX_SAFE_INTEGER,
      examples,
      // A failing batch is reported as drawn: shrinking would replay it against changed data.
      endOnFailure: true,
    })
    .finally(() => socket.close());
  if (!details.failed || details.errorInstance instanceof TimeIsUp) return { requests, statuses, byRoute, batches, seed: opts.seed, failure: null };
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return {
    requests,
    statuses,
    byRoute,
    batches,
    seed: opts.seed,
    failure: `fuzz failure (seed ${opts.seed}, batch ${details.numRuns}; replay: FUZZ_SEED=${opts.seed})\n${error}`,
  };
}
