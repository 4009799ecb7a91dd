// Document shapes of the MongoDB adapter and the conversions between them and the port's records.
import { Binary, MongoServerError, type Db, type ObjectId } from 'mongodb';
import { absentValue, REQUEST_COLUMNS, type RequestColumn } from '../request-columns.js';
import type {
  ApiKeyRecord,
  HttpVersion,
  GlobalVariableRecord,
  GroupRecord,
  DatabaseRecord,
  QueueProfileRecord,
  ProviderRecord,
  TemplateRecord,
  RequestRecord,
  RequestType,
  SetResponse,
  TokenRecord,
  UserRecord,
  WorkflowRecord,
  ErrorLogRecord,
  ReplayRecord,
} from '../types.js';

/** Text of a body kept for search only (never returned): the first 1 MiB, read as UTF-8. */
export const CONTENT_TEXT_BYTES = 1024 * 1024;
/** A single file is kept in one document; BSON documents stop at 16 MiB, so refuse beyond this. */
export const MAX_FILE_BYTES = 15 * 1024 * 1024;

export interface UserDoc extends UserRecord {
  _id: number;
}

export interface ApiKeyDoc extends ApiKeyRecord {
  _id: number;
}

export interface TokenDoc extends TokenRecord {
  _id: string;
  /** Denormalised figures, kept up to date by request inserts and deletes. */
  request_count: number;
  latest_request_id: string | null;
  latest_request_at: number | null;
  /** `sorting` of the latest request, to decide whether a new capture is the latest. */
  latest_sorting: number | null;
}

export interface RequestDoc extends Omit<RequestRecord, 'body' | 'httpVersion'> {
  _id: string;
  body: Binary;
  /** A web capture's HTTP version; absent on documents from before it was stored, which read as '1.1'. */
  http_version?: HttpVersion;
  content_text: string;
  /** Insertion order within equal `sorting` values (client-generated, increasing per process). */
  ins: ObjectId;
}

export interface FileDoc {
  _id: string;
  token_id: string;
  request_uuid: string;
  data: Binary;
}

export interface SequenceDoc {
  _id: string;
  seq: number;
}

export interface GroupDoc extends GroupRecord {
  _id: number;
}

/** A capture waiting for a set-response; `_id` is the request's uuid. */
export interface ListenerDoc {
  _id: string;
  token_id: string;
  /** Epoch milliseconds after which no response is accepted. */
  deadline: number;
  /**
   * The response as JSON text, null until one is set. Kept as text because header names may hold
   * `.` or start with `$`, which update operators refuse as field names.
   */
  response: string | null;
  /** deadline + LISTENER_GRACE_MS: the TTL index reaps listeners a crashed process left open. */
  expires_at: Date;
}

/** How long a listener outlives its deadline before the TTL index may reap it. */
export const LISTENER_GRACE_MS = 60_000;

/** A token's workflow document; `_id` is the token's uuid. */
export interface WorkflowDoc {
  _id: string;
  /**
   * The document as JSON text. Kept as text because parameter names may hold `.` or start with
   * `$`, which MongoDB would otherwise take for paths or operators.
   */
  document: string;
  updated_at: number;
}

/** A token's share link; `_id` is the token uuid, `hash` (unique) the secret's sha256. */
export interface TokenShareDoc {
  _id: string;
  hash: string;
  created_at: number;
}

/** A replay (core/replay); `_id` is its id. */
export interface ReplayDoc extends Omit<ReplayRecord, 'id'> {
  _id: string;
}

/** An error log entry; `_id` is its numeric id (sequence `error_log`). */
export interface ErrorLogDoc extends Omit<ErrorLogRecord, 'id'> {
  _id: number;
}

export function toErrorLog(d: ErrorLogDoc): ErrorLogRecord {
  const { _id, ...rest } = d;
  return {
    id: _id,
    user_id: rest.user_id ?? null,
    source: rest.source,
    token_id: rest.token_id ?? null,
    request_id: rest.request_id ?? null,
    action_id: rest.action_id ?? null,
    action_type: rest.action_type ?? null,
    schedule_id: rest.schedule_id ?? null,
    schedule_name: rest.schedule_name ?? null,
    message: rest.message,
    read: !!rest.read,
    created_at: rest.created_at,
  };
}

/** A failure streak of an action; `_id` is the action's uuid. */
export interface ActionFailureDoc {
  _id: string;
  token_id: string;
  count: number;
  updated_at: number;
}

