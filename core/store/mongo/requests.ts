// Captured requests and their files.
//
// Writes are not wrapped in a multi-document transaction (those need a replica set, and the hosted
// CI runs a standalone mongod): files are written before the request that refers to them, so a
// reader never sees a request whose files are missing. Each file is one document, so a file
// larger than MAX_FILE_BYTES (15 MiB) is refused with an error, and a request document (body plus
// search text) must stay under MongoDB's 16 MiB document limit.
//
// The token's `request_count` never exceeds its real number of requests: inserts add one after
// writing, deletions take their number off before deleting (and give back what was not there).
// Trimming relies on that: it claims the excess from the counter atomically and deletes exactly
// that many of the oldest, so concurrent trims never remove more than the excess.
//
// Text search stays a case-insensitive `$regex` over `content_text` (query/mongo.ts): a `$text`
// index stems words, drops stop words and matches whole words only, so it is not a superset of a
// substring match and cannot even serve as a pre-filter.
import { ObjectId, type Filter } from 'mongodb';
import { compileMongo } from '../query/index.js';
import { COUNT_BOUND } from '../query/limits.js';
import type { RequestCursor, RequestFilter, RequestListOptions, RequestPage, RequestPatch, RequestRecord, RequestRepo, RequestWalkOptions, RequestWalkPage } from '../types.js';
import { MAX_FILE_BYTES, defined, toBinary, toBuffer, toRequest, toRequestDoc, type Cols, type FileDoc, type RequestDoc } from './docs.js';
import { DELETE_CHUNK } from './chunks.js';

/** Newest first: by capture key, then by insertion. */
const NEWEST = { sorting: -1, ins: -1 } as const;
const OLDEST = { sorting: 1, ins: 1 } as const;
/**
 * The list orders with `_id` last: `ins` is unique already (one ObjectId per stored request), so the
 * order is the same; with it a walk's position (listAfter) is a total order whatever is stored.
 */
const WALK_NEWEST = { sorting: -1, ins: -1, _id: -1 } as const;
const WALK_OLDEST = { sorting: 1, ins: 1, _id: 1 } as const;
/** The search text is never returned. */
const NO_TEXT = { content_text: 0 } as const;

export function fileDocId(requestUuid: string, fileId: string): string {
  return `${requestUuid}:${fileId}`;
}

/**
 * Keeps the newest `limit` requests of the token (after a capture, or when its request_limit is
 * lowered: MongoTokenRepo.update). The excess is claimed from the counter in one atomic update (so
 * each excess request is claimed by one trim only), then the oldest that many are deleted by one
 * deleteMany bounded on the token_list index (token, sorting, ins) at the owed-th oldest: a lowering
 * from 50,000 to 10 is one statement, not 50 round trips. A concurrent trim that took some of them
 * leaves this one short: it goes on from the next oldest.
 */
export async function trimRequests(c: Cols, tokenId: string, limit: number): Promise<void> {
  const before = await c.tokens.findOneAndUpdate({ _id: tokenId, request_count: { $gt: limit } }, { $set: { request_count: limit } }, { returnDocument: 'before', projection: { request_count: 1 } });
  let owed = before ? before.request_count - limit : 0;
  // Requests with files are few: their ids are looked up among the token's files, not its requests.
  const filed = owed > 0 ? ((await c.files.distinct('request_uuid', { token_id: tokenId })) as string[]) : [];
  while (owed > 0) {
    const [last] = await c.requests
      .find({ token_id: tokenId }, { projection: { _id: 0, sorting: 1, ins: 1 } })
      .sort(OLDEST)
      .skip(owed - 1)
      .limit(1)
      .toArray();
    // Fewer than owed left: all of them.
    const upTo: Filter<RequestDoc> = last ? { token_id: tokenId, sorting: { $lte: last.sorting }, $or: [{ sorting: { $lt: last.sorting } }, { ins: { $lte: last.ins } }] } : { token_id: tokenId };
    const withFiles = filed.length ? (await c.requests.find({ $and: [upTo, { _id: { $in: filed } }] }, { projection: { _id: 1 } }).toArray()).map((d) => d._id) : [];
    const { deletedCount } = await c.requests.deleteMany(upTo);
    if (withFiles.length) await c.files.deleteMany({ request_uuid: { $in: withFiles }, token_id: tokenId });
    if (deletedCount === 0) break;
    owed -= deletedCount;
  }
  // Nothing left to take: what was claimed but not deleted goes back on the counter.
  if (owed > 0) await c.tokens.updateOne({ _id: tokenId }, { $inc: { request_count: owed } });
}

