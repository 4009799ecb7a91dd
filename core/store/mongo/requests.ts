// Captured requests and their files.
//
// Writes are not wrapped in a multi-document transaction (those need a replica set, and the hosted
// CI runs a standalone mongod): files are written before the request that refers to them, so a
// reader never sees a request whose files are missing. Each file is one document, so a file
// larger than MAX_FILE_BYTES (15 MiB) is refused with an error, and a request document (body plus
// search text) must stay under MongoDB's 16 MiB document limit.
import { ObjectId, type Filter } from 'mongodb';
import { compileMongo } from '../query/index.js';
import type { Page, RequestFilter, RequestListOptions, RequestPatch, RequestRecord, RequestRepo } from '../types.js';
import {
  MAX_FILE_BYTES,
  defined,
  toBinary,
  toBuffer,
  toRequest,
  toRequestDoc,
  type Cols,
  type FileDoc,
  type RequestDoc,
} from './docs.js';

const DELETE_BATCH = 1000;
/** Newest first: by capture key, then by insertion. */
const NEWEST = { sorting: -1, ins: -1 } as const;
const OLDEST = { sorting: 1, ins: 1 } as const;
/** The search text is never returned. */
const NO_TEXT = { content_text: 0 } as const;

export function fileDocId(requestUuid: string, fileId: string): string {
  return `${requestUuid}:${fileId}`;
}

export class MongoRequestRepo implements RequestRepo {
  constructor(private readonly c: Cols) {}

  private filter(tokenId: string, f: RequestFilter): Filter<RequestDoc> {
    const parts: Record<string, unknown>[] = [{ token_id: tokenId }];
    const created: Record<string, number> = {};
    if (f.dateFrom != null) created.$gte = f.dateFrom;
    if (f.dateTo != null) created.$lte = f.dateTo;
    if (Object.keys(created).length > 0) parts.push({ created_at: created });
    if (f.query) {
      const q = compileMongo(f.query, f.now ?? Date.now());
      if (Object.keys(q).length > 0) parts.push(q);
    }
    return (parts.length === 1 ? parts[0] : { $and: parts }) as Filter<RequestDoc>;
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

    const tok = await this.c.tokens.findOneAndUpdate(
      { _id: r.token_id },
      { $inc: { request_count: 1 } },
      { returnDocument: 'after', projection: { request_count: 1 } },
    );
    await this.c.tokens.updateOne(
      { _id: r.token_id, $or: [{ latest_sorting: null }, { latest_sorting: { $lte: r.sorting } }] },
      { $set: { latest_request_id: r.uuid, latest_request_at: r.created_at, latest_sorting: r.sorting } },
    );

    const count = tok ? tok.request_count : await this.c.requests.countDocuments({ token_id: r.token_id });
    if (count > limit) await this.trim(r.token_id, Math.floor(limit));
  }

  /** Keeps the newest `limit` requests of the token. Idempotent, so concurrent trims agree. */
  private async trim(tokenId: string, limit: number): Promise<void> {
    const old = await this.c.requests
      .find({ token_id: tokenId }, { projection: { _id: 1 } })
      .sort(NEWEST)
      .skip(limit)
      .toArray();
    if (old.length > 0) await this.deleteIds(tokenId, old.map((d) => d._id));
  }

  /** Deletes the given requests of the token with their files; adjusts the token's count. */
  private async deleteIds(tokenId: string, ids: string[]): Promise<number> {
    const res = await this.c.requests.deleteMany({ _id: { $in: ids }, token_id: tokenId });
    await this.c.files.deleteMany({ request_uuid: { $in: ids }, token_id: tokenId });
    if (res.deletedCount > 0) {
      await this.c.tokens.updateOne({ _id: tokenId }, { $inc: { request_count: -res.deletedCount } });
    }
    return res.deletedCount;
  }

  /** After deletions: if the token's latest request is gone, point it at the newest remaining one. */
  private async refreshLatest(tokenId: string): Promise<void> {
    const tok = await this.c.tokens.findOne({ _id: tokenId }, { projection: { latest_request_id: 1 } });
    const stale = tok?.latest_request_id;
    if (!stale) return;
    if (await this.c.requests.findOne({ _id: stale }, { projection: { _id: 1 } })) return;
    const newest = await this.c.requests.findOne(
      { token_id: tokenId },
      { sort: NEWEST, projection: { _id: 1, created_at: 1, sorting: 1 } },
    );
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

  async list(tokenId: string, opts: RequestListOptions): Promise<Page<RequestRecord>> {
    const filter = this.filter(tokenId, opts);
    const perPage = Math.floor(opts.perPage);
    const page = Math.max(1, Math.floor(opts.page));
    const [docs, total] = await Promise.all([
      perPage > 0
        ? this.c.requests
            .find(filter, { projection: NO_TEXT })
            .sort(opts.sorting === 'oldest' ? OLDEST : NEWEST)
            .skip((page - 1) * perPage)
            .limit(perPage)
            .toArray()
        : Promise.resolve([] as RequestDoc[]),
      this.c.requests.countDocuments(filter),
    ]);
    return { items: docs.map(toRequest), total };
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
    const d = await this.c.requests.findOneAndUpdate(
      { _id: uuid, token_id: tokenId },
      { $set: set },
      { returnDocument: 'after', projection: NO_TEXT },
    );
    return d ? toRequest(d) : null;
  }

  async delete(tokenId: string, uuid: string): Promise<boolean> {
    const n = await this.deleteIds(tokenId, [uuid]);
    if (n > 0) await this.refreshLatest(tokenId);
    return n > 0;
  }

  async deleteMany(tokenId: string, filter: RequestFilter): Promise<number> {
    const f = this.filter(tokenId, filter);
    let total = 0;
    for (;;) {
      const batch = await this.c.requests.find(f, { projection: { _id: 1 } }).limit(DELETE_BATCH).toArray();
      if (batch.length === 0) break;
      total += await this.deleteIds(tokenId, batch.map((d) => d._id));
      if (batch.length < DELETE_BATCH) break;
    }
    if (total > 0) await this.refreshLatest(tokenId);
    return total;
  }

  async getFile(tokenId: string, requestUuid: string, fileId: string): Promise<Buffer | null> {
    const d = await this.c.files.findOne({ _id: fileDocId(requestUuid, fileId), token_id: tokenId });
    return d ? toBuffer(d.data) : null;
  }
}
