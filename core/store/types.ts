// The storage port. Every adapter (sqlite/, mongo/) implements these interfaces and passes the one
// contract suite in store.contract.ts. Times are epoch milliseconds; the HTTP layer formats them.
import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Db } from 'mongodb';
import type { QueryNode } from './query/ast.js';
import type { StorageSpace } from './space.js';
import type { RedactionSettings } from '../shared/redaction.js';

export type Millis = number;

/** 100 Administrator, 200 Member, 300 Viewer: what each may do is core/auth/access.ts's USER_TYPES. */
export type UserTypeId = 100 | 200 | 300;

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  premium: boolean;
  /**
   * The user's team. A team is named by the ID of the user who started it (its first member), so a
   * user created on their own (and every user from before teams) is the one-person team `id`.
   */
  team_id: number;
  user_type_id: UserTypeId;
  /** A role label from the invite (webhook.site's `role_id`); what the user may do is the user type. */
  role_id: number | null;
  /**
   * The groups the user is limited to (webhook.site's roles limited to groups): they open only the
   * team's tokens in these groups. Absent or null: every token of the team.
   */
  group_ids?: number[] | null;
  /** sha256 of the one-time invite secret while the invite is open; null once used (or never invited). */
  invite_hash: string | null;
  invite_expires_at: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

/** A new user: without `team_id` they start their own team; without `user_type_id` they are its Administrator. */
export type NewUser = Pick<UserRecord, 'name' | 'email' | 'premium' | 'created_at' | 'updated_at'> & Partial<Pick<UserRecord, 'team_id' | 'user_type_id' | 'role_id' | 'group_ids' | 'invite_hash' | 'invite_expires_at'>>;

export type UserPatch = Partial<Pick<UserRecord, 'name' | 'email' | 'user_type_id' | 'role_id' | 'group_ids' | 'invite_hash' | 'invite_expires_at' | 'updated_at'>>;

export interface ApiKeyRecord {
  id: number;
  user_id: number;
  /** sha256 of the key (keys are long random strings, so a fast hash is enough). */
  hash: string;
  /** First characters of the key, to tell keys apart in listings. */
  prefix: string;
  created_at: Millis;
}

export interface TokenRecord {
  uuid: string;
  user_id: number | null;
  /** The owner's team (null for anonymous tokens): every member of it may open the token. */
  team_id: number | null;
  alias: string | null;
  redirect: boolean;
  actions: boolean;
  cors: boolean;
  expiry: number | boolean | null;
  timeout: number;
  listen: number;
  premium: boolean;
  premium_expires_at: Millis | null;
  ip: string;
  user_agent: string;
  default_content: string;
  default_status: number;
  default_content_type: string;
  request_limit: number;
  description: string | null;
  group_id: number | null;
  /** scrypt hash (see core/auth/secrets.ts), never returned by the API. */
  password_hash: string | null;
  /** Masking applied to captures before they are stored (core/shared/redaction.ts); null or absent: none. */
  redaction?: RedactionSettings | null;
  created_at: Millis;
  updated_at: Millis;
  expires_at: Millis | null;
}

/** A token with the figures the token list shows. */
export interface TokenWithStats extends TokenRecord {
  requests: number;
  latest_request_id: string | null;
  latest_request_at: Millis | null;
}

export interface FileMeta {
  id: string;
  /** Form field name (or 'attachment' for e-mail). */
  name: string;
  filename: string;
  size: number;
  content_type: string;
}

export type RequestType = 'web' | 'email' | 'dns';

/** The HTTP version a web capture came in (node:http's `req.httpVersion`, `2.0` as `2`). */
export type HttpVersion = '1.0' | '1.1' | '2';