/** An action template; `_id` is its numeric id (sequence `templates`). */
export interface TemplateDoc extends TemplateRecord {
  _id: number;
}

export function toTemplate(d: TemplateDoc): TemplateRecord {
  return { id: d.id, user_id: d.user_id, name: d.name, variables: d.variables, actions: d.actions, created_at: d.created_at, updated_at: d.updated_at };
}

/** A provider; `_id` is its UUID. */
export interface ProviderDoc extends Omit<ProviderRecord, 'id'> {
  _id: string;
}

export function toProvider(d: ProviderDoc): ProviderRecord {
  return { id: d._id, user_id: d.user_id, type: d.type, name: d.name, settings: d.settings, secret: d.secret, created_at: d.created_at, updated_at: d.updated_at };
}

/** A hosted database's metadata; `_id` is its UUID. */
export interface DatabaseDoc extends Omit<DatabaseRecord, 'id'> {
  _id: string;
}

export function toDatabase(d: DatabaseDoc): DatabaseRecord {
  return { id: d._id, user_id: d.user_id, name: d.name, created_at: d.created_at, updated_at: d.updated_at };
}

/** A Queue Profile; `_id` is its UUID. */
export interface QueueProfileDoc extends Omit<QueueProfileRecord, 'id'> {
  _id: string;
}

export function toQueueProfile(d: QueueProfileDoc): QueueProfileRecord {
  const { _id, user_id, name, initial_delay, rate_limit, rate_period, job_lifetime, created_at, updated_at } = d;
  return { id: _id, user_id, name, initial_delay, rate_limit, rate_period, job_lifetime, created_at, updated_at };
}

/** A global variable; `_id` is its numeric id (sequence `global_variables`), unique per (owner, name). */
export interface GlobalVariableDoc extends GlobalVariableRecord {
  _id: number;
}

export interface CounterDoc {
  _id: string;
  count: number;
  expires_at: Date;
  /** The times of a sliding window's starts (CounterRepo.admit); `count` then counts them all. */
  starts?: number[];
}

export function cols(db: Db) {
  return {
    db,
    sequences: db.collection<SequenceDoc>('sequences'),
    users: db.collection<UserDoc>('users'),
    apiKeys: db.collection<ApiKeyDoc>('api_keys'),
    tokens: db.collection<TokenDoc>('tokens'),
    requests: db.collection<RequestDoc>('requests'),
    files: db.collection<FileDoc>('files'),
    counters: db.collection<CounterDoc>('rate_counters'),
    groups: db.collection<GroupDoc>('groups'),
    listeners: db.collection<ListenerDoc>('listeners'),
    workflows: db.collection<WorkflowDoc>('workflows'),
    globals: db.collection<GlobalVariableDoc>('global_variables'),
    providers: db.collection<ProviderDoc>('providers'),
    databases: db.collection<DatabaseDoc>('databases'),
    queueProfiles: db.collection<QueueProfileDoc>('queue_profiles'),
    templates: db.collection<TemplateDoc>('templates'),
    actionFailures: db.collection<ActionFailureDoc>('action_failures'),
    shares: db.collection<TokenShareDoc>('token_shares'),
    errorLog: db.collection<ErrorLogDoc>('error_log'),
    replays: db.collection<ReplayDoc>('replays'),
  };
}

export type Cols = ReturnType<typeof cols>;

/** Next value of a named sequence (1, 2, 3...), shared by every process on the database. */
export async function nextSeq(c: Cols, name: string): Promise<number> {
  const doc = await c.sequences.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error(`sequence ${name} did not return a value`);
  return doc.seq;
}

export function isDuplicateKey(err: unknown): err is MongoServerError {
  return err instanceof MongoServerError && err.code === 11000;
}

/** Bytes of a BSON binary (or of a Buffer, when the driver promoted it) as a fresh Node Buffer. */
export function toBuffer(v: unknown): Buffer {
  if (v instanceof Binary) return Buffer.from(v.value());
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v);
  return Buffer.alloc(0);
}

export function toBinary(b: Buffer): Binary {
  return new Binary(b);
}

/** Drops keys whose value is undefined, so a patch never writes them. */
export function defined<T extends object>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<T>;
}

