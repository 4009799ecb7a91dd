// Bulk reads and writes of every kind of record (TransferRepo), for copying a whole store
// (core/store/migrate.ts). Each kind is one collection read in `_id` order and written with
// upserts on `_id`; numeric ids move their sequence on, so ids created later never collide.
// Requests are read in list order (token, sorting, insertion) and given fresh `ins` values in that
// order; their tokens' figures are recounted after each page.
import { ObjectId, type Collection, type Document, type Filter, type OptionalUnlessRequiredId } from 'mongodb';
import type { RequestWithFiles, TransferCheckpoint, TransferKind, TransferRecords, TransferRepo } from '../types.js';
import {
  toApiKey,
  toDatabase,
  toQueueProfile,
  toGlobalVariable,
  toGroup,
  toProvider,
  toRequest,
  toRequestDoc,
  toTemplate,
  toToken,
  toUser,
  toWorkflow,
  toWorkflowDoc,
  toErrorLog,
  toBinary,
  toBuffer,
  isDuplicateKey,
  type Cols,
  type FileDoc,
  type RequestDoc,
  type TokenDoc,
} from './docs.js';
import { fileDocId } from './requests.js';
import { scheduleCollections, toLog, toSchedule } from './schedules.js';

// Records and documents of every kind pass through one table of converters, typed per kind at its ends.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Rec = Record<string, any>;

interface Kind {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one table of converters for every kind
  coll: Collection<any>;
  toDoc(r: Rec): Document & { _id: unknown };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one table of converters for every kind
  fromDoc(d: any): Rec;
  /** The sequence numbering this kind's ids (named as the collection). */
  seq?: string;
  /** Documents that count (rate counters: the windows not expired yet). */
  live?(now: number): Filter<Document>;
  /** Written as `$set` of these fields plus `$setOnInsert` of the rest (tokens keep their figures). */
  keep?: Rec;
}

const withId = (id: string) => (r: Rec) => ({ _id: r[id], ...r });

function kinds(c: Cols): { [K in Exclude<TransferKind, 'requests'>]: Kind } {
  const s = scheduleCollections(c.db);
  return {
    users: { coll: c.users, toDoc: withId('id'), fromDoc: toUser, seq: 'users' },
    api_keys: { coll: c.apiKeys, toDoc: withId('id'), fromDoc: toApiKey, seq: 'api_keys' },
    groups: { coll: c.groups, toDoc: withId('id'), fromDoc: toGroup, seq: 'groups' },
    tokens: {
      coll: c.tokens,
      toDoc: withId('uuid'),
      fromDoc: toToken,
      keep: { request_count: 0, latest_request_id: null, latest_request_at: null, latest_sorting: null } satisfies Partial<TokenDoc>,
    },
    workflows: { coll: c.workflows, toDoc: (r) => toWorkflowDoc(r.token_id, r.document, r.updated_at), fromDoc: toWorkflow },
    schedules: { coll: s.schedules, toDoc: ({ id, document, ...rest }) => ({ _id: id, ...rest, document: JSON.stringify(document) }), fromDoc: toSchedule, seq: 'schedules' },
    schedule_logs: {
      coll: s.logs,
      toDoc: ({ id, response_headers, ...rest }) => ({ _id: id, ...rest, response_headers: JSON.stringify(response_headers) }),
      fromDoc: toLog,
      seq: 'schedule_logs',
    },
    notification_settings: { coll: s.settings, toDoc: ({ user_id, ...rest }) => ({ _id: user_id, ...rest }), fromDoc: ({ _id, ...rest }) => ({ user_id: _id, ...rest }) },
    global_variables: { coll: c.globals, toDoc: withId('id'), fromDoc: toGlobalVariable, seq: 'global_variables' },
    providers: { coll: c.providers, toDoc: ({ id, ...rest }) => ({ _id: id, ...rest }), fromDoc: toProvider },
    templates: { coll: c.templates, toDoc: withId('id'), fromDoc: toTemplate, seq: 'templates' },
    databases: { coll: c.databases, toDoc: ({ id, ...rest }) => ({ _id: id, ...rest }), fromDoc: toDatabase },
    queue_profiles: { coll: c.queueProfiles, toDoc: ({ id, ...rest }) => ({ _id: id, ...rest }), fromDoc: toQueueProfile },
    action_failures: {
      coll: c.actionFailures,
      toDoc: ({ action_id, ...rest }) => ({ _id: action_id, ...rest }),
      fromDoc: ({ _id, token_id, count, updated_at }) => ({ action_id: _id, token_id, count, updated_at }),
    },
    token_shares: { coll: c.shares, toDoc: ({ token_id, ...rest }) => ({ _id: token_id, ...rest }), fromDoc: ({ _id, hash, created_at }) => ({ token_id: _id, hash, created_at }) },
    error_log: { coll: c.errorLog, toDoc: withId('id'), fromDoc: toErrorLog, seq: 'error_log' },
    rate_counters: {
      coll: c.counters,
      toDoc: (r) => ({ _id: `${r.key}@${r.window_start}`, count: r.count, expires_at: new Date(r.expires_at) }),
      fromDoc: (d) => {
        const at = String(d._id).lastIndexOf('@');
        return { key: String(d._id).slice(0, at), window_start: Number(String(d._id).slice(at + 1)), count: d.count, expires_at: (d.expires_at as Date).getTime() };
      },
      // Sliding windows (`starts`) stay behind: they hold one period of starts, no row's shape.
      live: (now) => ({ expires_at: { $gt: new Date(now) }, starts: { $exists: false } }),
    },
  };
}