export interface RequestRecord {
  uuid: string;
  token_id: string;
  type: RequestType;
  team_id: number | null;
  ip: string;
  hostname: string;
  method: string;
  user_agent: string;
  url: string;
  /** Content type the request was sent with, replayed by `raw`. */
  content_type: string | null;
  /** The body as received, byte for byte; decoded when it came with a Content-Encoding the capture undid. */
  body: Buffer;
  size: number;
  /**
   * Web captures whose body was decoded (Content-Encoding): the bytes as sent, held in memory until
   * stored beside the request as file SENT_BODY_FILE_ID (core/capture/content-encoding.ts), for `raw`.
   */
  sentBody?: Buffer;
  query: Record<string, string> | null;
  headers: Record<string, string[]>;
  /** Parsed form fields (urlencoded or multipart): the API's `request` field. */
  form: Record<string, unknown> | null;
  files: FileMeta[];
  custom_action_output: string[];
  custom_action_errors: unknown[];
  /** Seconds spent answering, custom actions included. */
  time: number;
  note: string | null;
  /** Microsecond capture key: unique per process, increasing; ties broken by insertion order. */
  sorting: number;
  created_at: Millis;
  updated_at: Millis;
  /**
   * Fields of e-mail and DNS captures (sender, message_id, destinations, text_content, html_content, checks, dns...),
   * `query_all` of HTTP captures whose query string repeats a key (core/capture/query.ts), and
   * `response` of HTTP captures answered other than with the token's default (core/capture/sent-response.ts).
   */
  extra: Record<string, unknown>;
  /** Web captures: the HTTP version of the request (stored ones read '1.1' when it was not recorded); absent for e-mail and DNS. */
  httpVersion?: HttpVersion;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * A page of a token's requests. `totalCapped`: a filtered count stopped at COUNT_BOUND
 * (core/store/query/limits.ts) matches, so `total` is that bound, not the exact count.
 */
export interface RequestPage extends Page<RequestRecord> {
  totalCapped?: boolean;
}

export interface TokenListOptions {
  page: number;
  perPage: number;
  orderBy: 'created_at' | 'token_id';
  direction: 'asc' | 'desc';
  /** Only tokens whose UUID or alias contains this text, ignoring case. */
  search?: string;
  /** Only tokens in these groups (a user whose role limits them to groups); absent: every token. */
  groupIds?: readonly number[];
}

export interface RequestFilter {
  query?: QueryNode | null;
  /** Both inclusive: a route filtering to a whole second passes its first and last millisecond. */
  dateFrom?: Millis | null;
  dateTo?: Millis | null;
  /** The clock used to resolve `now` in date math. */
  now?: Millis;
}

export interface RequestListOptions extends RequestFilter {
  sorting: 'newest' | 'oldest';
  page: number;
  perPage: number;
}

/**
 * Where a walk over a token's requests resumes (RequestRepo.listAfter): made by the store from the
 * last request it returned, passed back unchanged. Opaque to callers; a plain string, so it crosses
 * threads and JSON as it is.
 */
export type RequestCursor = string;

export interface RequestWalkOptions extends RequestFilter {
  sorting: 'newest' | 'oldest';
  /** Requests per call (at least 1). */
  perPage: number;
  /** The previous call's `next`; none: from the first request in this order. */
  after?: RequestCursor | null;
}

/** One step of a walk: `next` resumes after the last item; null when no request is left. */
export interface RequestWalkPage {
  items: RequestRecord[];
  next: RequestCursor | null;
}

export type TokenPatch = Partial<Omit<TokenRecord, 'uuid' | 'created_at'>>;
/** `extra` replaces the whole object (e.g. to add the response a listening capture was answered). */
export type RequestPatch = Partial<Pick<RequestRecord, 'note' | 'custom_action_output' | 'custom_action_errors' | 'extra' | 'updated_at'>>;

export interface UserRepo {
  create(u: NewUser): Promise<UserRecord>;
  get(id: number): Promise<UserRecord | null>;
  list(): Promise<UserRecord[]>;
  /** One page of users by ID, of one team or (null) of all teams. */
  page(teamId: number | null, page: number, perPage: number): Promise<Page<UserRecord>>;
  /** Users whose e-mail is this one, ignoring case. */
  findByEmail(email: string): Promise<UserRecord[]>;
  update(id: number, patch: UserPatch): Promise<UserRecord | null>;
  /** Deletes the user with their API keys (their tokens are the caller's business). */
  delete(id: number): Promise<boolean>;
  /**
   * Closes the open invite with this hash if it has not expired at `now`, and returns its user; null
   * otherwise. Only one of several concurrent calls with the same hash gets the user.
   */
  useInvite(hash: string, now: Millis): Promise<UserRecord | null>;
  /** The user whose invite has this hash, open or expired; null when none (or used). */
  findByInvite(hash: string): Promise<UserRecord | null>;
  addApiKey(userId: number, hash: string, prefix: string, now: Millis): Promise<ApiKeyRecord>;
  listApiKeys(userId: number): Promise<ApiKeyRecord[]>;
  deleteApiKey(userId: number, keyId: number): Promise<boolean>;
  findByApiKeyHash(hash: string): Promise<UserRecord | null>;
}

export interface TokenRepo {
  create(t: TokenRecord): Promise<void>;
  get(uuid: string): Promise<TokenRecord | null>;
  /** By UUID or, failing that, by alias. */
  resolve(idOrAlias: string): Promise<TokenRecord | null>;
  /**
   * Like resolve, ignoring case: for DNS names, whose case resolvers lower-case or randomise.
   * Of aliases that differ only in case, one is returned.
   */
  resolveIgnoringCase(idOrAlias: string): Promise<TokenRecord | null>;
  /** Applies the patch; null when the token does not exist. Throws AliasTaken on a duplicate alias. */
  update(uuid: string, patch: TokenPatch): Promise<TokenRecord | null>;
  /** Deletes the token with its requests and files. */
  delete(uuid: string): Promise<boolean>;
  /** The tokens of a team (every member's). */
  list(teamId: number, opts: TokenListOptions): Promise<Page<TokenWithStats>>;
  /** UUIDs of the tokens a user owns. */
  ownedBy(userId: number): Promise<string[]>;
  stats(uuid: string): Promise<{ requests: number; latest_request_id: string | null; latest_request_at: Millis | null }>;
  /** Tokens whose expires_at is at or before `now`. */
  expired(now: Millis, limit: number): Promise<string[]>;
  /**
   * Tokens under the inactivity rule (non-premium, or legacy `expiry: true`) whose latest request,
   * or creation when they have none, is before `before`.
   */
  inactive(before: Millis, limit: number): Promise<string[]>;
  /** Clears group_id on the tokens of a deleted group. */
  clearGroup(groupId: number): Promise<void>;
}

export interface RequestRepo {
  /**
   * Stores a capture and trims the token's history to `limit` (oldest first). Resolves once the
   * write is durable (committed). Files' bytes are stored in the same transaction.
   */
  insert(r: RequestRecord, limit: number, files?: ReadonlyMap<string, Buffer>): Promise<void>;
  get(tokenId: string, uuid: string): Promise<RequestRecord | null>;
  latest(tokenId: string): Promise<RequestRecord | null>;
  list(tokenId: string, opts: RequestListOptions): Promise<RequestPage>;
  /**
   * The requests `list` gives for the same filter and sorting, in the same order, taken from a
   * position (keyset) instead of a page number: each call costs the same at any depth, and requests
   * added or deleted between calls neither repeat nor shift the ones still ahead. No total.
   */
  listAfter(tokenId: string, opts: RequestWalkOptions): Promise<RequestWalkPage>;
  update(tokenId: string, uuid: string, patch: RequestPatch): Promise<RequestRecord | null>;
  delete(tokenId: string, uuid: string): Promise<boolean>;
  /** Deletes every request of the token matching the filter; returns how many. */
  deleteMany(tokenId: string, filter: RequestFilter): Promise<number>;
  getFile(tokenId: string, requestUuid: string, fileId: string): Promise<Buffer | null>;
}

/** A counter's window opened at its first hit (CounterRepo.hitWindow). */
export interface CounterWindow {
  count: number;
  openedAt: Millis;
}

export interface CounterRepo {
  /**
   * Adds one to the counter `key` in the fixed window starting at `windowStart` and returns the new
   * count. Shared by all processes on the store, so rate limits agree.
   */
  hit(key: string, windowStart: Millis, ttlMs: number): Promise<number>;
  /** Current count without adding. */
  peek(key: string, windowStart: Millis): Promise<number>;
  /**
   * Adds one to the counter `key` in its window that opened at the first hit and lasts `periodMs`
   * (a hit at or after the window's end opens a new one). Returns the new count and when the window
   * opened. Unlike epoch-aligned windows, two hits a moment apart always share a window.
   */
  hitWindow(key: string, now: Millis, periodMs: number): Promise<CounterWindow>;
  /**
   * A sliding window of `periodMs` over the starts recorded under `key`: records a start at `now`
   * when fewer than `limit` are recorded in (now - periodMs, now], else records nothing and says
   * when the earliest of them leaves the window. Atomic across processes on the store, so no span
   * of `periodMs` ever holds more than `limit` starts (clock-aligned windows allow 2 x limit
   * across a boundary).
   */
  admit(key: string, now: Millis, limit: number, periodMs: number): Promise<Admission>;
  /** Deletes the windows whose time ran out before `now` (the clean-up job); returns how many. */
  sweep(now: Millis): Promise<number>;
}

/** CounterRepo.admit's answer: recorded, or not before `retryAt`. */
export type Admission = { admitted: true } | { admitted: false; retryAt: Millis };

export interface GroupRecord {
  id: number;
  user_id: number;
  name: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface GroupRepo {
  create(g: Omit<GroupRecord, 'id'>): Promise<GroupRecord>;
  get(id: number): Promise<GroupRecord | null>;
  list(userId: number, page: number, perPage: number): Promise<Page<GroupRecord>>;
  update(id: number, name: string, now: Millis): Promise<GroupRecord | null>;
  delete(id: number): Promise<boolean>;
}

/** A response set through the set-response endpoint for a capture that is listening. */
export interface SetResponse {
  status: number;
  /** Base64 of the body, as the endpoint receives it. */
  content: string;
  headers: Record<string, string | string[]>;
}

/**
 * Captures waiting for a set-response (token `listen`). Kept in the store so that the process that
 * receives the PUT need not be the one holding the waiting connection.
 */
export interface ListenerRepo {
  open(requestUuid: string, tokenId: string, deadline: Millis): Promise<void>;
  /** Records the response; false when no capture is waiting for it (unknown, answered or too late). */
  respond(tokenId: string, requestUuid: string, response: SetResponse, now: Millis): Promise<boolean>;
  /** The response, once one was set. */
  poll(requestUuid: string): Promise<SetResponse | null>;
  close(requestUuid: string): Promise<void>;
  /** Deletes listeners whose deadline is before `before` (left open by a process that died); returns how many. */
  sweep(before: Millis): Promise<number>;
}

/** A stored workflow document (core/workflows): a token's action chain. */
export interface WorkflowRecord {
  token_id: string;
  /** The validated document, as JSON. */
  document: Record<string, unknown>;
  updated_at: Millis;
}

export interface WorkflowRepo {
  getForToken(tokenId: string): Promise<WorkflowRecord | null>;
  putForToken(tokenId: string, document: Record<string, unknown>, now: Millis): Promise<void>;
  deleteForToken(tokenId: string): Promise<void>;
  /** Every token's document, by token id after `afterTokenId` (null: from the first), at most `limit`. */
  after(afterTokenId: string | null, limit: number): Promise<WorkflowRecord[]>;
  /**
   * Replaces the document only while it is still `expected` (compare-and-set, for rewrites that
   * run beside the service); false when it changed or is gone. `updated_at` is kept.
   */
  replaceDocument(tokenId: string, expected: Record<string, unknown>, document: Record<string, unknown>): Promise<boolean>;
}

/** Global variables, shared by the tokens of one owner (`user:<id>`, or `token:<uuid>` when anonymous). */
export interface GlobalVariableRecord {
  id: number;
  owner: string;
  name: string;
  value: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface GlobalVariableRepo {
  get(owner: string, name: string): Promise<GlobalVariableRecord | null>;
  getById(owner: string, id: number): Promise<GlobalVariableRecord | null>;
  /** Creates or replaces the value of `name`. */
  set(owner: string, name: string, value: string, now: Millis): Promise<GlobalVariableRecord>;
  list(owner: string, opts: { page: number; perPage: number; search?: string }): Promise<Page<GlobalVariableRecord>>;
  /** Every variable of the owner, for templating (small: bounded by MAX_GLOBALS). */
  all(owner: string): Promise<Record<string, string>>;
  delete(owner: string, id: number): Promise<boolean>;
}

/**
 * A schedule (core/scheduler): its `kind: Schedule` workflow document is the source of truth; the
 * Schedules API is a view onto it. `source` names the file a document was applied from (workflows/).
 */
export interface ScheduleRecord {
  id: number;
  user_id: number;
  /** The group (of the owner's team) the schedule belongs to; users limited to groups see only theirs. */
  group_id: number | null;
  /** The validated workflow document, as JSON. */
  document: Record<string, unknown>;
  source: string | null;
  last_run_at: Millis | null;
  last_status: number | null;
  created_at: Millis;
  updated_at: Millis;
}

/** One run of a schedule. `response_status` is 0 when no response arrived (see `error`). */
export interface ScheduleLogRecord {
  id: number;
  schedule_id: number;
  response_status: number;
  response_headers: Record<string, string[]>;
  response_body: string;
  /** Seconds. */
  time: number;
  error: string | null;
  /** When the target's TLS certificate expires (schedules with a TLS expiry alert, https targets). */
  tls_expires_at: Millis | null;
  /** Whole days until then at the run (negative: expired); null when no certificate was read. */
  tls_days_left: number | null;
  /** Why the TLS expiry alert fired on this run (expiring, expired or invalid certificate); null: it did not. */
  tls_alert: string | null;
  created_at: Millis;
  updated_at: Millis;
}

/** A schedule as created: without a group unless one is given. */
export type NewSchedule = Omit<ScheduleRecord, 'id' | 'group_id'> & { group_id?: number | null };

/** A log entry as added: the TLS fields are only set by runs with a TLS expiry alert. */
export type NewScheduleLog = Omit<ScheduleLogRecord, 'id' | 'tls_expires_at' | 'tls_days_left' | 'tls_alert'> & Partial<Pick<ScheduleLogRecord, 'tls_expires_at' | 'tls_days_left' | 'tls_alert'>>;

/** Which schedules a list shows: those of these owners, in one of `groupIds` when given. */
export interface ScheduleListFilter {
  userIds: readonly number[];
  groupIds?: readonly number[];
}

/** Where a user's schedule error notifications go. */
export interface NotificationSettings {
  user_id: number;
  /** Address for e-mail notifications; null means the user's own address. */
  email: string | null;
  email_enabled: boolean;
  webhook_url: string | null;
  updated_at: Millis;
}

export interface ScheduleRepo {
  create(s: NewSchedule): Promise<ScheduleRecord>;
  get(id: number): Promise<ScheduleRecord | null>;
  getBySource(source: string): Promise<ScheduleRecord | null>;
  /** Schedules of some users (a team's members), oldest first. */
  list(filter: ScheduleListFilter, page: number, perPage: number): Promise<Page<ScheduleRecord>>;
  /** Ids of every schedule after `afterId`, ascending, for syncing jobs. */
  ids(afterId: number, limit: number): Promise<number[]>;
  /** Replaces the document, and the group unless `groupId` is undefined; null when the schedule does not exist. */
  update(id: number, document: Record<string, unknown>, now: Millis, groupId?: number | null): Promise<ScheduleRecord | null>;
  /** Takes every schedule out of a group that is being deleted. */
  clearGroup(groupId: number): Promise<void>;
  /** Gives every schedule of one user to another of the same team (a removed user's heir); returns how many moved. */
  reassignOwner(fromUserId: number, toUserId: number, now: Millis): Promise<number>;
  recordRun(id: number, at: Millis, status: number): Promise<void>;
  /** Deletes the schedule with its logs. */
  delete(id: number): Promise<boolean>;
  /** Adds a log entry and keeps only the `keep` newest of the schedule. */
  addLog(entry: NewScheduleLog, keep: number): Promise<ScheduleLogRecord>;
  listLogs(scheduleId: number, opts: { sorting: 'newest' | 'oldest'; page: number; perPage: number }): Promise<Page<ScheduleLogRecord>>;
  getNotificationSettings(userId: number): Promise<NotificationSettings | null>;
  putNotificationSettings(settings: NotificationSettings): Promise<NotificationSettings>;
}

/** A connected account (Providers API). `secret` is the sealed credentials, never shown. */
export interface ProviderRecord {
  id: string;
  user_id: number;
  type: string;
  name: string;
  settings: Record<string, unknown>;
  secret: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface ProviderRepo {
  create(p: ProviderRecord): Promise<ProviderRecord>;
  get(userId: number, id: string): Promise<ProviderRecord | null>;
  /** A user's providers, oldest first, optionally of one type. */
  list(userId: number, opts: { page: number; perPage: number; type?: string }): Promise<Page<ProviderRecord>>;
  /** Changes name, settings and/or secret; null when there is no such provider of the user. */
  update(userId: number, id: string, patch: Partial<Pick<ProviderRecord, 'name' | 'settings' | 'secret'>>, now: Millis): Promise<ProviderRecord | null>;
  delete(userId: number, id: string): Promise<boolean>;
  /** Every user's providers, by id after `afterId` (null: from the first), at most `limit`. */
  after(afterId: string | null, limit: number): Promise<ProviderRecord[]>;
  /** Sets the secret only while it is still `expected` (compare-and-set); false when it changed or is gone. `updated_at` is kept. */
  replaceSecret(id: string, expected: string, secret: string): Promise<boolean>;
}

/** A reusable list of actions with predefined variables (Templates API, `template` action). */
export interface TemplateRecord {
  id: number;
  user_id: number;
  name: string;
  variables: Array<{ name: string; value: string }>;
  /** Steps as workflow documents hold them (`id` is the action's uuid). */
  actions: Array<Record<string, unknown> & { id: string; type: string }>;
  created_at: Millis;
  updated_at: Millis;
}

export interface TemplateRepo {
  create(t: Omit<TemplateRecord, 'id'>): Promise<TemplateRecord>;
  get(userId: number, id: number): Promise<TemplateRecord | null>;
  list(userId: number, opts: { page: number; perPage: number }): Promise<Page<TemplateRecord>>;
  update(userId: number, id: number, patch: Partial<Pick<TemplateRecord, 'name' | 'variables' | 'actions'>>, now: Millis): Promise<TemplateRecord | null>;
  delete(userId: number, id: number): Promise<boolean>;
  /** Every user's templates, by id after `afterId` (0: from the first), at most `limit`. */
  after(afterId: number, limit: number): Promise<TemplateRecord[]>;
  /** Sets the actions only while they are still `expected` (compare-and-set); false when they changed or the template is gone. `updated_at` is kept. */
  replaceActions(id: number, expected: TemplateRecord['actions'], actions: TemplateRecord['actions']): Promise<boolean>;
}

/** A hosted SQL database (Databases API): its PostgreSQL schema and role are named from `id`. */
export interface DatabaseRecord {
  id: string;
  user_id: number;
  name: string;
  created_at: Millis;
  updated_at: Millis;
}

export interface DatabaseRepo {
  create(d: DatabaseRecord): Promise<DatabaseRecord>;
  get(userId: number, id: string): Promise<DatabaseRecord | null>;
  /** The user's oldest database of this name (db() takes a name or an id). */
  findByName(userId: number, name: string): Promise<DatabaseRecord | null>;
  /** A user's databases, oldest first. */
  list(userId: number, opts: { page: number; perPage: number }): Promise<Page<DatabaseRecord>>;
  /** Null when there is no such database of the user. */
  rename(userId: number, id: string, name: string, now: Millis): Promise<DatabaseRecord | null>;
  delete(userId: number, id: string): Promise<boolean>;
}

/**
 * A Queue Profile: a named, shared configuration for queued actions of a user's tokens (at most
 * `rate_limit` jobs per `rate_period` seconds, the jobs of one profile run one at a time in order).
 */
export interface QueueProfileRecord {
  id: string;
  user_id: number;
  name: string;
  /** Seconds before a job first runs. */
  initial_delay: number;
  /** Jobs that may run per period. */
  rate_limit: number;
  /** The period, in seconds. */
  rate_period: number;
  /** Seconds from a job's first run until it is given up. */
  job_lifetime: number;
  created_at: Millis;
  updated_at: Millis;
}

export interface QueueProfileRepo {
  create(p: QueueProfileRecord): Promise<QueueProfileRecord>;
  /** By id alone: the job runner looks up the profile a job names. */
  get(id: string): Promise<QueueProfileRecord | null>;
  /** A user's profiles, oldest first. */
  list(userId: number): Promise<QueueProfileRecord[]>;
  /** Replaces the profile of this id and user (created_at kept); null when there is none. */
  update(p: QueueProfileRecord): Promise<QueueProfileRecord | null>;
  delete(userId: number, id: string): Promise<boolean>;
}

/** Consecutive failures of an action on captures, to disable actions that keep failing. */
export interface ActionFailureRepo {
  /** Adds one to the action's streak; returns the new length. */
  fail(actionId: string, tokenId: string, now: Millis): Promise<number>;
  /** Ends the streaks of these actions (they succeeded). */
  reset(actionIds: string[]): Promise<void>;
  /** Actions with a streak, for processes to know which successes must reset one. */
  failing(): Promise<string[]>;
}

/** A token's share link (view-only access to its requests): only the sha256 of the secret is kept. */
export interface TokenShareRecord {
  token_id: string;
  hash: string;
  created_at: Millis;
}

export interface TokenShareRepo {
  get(tokenId: string): Promise<TokenShareRecord | null>;
  /** Creates or replaces the token's share (a new secret invalidates the old one). */
  put(share: TokenShareRecord): Promise<void>;
  /** False when the token had no share. */
  delete(tokenId: string): Promise<boolean>;
}

/**
 * One entry of an account's error log (core/errorlog): an action that reported an error on a
 * capture, or a schedule run that failed. `user_id` is the account (null: an anonymous token's).
 */
export interface ErrorLogRecord {
  id: number;
  user_id: number | null;
  source: 'action' | 'schedule';
  token_id: string | null;
  request_id: string | null;
  action_id: string | null;
  action_type: string | null;
  schedule_id: number | null;
  schedule_name: string | null;
  message: string;
  read: boolean;
  created_at: Millis;
}

/** Which entries: one account's (`userId`, null for anonymous tokens') or, with `all`, everyone's. */
export type ErrorLogScope = { all: true } | { all?: false; userId: number | null };

export interface ErrorLogFilter {
  /** Case-insensitive text found in the message, action type or ID, token ID or schedule name. */
  search?: string;
  source?: ErrorLogRecord['source'];
  unread?: boolean;
  tokenId?: string;
  scheduleId?: number;
}

export interface ErrorLogRepo {
  /** Adds the entries (ids assigned in order) and keeps only the `keep` newest of each account they touch. */
  add(entries: Array<Omit<ErrorLogRecord, 'id'>>, keep: number): Promise<void>;
  /** Newest first. */
  list(scope: ErrorLogScope, filter: ErrorLogFilter, page: number, perPage: number): Promise<Page<ErrorLogRecord>>;
  unread(scope: ErrorLogScope): Promise<number>;
  /** Marks entries read: these ids (null: every entry) up to `upTo` (an id) when given; returns how many changed. */
  markRead(scope: ErrorLogScope, ids: number[] | null, upTo?: number): Promise<number>;
}

/** A replay (core/replay): a token's actions run again, or its requests forwarded, as a background job. */
export type ReplayStatus = 'queued' | 'running' | 'done' | 'cancelled' | 'failed';

/** A line of a replay's log: a request that failed or was skipped, and why. */
export interface ReplayLogEntry {
  request_id: string;
  outcome: 'failed' | 'skipped';
  message: string;
}

export interface ReplayRecord {
  id: string;
  token_id: string;
  user_id: number | null;
  /** actions: run the token's actions again; forward: send each request to `url`. */
  mode: 'actions' | 'forward';
  url: string | null;
  /** forward: instead of each request's own method. */
  method: string | null;
  /** The search-language query the requests match (null: all). */
  query: string | null;
  sorting: 'oldest' | 'newest';
  /** One request at a time, in `sorting` order (slower); otherwise a few at once. */
  ordered: boolean;
  /** At most this many requests. */
  limit: number;
  status: ReplayStatus;
  cancel_requested: boolean;
  /** Matching requests when the replay started (at most `limit`). */
  total: number;
  processed: number;
  ran: number;
  failed: number;
  skipped: number;
  /** The first failures and skips (at most 100). */
  log: ReplayLogEntry[];
  /** Why the whole replay stopped, when it failed. */
  error: string | null;
  created_at: Millis;
  updated_at: Millis;
  started_at: Millis | null;
  finished_at: Millis | null;
}

export type ReplayPatch = Partial<Omit<ReplayRecord, 'id' | 'token_id' | 'user_id' | 'created_at'>>;

export interface ReplayRepo {
  /** Stores a new replay and keeps only the `keep` newest of its token. */
  create(r: ReplayRecord, keep: number): Promise<void>;
  get(tokenId: string, id: string): Promise<ReplayRecord | null>;
  /** A token's replays, newest first. */
  list(tokenId: string, limit: number): Promise<ReplayRecord[]>;
  /** Changes the replay; null when it is gone (its token was deleted). */
  update(id: string, patch: ReplayPatch): Promise<ReplayRecord | null>;
}

/** A rate-limit window's count (CounterRepo), as the bulk copy moves it. */
export interface CounterRecord {
  key: string;
  window_start: Millis;
  count: number;
  expires_at: Millis;
}

/** An action's failure streak (ActionFailureRepo), as the bulk copy moves it. */
export interface ActionFailureRecord {
  action_id: string;
  token_id: string;
  count: number;
  updated_at: Millis;
}

/** A capture with the bytes of its uploaded files. */
export interface RequestWithFiles {
  request: RequestRecord;
  files: Array<{ id: string; data: Buffer }>;
}

/**
 * Every kind of record a store keeps, as the bulk copy (TransferRepo, core/store/migrate.ts) moves
 * it between adapters: ids, UUIDs, sorting keys and timestamps as stored; sealed fields still sealed.
 */
export interface TransferRecords {
  users: UserRecord;
  api_keys: ApiKeyRecord;
  groups: GroupRecord;
  tokens: TokenRecord;
  workflows: WorkflowRecord;
  requests: RequestWithFiles;
  schedules: ScheduleRecord;
  schedule_logs: ScheduleLogRecord;
  notification_settings: NotificationSettings;
  global_variables: GlobalVariableRecord;
  providers: ProviderRecord;
  templates: TemplateRecord;
  databases: DatabaseRecord;
  queue_profiles: QueueProfileRecord;
  action_failures: ActionFailureRecord;
  rate_counters: CounterRecord;
  token_shares: TokenShareRecord;
  error_log: ErrorLogRecord;
}

export type TransferKind = keyof TransferRecords;

/** How far a copy into this store got with one kind (migrate's checkpoint, kept in the target). */
export interface TransferCheckpoint {
  kind: TransferKind;
  /** The copy's source, as migrate names it. */
  source: string;
  /** Opaque position in the source's order (TransferRepo.read), null before the first page. */
  cursor: string | null;
  copied: number;
  done: boolean;
}

/** Bulk reads and writes of every kind of record, for copying a whole store (migrate). */
export interface TransferRepo {
  /** How many records of the kind there are (rate counters: those not expired at `now`). */
  count(kind: TransferKind, now: Millis): Promise<number>;
  /**
   * Up to `limit` records after `cursor` (null: from the first) in the store's own stable order,
   * and the cursor of the last one (null when there were none). Requests come by token, then
   * sorting key, then insertion order, so a copy written in this order keeps ties in order.
   */
  read<K extends TransferKind>(kind: K, cursor: string | null, limit: number, now: Millis): Promise<{ items: Array<TransferRecords[K]>; cursor: string | null }>;
  /**
   * Stores the records as given (ids and timestamps kept). A record whose key is already there is
   * replaced (a request is left as it is), so writing the same records twice changes nothing.
   * Requests are counted into their tokens' figures and never trimmed here.
   */
  write<K extends TransferKind>(kind: K, items: Array<TransferRecords[K]>): Promise<void>;
  checkpoints(): Promise<TransferCheckpoint[]>;
  saveCheckpoint(c: TransferCheckpoint): Promise<void>;
  clearCheckpoints(): Promise<void>;
}

// Bodies past BODY_FILE_THRESHOLD kept in files (core/store/bodies/body-files.ts implements it).
/** Receives one capture's body: in memory up to the threshold, in a file past it. */
export interface BodySink {
  /** False: the file is behind; wait for `drained` before writing more (backpressure). */
  write(chunk: Buffer): boolean;
  drained(then: () => void): void;
  /**
   * Told (once) when writing the file fails, after what was written is removed: `err` is the error
   * to answer with (InsufficientStorage for a full disk). Nothing more is written or drained then.
   * Set it before writing.
   */
  failed(then: (err: unknown) => void): void;
  /** The body: a Buffer, or the file it is in. Rejects as `failed` is told. */
  end(): Promise<{ buffer: Buffer } | { file: string; size: number }>;
  /** Removes the file (failed or refused capture). */
  discard(): void;
}

export interface BodyFiles {
  readonly dir: string;
  readonly threshold: number;
  sink(): BodySink;
  /** The requests repository with bodies past the threshold kept in files. */
  wrap(repo: RequestRepo): RequestRepo;
  /**
   * The file holding a stored row's body (as the store's TransferRepo reads it: empty body, size
   * above 0), or null when the body is in the row. The file may have been swept (its request deleted).
   */
  storedFileOf(row: RequestRecord): string | null;
  /**
   * Puts a copied request's body (bytes, or a file of another store, copied not moved) in this
   * store's file for it, replacing any; a missing source file leaves none (the body reads empty,
   * as it did in the source). Call it after the row (with an empty body) is written: the sweeper
   * removes a file whose row it cannot find.
   */
  place(row: RequestRecord, body: Buffer | string): Promise<void>;
  /** Checks the next `limit` files of its walk, removing those whose request is gone; returns how many it removed. */
  sweep(limit?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * The adapter's own database, for the parts built directly on it: Agenda's job backend
 * (core/scheduler/scheduler.ts) and the cross-process realtime feed (core/realtime/feed.ts).
 */
export type NativeDatabase = { kind: 'sqlite'; db: SqliteDatabase } | { kind: 'mongo'; db: Db };

export interface Store {
  readonly kind: 'sqlite' | 'mongo';
  providers: ProviderRepo;
  databases: DatabaseRepo;
  queueProfiles: QueueProfileRepo;
  actionFailures: ActionFailureRepo;
  shares: TokenShareRepo;
  errorLog: ErrorLogRepo;
  replays: ReplayRepo;
  templates: TemplateRepo;
  workflows: WorkflowRepo;
  globals: GlobalVariableRepo;
  users: UserRepo;
  tokens: TokenRepo;
  requests: RequestRepo;
  counters: CounterRepo;
  groups: GroupRepo;
  listeners: ListenerRepo;
  schedules: ScheduleRepo;
  /** Bulk copy of everything above (migrate); not used by the service. */
  transfer: TransferRepo;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Capability: large bodies kept in files (SQLite with a data folder); captures stream into it. */
  bodyFiles?: BodyFiles;
  /**
   * Capability: whether writes are refused for lack of space (SQLite with a data folder, whose
   * writes then throw InsufficientStorage: core/store/space.ts), for /readyz.
   */
  space?: StorageSpace;
  /** Capability: the database behind the repositories (both adapters). */
  database?(): NativeDatabase;
  /** Capability: told about each group commit of captures (SQLite's capture writer; MongoDB has none). */
  observeCaptureCommits?(observer: CommitObserver): void;
  /**
   * Capability: told about each catch-up of captured rows (indexes, counters, trimming, in bulk:
   * SQLite's capture writer; MongoDB has none).
   */
  observeCatchUps?(observer: CatchUpObserver): void;
}

/** Told about a group commit of captures: how many, and how long the commit took. */
export type CommitObserver = (captures: number, seconds: number) => void;
/** Told about a catch-up of stored captures: the rows it took (0: only purged or filled) and its seconds. */
export type CatchUpObserver = (rows: number, seconds: number) => void;

export class AliasTaken extends Error {
  constructor(readonly alias: string) {
    super(`The alias ${alias} is already taken`);
  }
}