/** Users stored before teams read as the one-person team of their own ID, as its Administrator. */
export function toUser(d: UserDoc): UserRecord {
  return {
    id: d.id,
    name: d.name,
    email: d.email,
    premium: d.premium,
    team_id: d.team_id ?? d.id,
    user_type_id: d.user_type_id ?? 100,
    role_id: d.role_id ?? null,
    group_ids: d.group_ids ?? null,
    invite_hash: d.invite_hash ?? null,
    invite_expires_at: d.invite_expires_at ?? null,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function toApiKey(d: ApiKeyDoc): ApiKeyRecord {
  return { id: d.id, user_id: d.user_id, hash: d.hash, prefix: d.prefix, created_at: d.created_at };
}

export function toGroup(d: GroupDoc): GroupRecord {
  return { id: d.id, user_id: d.user_id, name: d.name, created_at: d.created_at, updated_at: d.updated_at };
}

export function toWorkflowDoc(tokenId: string, document: Record<string, unknown>, now: number): WorkflowDoc {
  return { _id: tokenId, document: JSON.stringify(document), updated_at: now };
}

export function toWorkflow(d: WorkflowDoc): WorkflowRecord {
  return { token_id: d._id, document: JSON.parse(d.document) as Record<string, unknown>, updated_at: d.updated_at };
}

export function toGlobalVariable(d: GlobalVariableDoc): GlobalVariableRecord {
  return { id: d.id, owner: d.owner, name: d.name, value: d.value, created_at: d.created_at, updated_at: d.updated_at };
}

/** `s` as a regular expression matching itself literally (metacharacters escaped). */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

export function toListenerDoc(requestUuid: string, tokenId: string, deadline: number): ListenerDoc {
  return { _id: requestUuid, token_id: tokenId, deadline, response: null, expires_at: new Date(deadline + LISTENER_GRACE_MS) };
}

export function encodeSetResponse(r: SetResponse): string {
  return JSON.stringify({ status: r.status, content: r.content, headers: r.headers });
}

export function decodeSetResponse(text: string | null | undefined): SetResponse | null {
  return text ? (JSON.parse(text) as SetResponse) : null;
}

export function toToken(d: TokenDoc): TokenRecord {
  return {
    uuid: d._id,
    user_id: d.user_id ?? null,
    // A token stored before teams belongs to its owner's one-person team.
    team_id: d.team_id === undefined ? (d.user_id ?? null) : d.team_id,
    alias: d.alias ?? null,
    redirect: d.redirect,
    actions: d.actions,
    cors: d.cors,
    expiry: d.expiry ?? null,
    timeout: d.timeout,
    listen: d.listen,
    premium: d.premium,
    premium_expires_at: d.premium_expires_at ?? null,
    ip: d.ip,
    user_agent: d.user_agent,
    default_content: d.default_content,
    default_status: d.default_status,
    default_content_type: d.default_content_type,
    request_limit: d.request_limit,
    description: d.description ?? null,
    group_id: d.group_id ?? null,
    password_hash: d.password_hash ?? null,
    created_at: d.created_at,
    updated_at: d.updated_at,
    expires_at: d.expires_at ?? null,
    ...(d.redaction ? { redaction: d.redaction } : {}),
  };
}

/** A request as a document: its record's fields (core/store/request-columns.ts), body as Binary. */
export function requestDocFrom(columns: readonly RequestColumn[]): (r: RequestRecord, ins: ObjectId) => RequestDoc {
  const fields = columns.filter((c) => c.field !== 'body');
  return (r, ins) => {
    const d: Record<string, unknown> = { _id: r.uuid };
    for (const c of fields) {
      const v = r[c.field];
      if (v !== undefined) d[c.doc ?? c.field] = v;
    }
    d.body = toBinary(r.body);
    d.content_text = r.body.subarray(0, CONTENT_TEXT_BYTES).toString('utf8');
    d.ins = ins;
    return d as unknown as RequestDoc;
  };
}

/** A request document as a record; a field an older document lacks gets its column's `absent` value. */
export function requestFromDoc(columns: readonly RequestColumn[]): (d: RequestDoc) => RequestRecord {
  const fields = columns.filter((c) => c.field !== 'body');
  return (d) => {
    const doc = d as unknown as Record<string, unknown>;
    const r: Record<string, unknown> = {};
    for (const c of fields) {
      const v = doc[c.doc ?? c.field];
      const value = v === null || v === undefined ? (c.field === 'uuid' ? d._id : absentValue(c, d.type as RequestType)) : v;
      if (value !== undefined) r[c.field] = value;
    }
    r.body = toBuffer(d.body);
    return r as unknown as RequestRecord;
  };
}

export const toRequestDoc = requestDocFrom(REQUEST_COLUMNS);
export const toRequest = requestFromDoc(REQUEST_COLUMNS);