/** Inserts the documents, leaving those whose `_id` is already there as they are (plain inserts: upserts cost far more). */
async function insertNew<T extends { _id: string }>(coll: Collection<T>, docs: T[]): Promise<void> {
  try {
    await coll.insertMany(docs as OptionalUnlessRequiredId<T>[], { ordered: false });
  } catch (e) {
    if (!isDuplicateKey(e)) throw e;
    // Some were there (a page copied again after an interruption): insert the others. Servers
    // differ in what an unordered insert with duplicates stored, so ask.
    const there = await coll.find({ _id: { $in: docs.map((d) => d._id) } } as Filter<T>, { projection: { _id: 1 } }).toArray();
    const have = new Set(there.map((d) => String(d._id)));
    const rest = docs.filter((d) => !have.has(d._id));
    if (rest.length) await coll.insertMany(rest as OptionalUnlessRequiredId<T>[], { ordered: false });
  }
}

const BY_LIST_ORDER = { token_id: 1, sorting: 1, ins: 1 } as const;

export class MongoTransferRepo implements TransferRepo {
  private readonly kinds: ReturnType<typeof kinds>;
  private readonly checkpointsColl: Collection<{ _id: string; source: string; cursor: string | null; copied: number; done: boolean }>;

  constructor(private readonly c: Cols) {
    this.kinds = kinds(c);
    this.checkpointsColl = c.db.collection('transfer_checkpoints');
  }

  async count(kind: TransferKind, now: number): Promise<number> {
    if (kind === 'requests') return this.c.requests.countDocuments({});
    const k = this.kinds[kind];
    return k.coll.countDocuments(k.live?.(now) ?? {});
  }

  async read<K extends TransferKind>(kind: K, cursor: string | null, limit: number, now: number): Promise<{ items: Array<TransferRecords[K]>; cursor: string | null }> {
    if (kind === 'requests') return (await this.readRequests(cursor, limit)) as { items: Array<TransferRecords[K]>; cursor: string | null };
    const k = this.kinds[kind as Exclude<TransferKind, 'requests'>];
    const filter: Filter<Document> = { ...(k.live?.(now) ?? {}), ...(cursor === null ? {} : { _id: { $gt: JSON.parse(cursor) } }) };
    const docs = await k.coll.find(filter).sort({ _id: 1 }).limit(limit).toArray();
    const last = docs.at(-1);
    return { items: docs.map((d) => k.fromDoc(d)) as Array<TransferRecords[K]>, cursor: last ? JSON.stringify(last._id) : null };
  }

  async write<K extends TransferKind>(kind: K, items: Array<TransferRecords[K]>): Promise<void> {
    if (!items.length) return;
    if (kind === 'requests') return this.writeRequests(items as RequestWithFiles[]);
    const k = this.kinds[kind as Exclude<TransferKind, 'requests'>];
    const docs = (items as Rec[]).map((r) => k.toDoc(r));
    await k.coll.bulkWrite(
      docs.map(({ _id, ...fields }) =>
        k.keep ? { updateOne: { filter: { _id }, update: { $set: fields, $setOnInsert: k.keep }, upsert: true } } : { replaceOne: { filter: { _id }, replacement: fields, upsert: true } },
      ),
      { ordered: false },
    );
    if (k.seq) {
      const top = Math.max(...docs.map((d) => Number(d._id)));
      await this.raiseSequence(k.seq, top);
    }
  }

