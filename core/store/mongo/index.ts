// The MongoDB adapter of the storage port (used when MONGODB_URI is set).
//
// Collections: users, api_keys, sequences (numeric ids), tokens (with denormalised request
// figures), requests (body as BinData plus `content_text` for search), files (one document per
// uploaded file, at most 15 MiB each), rate_counters (TTL-expired), groups (numeric ids),
// listeners (captures awaiting a set-response, TTL-expired after their deadline), workflows (one
// document per token, kept as JSON text, `_id` = token uuid) and global_variables (numeric ids,
// unique per owner and name). No multi-document transactions are used, so a standalone mongod, a
// replica set or a sharded cluster all work.
import { MongoClient, type Collection } from 'mongodb';
import type { NativeDatabase, Store } from '../types.js';
import { MongoCounterRepo } from './counters.js';
import { cols, type Cols, type RequestDoc } from './docs.js';
import { MongoGlobalVariableRepo } from './globals.js';
import { MongoProviderRepo } from './providers.js';
import { MongoDatabaseRepo } from './databases.js';
import { MongoTemplateRepo } from './templates.js';
import { MongoActionFailureRepo } from './action-failures.js';
import { MongoErrorLogRepo } from './error-log.js';
import { MongoShareRepo } from './shares.js';
import { MongoReplayRepo } from './replays.js';
import { MongoGroupRepo } from './groups.js';
import { MongoListenerRepo } from './listeners.js';
import { MongoRequestRepo } from './requests.js';
import { MongoScheduleRepo, ensureScheduleIndexes } from './schedules.js';
import { ALIAS_ANY_CASE, MongoTokenRepo } from './tokens.js';
import { MongoTransferRepo } from './transfer.js';
import { MongoUserRepo } from './users.js';
import { MongoWorkflowRepo } from './workflows.js';

export const DEFAULT_DB_NAME = 'capture';