/** Deletes the given requests of the token with their files; leaves the counter alone. */
async function removeIds(c: Cols, tokenId: string, ids: string[]): Promise<number> {
  const res = await c.requests.deleteMany({ _id: { $in: ids }, token_id: tokenId });
  await c.files.deleteMany({ request_uuid: { $in: ids }, token_id: tokenId });
  return res.deletedCount;
}

export class MongoRequestRepo implements RequestRepo {
  constructor(private readonly c: Cols) {}

  /** The token's requests under a filter; `filtered` is false when that is all of them. */
  private filter(tokenId: string, f: RequestFilter): { filter: Filter<RequestDoc>; filtered: boolean } {
    const parts: Record<string, unknown>[] = [{ token_id: tokenId }];
    const created: Record<string, number> = {};
    if (f.dateFrom != null) created.$gte = f.dateFrom;
    if (f.dateTo != null) created.$lte = f.dateTo;
    if (Object.keys(created).length > 0) parts.push({ created_at: created });
    if (f.query) {
      const q = compileMongo(f.query, f.now ?? Date.now());
      if (Object.keys(q).length > 0) parts.push(q);
    }
    const filter = (parts.length === 1 ? parts[0] : { $and: parts }) as Filter<RequestDoc>;
    return { filter, filtered: parts.length > 1 };
  }

  async insert(r: RequestRecord, limit: number, files?: ReadonlyMap<string, Buffer>): Promise<void> {
    if (!(limit > 0)) return; // a limit of 0 stores nothing
    const fileDocs: FileDoc[] = [];
    for (const [fileId, data] of files ?? []) {
      if (data.length > MAX_FILE_BYTES) {
        throw new Error(`File ${fileId} is ${data.length} bytes; the MongoDB store keeps files up to ${MAX_FILE_BYTES} bytes`);
      }
      fileDocs.push({ _id: fileDocId(r.uuid, fileId), token_id: r.token_id, request_uuid: r.uuid, data: toBinary(data) });
    }

    if (fileDocs.length > 0) await this.c.files.insertMany(fileDocs);
    try {
      await this.c.requests.insertOne(toRequestDoc(r, new ObjectId()));
    } catch (err) {
      if (fileDocs.length > 0) {
        await this.c.files.deleteMany({ _id: { $in: fileDocs.map((f) => f._id) } }).catch(() => undefined);
      }
      throw err;
    }

    const tok = await this.c.tokens.findOneAndUpdate({ _id: r.token_id }, { $inc: { request_count: 1 } }, { returnDocument: 'after', projection: { request_count: 1 } });
    await this.c.tokens.updateOne(
      { _id: r.token_id, $or: [{ latest_sorting: null }, { latest_sorting: { $lte: r.sorting } }] },
      { $set: { latest_request_id: r.uuid, latest_request_at: r.created_at, latest_sorting: r.sorting } },
    );

    const count = tok ? tok.request_count : await this.c.requests.countDocuments({ token_id: r.token_id });
    if (count > limit) await this.trim(r.token_id, Math.floor(limit));
  }

  private trim(tokenId: string, limit: number): Promise<void> {
    return trimRequests(this.c, tokenId, limit);
  }

  private removeIds(tokenId: string, ids: string[]): Promise<number> {
    return removeIds(this.c, tokenId, ids);
  }

  /** Deletes the given requests of the token with their files; adjusts the token's count. */
  private async deleteIds(tokenId: string, ids: string[]): Promise<number> {
    // Down first, so the counter is never above the real count (see the file comment).
    await this.c.tokens.updateOne({ _id: tokenId }, { $inc: { request_count: -ids.length } });
    const deleted = await this.removeIds(tokenId, ids);
    if (deleted < ids.length) {
      await this.c.tokens.updateOne({ _id: tokenId }, { $inc: { request_count: ids.length - deleted } });
    }
    return deleted;
  }

