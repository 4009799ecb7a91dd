// Tokens. Each token document also carries its request count and latest request, kept up to date
// by the request repository, so the token list and stats need no aggregation.
import { AliasTaken, type Millis, type Page, type TokenListOptions, type TokenPatch, type TokenRecord, type TokenRepo, type TokenWithStats } from '../types.js';
import { deleteInChunks } from './chunks.js';
import { trimRequests } from './requests.js';
import { defined, escapeRegex, isDuplicateKey, toToken, type Cols, type TokenDoc } from './docs.js';

/** Compares aliases ignoring case (index alias_any_case). */
export const ALIAS_ANY_CASE = { locale: 'en', strength: 2 } as const;

function withStats(d: TokenDoc): TokenWithStats {
  return {
    ...toToken(d),
    requests: d.request_count ?? 0,
    latest_request_id: d.latest_request_id ?? null,
    latest_request_at: d.latest_request_at ?? null,
  };
}

export class MongoTokenRepo implements TokenRepo {
  constructor(private readonly c: Cols) {}

  async create(t: TokenRecord): Promise<void> {
    const doc: TokenDoc = {
      ...t,
      _id: t.uuid,
      request_count: 0,
      latest_request_id: null,
      latest_request_at: null,
      latest_sorting: null,
    };
    try {
      await this.c.tokens.insertOne(doc);
    } catch (err) {
      if (isDuplicateKey(err) && t.alias != null && (err.keyPattern?.alias !== undefined || /alias/.test(err.message))) {
        throw new AliasTaken(t.alias);
      }
      throw err;
    }
  }

  async get(uuid: string): Promise<TokenRecord | null> {
    const d = await this.c.tokens.findOne({ _id: uuid });
    return d ? toToken(d) : null;
  }

  async resolve(idOrAlias: string): Promise<TokenRecord | null> {
    const byId = await this.c.tokens.findOne({ _id: idOrAlias });
    if (byId) return toToken(byId);
    // The $type clause matches the partial unique index's filter, so the index serves this lookup.
    const byAlias = await this.c.tokens.findOne({ alias: { $eq: idOrAlias, $type: 'string' } });
    return byAlias ? toToken(byAlias) : null;
  }

  async resolveIgnoringCase(idOrAlias: string): Promise<TokenRecord | null> {
    const byId = await this.c.tokens.findOne({ _id: idOrAlias.toLowerCase() });
    if (byId) return toToken(byId);
    const byAlias = await this.c.tokens.findOne({ alias: { $eq: idOrAlias, $type: 'string' } }, { collation: ALIAS_ANY_CASE });
    return byAlias ? toToken(byAlias) : null;
  }

  async update(uuid: string, patch: TokenPatch): Promise<TokenRecord | null> {
    const set: Record<string, unknown> = defined(patch);
    delete set.uuid;
    delete set.created_at;
    if (Object.keys(set).length === 0) return this.get(uuid);
    try {
      const d = await this.c.tokens.findOneAndUpdate({ _id: uuid }, { $set: set }, { returnDocument: 'after' });
      if (!d) return null;
      // A lower request_limit holds at once: the excess is claimed from the counter, then deleted
      // in one deleteMany bounded on the token's index (trimRequests).
      if (typeof patch.request_limit === 'number' && d.request_count > patch.request_limit) {
        await trimRequests(this.c, uuid, Math.floor(patch.request_limit));
        return this.get(uuid);
      }
      return toToken(d);
    } catch (err) {
      if (isDuplicateKey(err) && typeof patch.alias === 'string') throw new AliasTaken(patch.alias);
      throw err;
    }
  }

  async delete(uuid: string): Promise<boolean> {
    const res = await this.c.tokens.deleteOne({ _id: uuid });
    // In chunks: a token may hold up to MAX_REQUEST_LIMIT (1,000,000) requests.
    await deleteInChunks(this.c.requests, { token_id: uuid });
    await deleteInChunks(this.c.files, { token_id: uuid });
    await this.c.workflows.deleteOne({ _id: uuid });
    await this.c.shares.deleteOne({ _id: uuid });
    await this.c.replays.deleteMany({ token_id: uuid });
    return res.deletedCount > 0;
  }

  async ownedBy(userId: number): Promise<string[]> {
    const docs = await this.c.tokens
      .find({ user_id: userId }, { projection: { _id: 1 } })
      .sort({ created_at: 1, _id: 1 })
      .toArray();
    return docs.map((d) => d._id);
  }

  async list(teamId: number, opts: TokenListOptions): Promise<Page<TokenWithStats>> {
    const filter: Record<string, unknown> = { team_id: teamId };
    if (opts.search) {
      const text = { $regex: escapeRegex(opts.search), $options: 'i' };
      filter.$or = [{ _id: text }, { alias: text }];
    }
    if (opts.groupIds) filter.group_id = { $in: [...opts.groupIds] };
    const dir = opts.direction === 'asc' ? 1 : -1;
    const sort: Record<string, 1 | -1> = opts.orderBy === 'token_id' ? { _id: dir } : { created_at: dir, _id: dir };
    const perPage = Math.floor(opts.perPage);
    const page = Math.max(1, Math.floor(opts.page));
    const [docs, total] = await Promise.all([
      perPage > 0
        ? this.c.tokens
            .find(filter)
            .sort(sort)
            .skip((page - 1) * perPage)
            .limit(perPage)
            .toArray()
        : Promise.resolve([] as TokenDoc[]),
      this.c.tokens.countDocuments(filter),
    ]);
    return { items: docs.map(withStats), total };
  }

  async stats(uuid: string): Promise<{ requests: number; latest_request_id: string | null; latest_request_at: Millis | null }> {
    const d = await this.c.tokens.findOne({ _id: uuid }, { projection: { request_count: 1, latest_request_id: 1, latest_request_at: 1 } });
    return {
      requests: d?.request_count ?? 0,
      latest_request_id: d?.latest_request_id ?? null,
      latest_request_at: d?.latest_request_at ?? null,
    };
  }

  async expired(now: Millis, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    // $lte on a number never matches null or a missing field.
    const docs = await this.c.tokens
      .find({ expires_at: { $lte: now } }, { projection: { _id: 1 } })
      .sort({ expires_at: 1, _id: 1 })
      .limit(Math.floor(limit))
      .toArray();
    return docs.map((d) => d._id);
  }

  async inactive(before: Millis, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    // Under the inactivity rule: non-premium, or legacy `expiry: true` (a boolean, never the number 1).
    // Last activity is the latest request, or creation when there is none (null or missing).
    const docs = await this.c.tokens
      .find(
        {
          $and: [{ $or: [{ premium: false }, { expiry: true }] }, { $or: [{ latest_request_at: { $lt: before } }, { latest_request_at: null, created_at: { $lt: before } }] }],
        },
        { projection: { _id: 1 } },
      )
      .limit(Math.floor(limit))
      .toArray();
    return docs.map((d) => d._id);
  }

  async clearGroup(groupId: number): Promise<void> {
    await this.c.tokens.updateMany({ group_id: groupId }, { $set: { group_id: null } });
  }
}