/** The database named in the URI's path (`mongodb://host/dbname?opts`), or null. */
export function dbNameFromUri(uri: string): string | null {
  const rest = uri.replace(/^mongodb(\+srv)?:\/\//i, '');
  const slash = rest.indexOf('/');
  if (slash < 0) return null;
  const path = rest.slice(slash + 1).split('?')[0] ?? '';
  const name = decodeURIComponent(path);
  return name.length > 0 ? name : null;
}

export async function ensureIndexes(c: Cols): Promise<void> {
  await Promise.all([
    c.requests
      .createIndexes([
        // Lists, `latest`, retention trimming and chunked deletes walk a token's requests in capture
        // order (capture key, then insertion). `_id` makes a page's ids a covered query (deep
        // pages skip index keys, not documents). method, type, ip and created_at let searches
        // and counts on them test index keys instead of reading documents: their compiled match is
        // a case-insensitive regex, which no index can bound, so separate (token_id, method)-style
        // indexes would scan the same keys without giving the order.
        { key: { token_id: 1, sorting: 1, ins: 1, _id: 1, method: 1, type: 1, ip: 1, created_at: 1 }, name: 'token_list' },
        // Date ranges (date_from/date_to, created_at:[...]) bound this one.
        { key: { token_id: 1, created_at: 1 }, name: 'token_created_at' },
      ])
      .then(() => dropIndexIfPresent(c.requests, 'token_sorting')),
    c.tokens.createIndexes([
      { key: { user_id: 1, created_at: 1 }, name: 'user_created_at' },
      { key: { team_id: 1, created_at: 1 }, name: 'team_created_at' },
      { key: { alias: 1 }, name: 'alias_unique', unique: true, partialFilterExpression: { alias: { $type: 'string' } } },
      // resolveIgnoringCase (DNS names); only queries with the same collation use it.
      { key: { alias: 1 }, name: 'alias_any_case', collation: ALIAS_ANY_CASE, partialFilterExpression: { alias: { $type: 'string' } } },
      { key: { expires_at: 1 }, name: 'expires_at' },
      // Inactivity cleanup: non-premium tokens by last activity.
      { key: { premium: 1, latest_request_at: 1 }, name: 'premium_latest_request_at' },
      // clearGroup.
      { key: { group_id: 1 }, name: 'group_id' },
    ]),
    c.apiKeys.createIndexes([
      { key: { hash: 1 }, name: 'hash_unique', unique: true },
      { key: { user_id: 1 }, name: 'user_id' },
    ]),
    c.files.createIndexes([
      { key: { request_uuid: 1 }, name: 'request_uuid' },
      { key: { token_id: 1 }, name: 'token_id' },
    ]),
    c.counters.createIndex({ expires_at: 1 }, { name: 'expires_at_ttl', expireAfterSeconds: 0 }),
    c.users.createIndexes([
      { key: { team_id: 1, _id: 1 }, name: 'team_id' },
      { key: { invite_hash: 1 }, name: 'invite_hash', partialFilterExpression: { invite_hash: { $type: 'string' } } },
    ]),
    c.groups.createIndex({ user_id: 1, _id: 1 }, { name: 'user_id' }),
    c.listeners.createIndex({ expires_at: 1 }, { name: 'expires_at_ttl', expireAfterSeconds: 0 }),
    // One variable per (owner, name); also serves the owner's lookups, lists and searches.
    c.globals.createIndex({ owner: 1, name: 1 }, { name: 'owner_name_unique', unique: true }),
    c.providers.createIndex({ user_id: 1, created_at: 1 }, { name: 'user_created' }),
    c.databases.createIndex({ user_id: 1, created_at: 1 }, { name: 'user_created' }),
    c.templates.createIndex({ user_id: 1, _id: 1 }, { name: 'user_id' }),
    // A share link is looked up by token (`_id`); one secret hash per share.
    c.shares.createIndex({ hash: 1 }, { name: 'hash_unique', unique: true }),
    // An account's error log newest first, and its unread count.
    c.errorLog.createIndexes([
      { key: { user_id: 1, _id: -1 }, name: 'user_id' },
      { key: { user_id: 1, read: 1 }, name: 'user_read' },
    ]),
    // A token's replays newest first.
    c.replays.createIndex({ token_id: 1, created_at: -1 }, { name: 'token_id' }),
    // workflows need none: `_id` is the token uuid.
  ]);
}

/** Drops an index that `token_list` replaced; servers without dropIndexes keep it (harmless). */
async function dropIndexIfPresent(col: Collection<RequestDoc>, name: string): Promise<void> {
  try {
    await col.dropIndex(name);
  } catch (err) {
    const code = (err as { code?: number }).code;
    // 26 NamespaceNotFound, 27 IndexNotFound, 59 CommandNotFound (the emulator).
    if (code !== 26 && code !== 27 && code !== 59) throw err;
  }
}

class MongoStore implements Store {
  readonly kind = 'mongo' as const;
  readonly users: MongoUserRepo;
  readonly tokens: MongoTokenRepo;
  readonly requests: MongoRequestRepo;
  readonly counters: MongoCounterRepo;
  readonly groups: MongoGroupRepo;
  readonly listeners: MongoListenerRepo;
  readonly schedules: MongoScheduleRepo;
  readonly workflows: MongoWorkflowRepo;
  readonly globals: MongoGlobalVariableRepo;
  readonly providers: MongoProviderRepo;
  readonly databases: MongoDatabaseRepo;
  readonly templates: MongoTemplateRepo;
  readonly actionFailures: MongoActionFailureRepo;
  readonly shares: MongoShareRepo;
  readonly errorLog: MongoErrorLogRepo;
  readonly replays: MongoReplayRepo;
  readonly transfer: MongoTransferRepo;

  constructor(
    private readonly client: MongoClient,
    readonly c: Cols,
  ) {
    this.users = new MongoUserRepo(c);
    this.tokens = new MongoTokenRepo(c);
    this.requests = new MongoRequestRepo(c);
    this.counters = new MongoCounterRepo(c);
    this.groups = new MongoGroupRepo(c);
    this.listeners = new MongoListenerRepo(c);
    this.schedules = new MongoScheduleRepo(c);
    this.workflows = new MongoWorkflowRepo(c);
    this.globals = new MongoGlobalVariableRepo(c);
    this.providers = new MongoProviderRepo(c);
    this.databases = new MongoDatabaseRepo(c);
    this.templates = new MongoTemplateRepo(c);
    this.actionFailures = new MongoActionFailureRepo(c);
    this.shares = new MongoShareRepo(c);
    this.errorLog = new MongoErrorLogRepo(c);
    this.replays = new MongoReplayRepo(c);
    this.transfer = new MongoTransferRepo(c);
  }

  database(): NativeDatabase {
    return { kind: 'mongo', db: this.c.db };
  }

  async ping(): Promise<void> {
    await this.client.db('admin').command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * Users and tokens stored before teams: each user becomes the one-person team of their own ID (its
 * Administrator) and each token joins its owner's team. Reads map missing fields the same way
 * (docs.ts), so this only makes the team lists' queries find them. Runs once per field: afterwards
 * nothing lacks team_id.
 */
export async function upgradeToTeams(c: Cols): Promise<void> {
  for await (const u of c.users.find({ team_id: { $exists: false } }, { projection: { _id: 1 } })) {
    // Tokens first: an upgrade stopped in between finds the user again next time.
    await c.tokens.updateMany({ user_id: u._id, team_id: { $exists: false } }, { $set: { team_id: u._id } });
    await c.users.updateOne({ _id: u._id, team_id: { $exists: false } }, { $set: { team_id: u._id, user_type_id: 100 } });
  }
  await c.tokens.updateMany({ team_id: { $exists: false }, user_id: null }, { $set: { team_id: null } });
}

export async function createMongoStore(uri: string, opts?: { dbName?: string }): Promise<Store> {
  // ignoreUndefined: an undefined field is left out, as JSON would, rather than stored as null.
  const client = new MongoClient(uri, { ignoreUndefined: true });
  try {
    await client.connect();
    const db = client.db(opts?.dbName ?? dbNameFromUri(uri) ?? DEFAULT_DB_NAME);
    const c = cols(db);
    await ensureIndexes(c);
    await ensureScheduleIndexes(db);
    await upgradeToTeams(c);
    return new MongoStore(client, c);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}