  /** Moves a sequence on to at least `top` (a conditional $set, then an insert: what $max would do, in operators every server has). */
  private async raiseSequence(name: string, top: number): Promise<void> {
    const raise = () => this.c.sequences.updateOne({ _id: name, seq: { $lt: top } }, { $set: { seq: top } });
    if ((await raise()).matchedCount) return;
    try {
      await this.c.sequences.insertOne({ _id: name, seq: top });
    } catch (e) {
      // It exists (at or past `top`, or made meanwhile): raise it if it is still below.
      if (!isDuplicateKey(e)) throw e;
      await raise();
    }
  }

  private async readRequests(cursor: string | null, limit: number): Promise<{ items: RequestWithFiles[]; cursor: string | null }> {
    let filter: Filter<RequestDoc> = {};
    if (cursor !== null) {
      const [t, s, ins] = JSON.parse(cursor) as [string, number, string];
      const i = new ObjectId(ins);
      filter = { $or: [{ token_id: { $gt: t } }, { token_id: t, sorting: { $gt: s } }, { token_id: t, sorting: s, ins: { $gt: i } }] };
    }
    const docs = await this.c.requests
      .find(filter, { projection: { content_text: 0 } })
      .sort(BY_LIST_ORDER)
      .limit(limit)
      .toArray();
    const files = new Map<string, Array<{ id: string; data: Buffer }>>();
    if (docs.length) {
      for (const f of await this.c.files
        .find({ request_uuid: { $in: docs.map((d) => d._id) } })
        .sort({ _id: 1 })
        .toArray()) {
        const list = files.get(f.request_uuid) ?? [];
        list.push({ id: f._id.slice(f.request_uuid.length + 1), data: toBuffer(f.data) });
        files.set(f.request_uuid, list);
      }
    }
    const last = docs.at(-1);
    return {
      items: docs.map((d) => ({ request: toRequest(d), files: files.get(d._id) ?? [] })),
      cursor: last ? JSON.stringify([last.token_id, last.sorting, last.ins.toHexString()]) : null,
    };
  }

  private async writeRequests(items: RequestWithFiles[]): Promise<void> {
    const fileDocs: FileDoc[] = items.flatMap((i) => i.files.map((f) => ({ _id: fileDocId(i.request.uuid, f.id), token_id: i.request.token_id, request_uuid: i.request.uuid, data: toBinary(f.data) })));
    // Files first, as RequestRepo.insert does: a reader never sees a request whose files are missing.
    if (fileDocs.length) {
      await insertNew(this.c.files, fileDocs);
    }
    // Fresh `ins` values in the order given (increasing within this process): ties keep their order.
    await insertNew(
      this.c.requests,
      items.map((i) => toRequestDoc(i.request, new ObjectId())),
    );
    for (const tokenId of new Set(items.map((i) => i.request.token_id))) await this.recount(tokenId);
  }

  /** A token's figures from its requests, as inserts and deletes keep them. */
  private async recount(tokenId: string): Promise<void> {
    const [count, newest] = await Promise.all([
      this.c.requests.countDocuments({ token_id: tokenId }),
      this.c.requests.findOne({ token_id: tokenId }, { sort: { sorting: -1, ins: -1 }, projection: { _id: 1, created_at: 1, sorting: 1 } }),
    ]);
    await this.c.tokens.updateOne({ _id: tokenId }, { $set: { request_count: count, latest_request_id: newest?._id ?? null, latest_request_at: newest?.created_at ?? null, latest_sorting: newest?.sorting ?? null } });
  }

  async checkpoints(): Promise<TransferCheckpoint[]> {
    const docs = await this.checkpointsColl.find({}).sort({ _id: 1 }).toArray();
    return docs.map(({ _id, source, cursor, copied, done }) => ({ kind: _id as TransferKind, source, cursor, copied, done }));
  }

  async saveCheckpoint({ kind, ...rest }: TransferCheckpoint): Promise<void> {
    await this.checkpointsColl.replaceOne({ _id: kind }, rest, { upsert: true });
  }

  async clearCheckpoints(): Promise<void> {
    await this.checkpointsColl.deleteMany({});
  }
}