  /** After deletions: if the token's latest request is gone, point it at the newest remaining one. */
  private async refreshLatest(tokenId: string): Promise<void> {
    const tok = await this.c.tokens.findOne({ _id: tokenId }, { projection: { latest_request_id: 1 } });
    const stale = tok?.latest_request_id;
    if (!stale) return;
    if (await this.c.requests.findOne({ _id: stale }, { projection: { _id: 1 } })) return;
    const newest = await this.c.requests.findOne({ token_id: tokenId }, { sort: NEWEST, projection: { _id: 1, created_at: 1, sorting: 1 } });
    // Only if no concurrent insert has moved `latest` on in the meantime.
    await this.c.tokens.updateOne(
      { _id: tokenId, latest_request_id: stale },
      {
        $set: {
          latest_request_id: newest?._id ?? null,
          latest_request_at: newest?.created_at ?? null,
          latest_sorting: newest?.sorting ?? null,
        },
      },
    );
  }

  async get(tokenId: string, uuid: string): Promise<RequestRecord | null> {
    const d = await this.c.requests.findOne({ _id: uuid, token_id: tokenId }, { projection: NO_TEXT });
    return d ? toRequest(d) : null;
  }

  async latest(tokenId: string): Promise<RequestRecord | null> {
    const d = await this.c.requests.findOne({ token_id: tokenId }, { sort: NEWEST, projection: NO_TEXT });
    return d ? toRequest(d) : null;
  }

  async list(tokenId: string, opts: RequestListOptions): Promise<RequestPage> {
    const { filter, filtered } = this.filter(tokenId, opts);
    const perPage = Math.max(0, Math.floor(opts.perPage));
    const page = Math.max(1, Math.floor(opts.page));
    const [docs, count] = await Promise.all([this.page(tokenId, filter, opts.sorting === 'oldest' ? OLDEST : NEWEST, (page - 1) * perPage, perPage), filtered ? this.boundedCount(filter) : this.tokenCount(tokenId)]);
    const items = docs.map(toRequest);
    return filtered && count > COUNT_BOUND ? { items, total: COUNT_BOUND, totalCapped: true } : { items, total: count };
  }

  async listAfter(tokenId: string, opts: RequestWalkOptions): Promise<RequestWalkPage> {
    const { filter } = this.filter(tokenId, opts);
    const newest = opts.sorting === 'newest';
    const limit = Math.max(1, Math.floor(opts.perPage));
    const where = opts.after == null ? filter : { $and: [filter, beyond(opts.after, newest)] };
    // One more than the page: whether any is left, without a count.
    const docs = await this.c.requests
      .find(where, { projection: NO_TEXT })
      .sort(newest ? WALK_NEWEST : WALK_OLDEST)
      .limit(limit + 1)
      .toArray();
    const more = docs.length > limit;
    if (more) docs.length = limit;
    const last = docs.at(-1);
    return { items: docs.map(toRequest), next: more && last ? JSON.stringify([last.sorting, last.ins.toHexString(), last._id]) : null };
  }

  /**
   * One page in order. Past the first page, the page's ids come first from a query the
   * (token, sorting, ins, _id) index covers, then only those documents: skipping 45,000 requests
   * then walks index keys rather than reading 45,000 documents.
   */
  private async page(tokenId: string, filter: Filter<RequestDoc>, sort: typeof NEWEST | typeof OLDEST, skip: number, limit: number): Promise<RequestDoc[]> {
    if (limit === 0) return [];
    if (skip === 0) return this.c.requests.find(filter, { projection: NO_TEXT }).sort(sort).limit(limit).toArray();
    const keys = await this.c.requests
      .find(filter, { projection: { _id: 1 } })
      .sort(sort)
      .skip(skip)
      .limit(limit)
      .toArray();
    if (keys.length === 0) return [];
    const ids = keys.map((k) => k._id);
    const docs = await this.c.requests.find({ _id: { $in: ids }, token_id: tokenId }, { projection: NO_TEXT }).toArray();
    const byId = new Map(docs.map((d) => [d._id, d]));
    // A request deleted between the two reads is left out.
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Matches counted up to COUNT_BOUND + 1 only: more than the bound means "capped". */
  private boundedCount(filter: Filter<RequestDoc>): Promise<number> {
    return this.c.requests.countDocuments(filter, { limit: COUNT_BOUND + 1 });
  }

  /** All of the token's requests: its counter, exact and without counting (file comment). */
  private async tokenCount(tokenId: string): Promise<number> {
    const tok = await this.c.tokens.findOne({ _id: tokenId }, { projection: { request_count: 1 } });
    // No token document (deleted, its requests going in chunks): count what is left.
    if (!tok) return this.c.requests.countDocuments({ token_id: tokenId });
    return Math.max(0, tok.request_count);
  }

  async update(tokenId: string, uuid: string, patch: RequestPatch): Promise<RequestRecord | null> {
    const set = defined({
      note: patch.note,
      custom_action_output: patch.custom_action_output,
      custom_action_errors: patch.custom_action_errors,
      extra: patch.extra,
      updated_at: patch.updated_at,
    });
    if (Object.keys(set).length === 0) return this.get(tokenId, uuid);
    const d = await this.c.requests.findOneAndUpdate({ _id: uuid, token_id: tokenId }, { $set: set }, { returnDocument: 'after', projection: NO_TEXT });
    return d ? toRequest(d) : null;
  }

  async delete(tokenId: string, uuid: string): Promise<boolean> {
    const n = await this.deleteIds(tokenId, [uuid]);
    if (n > 0) await this.refreshLatest(tokenId);
    return n > 0;
  }

  async deleteMany(tokenId: string, filter: RequestFilter): Promise<number> {
    const { filter: f } = this.filter(tokenId, filter);
    let total = 0;
    let from: number | null = null;
    for (;;) {
      // Oldest first from where the last chunk ended (deleted requests no longer match, so only
      // non-matching ones at that one sorting value are read again).
      const where: Filter<RequestDoc> = from === null ? f : { $and: [f, { sorting: { $gte: from } }] };
      const chunk = await this.c.requests
        .find(where, { projection: { _id: 1, sorting: 1 } })
        .sort(OLDEST)
        .limit(DELETE_CHUNK)
        .toArray();
      if (chunk.length === 0) break;
      total += await this.deleteIds(
        tokenId,
        chunk.map((d) => d._id),
      );
      if (chunk.length < DELETE_CHUNK) break;
      from = chunk[chunk.length - 1]!.sorting;
    }
    if (total > 0) await this.refreshLatest(tokenId);
    return total;
  }

  async getFile(tokenId: string, requestUuid: string, fileId: string): Promise<Buffer | null> {
    const d = await this.c.files.findOne({ _id: fileDocId(requestUuid, fileId), token_id: tokenId });
    return d ? toBuffer(d.data) : null;
  }
}

/**
 * The requests past a walk's position (sorting, ins, _id) in its direction. The `sorting` range
 * gives the token_list index (token, sorting, ins, _id) its bounds, so a step scans from the
 * position on; the $or only sorts out the requests that share the position's `sorting`.
 */
function beyond(cursor: RequestCursor, newest: boolean): Filter<RequestDoc> {
  let at: unknown;
  try {
    at = JSON.parse(cursor);
  } catch {
    at = null;
  }
  const valid = Array.isArray(at) && at.length === 3 && Number.isFinite(at[0]) && typeof at[1] === 'string' && ObjectId.isValid(at[1]) && typeof at[2] === 'string';
  if (!valid) throw new Error(`Not a request cursor of this store: ${cursor}`);
  const [sorting, ins, id] = at as [number, string, string];
  const past = newest ? '$lt' : '$gt';
  const oid = new ObjectId(ins);
  return {
    sorting: { [newest ? '$lte' : '$gte']: sorting },
    $or: [{ sorting: { [past]: sorting } }, { ins: { [past]: oid } }, { ins: oid, _id: { [past]: id } }],
  } as Filter<RequestDoc>;
}
