import type { Database } from 'better-sqlite3';
import { inThreadTokenRequests, type TokenRequests } from '../requests/index.js';
import { TOKEN_BOOLEAN_COLUMNS, TOKEN_COLUMNS, type TokenColumn } from '../token-columns.js';
import { AliasTaken, type TokenListOptions, type TokenPatch, type TokenRecord, type TokenRepo, type TokenWithStats } from '../../types.js';

type Row = Record<string, unknown>;

function toRow(t: Partial<TokenRecord>): Row {
  const row: Row = { ...t };
  for (const b of TOKEN_BOOLEAN_COLUMNS) if (b in t) row[b] = t[b] ? 1 : 0;
  // expiry is an integer, a boolean (legacy) or null: kept as JSON text to round-trip all three.
  if ('expiry' in t) row.expiry = t.expiry === null || t.expiry === undefined ? null : JSON.stringify(t.expiry);
  // Redaction settings (rules) as JSON text; absent on records built before them.
  row.redaction = t.redaction ? JSON.stringify(t.redaction) : null;
  return row;
}

/** Each record column's place in a raw row (TOKEN_COLUMNS order). */
const AT = Object.fromEntries(TOKEN_COLUMNS.map((column, i) => [column, i])) as Record<TokenColumn, number>;

/**
 * The record from a raw row of TOKEN_COLUMNS (each value found by its column's place, AT): no object
 * per row built by the driver, and a token is read on every capture that misses the token cache.
 * Written out as one object literal, so every token has the same fast shape (built by keyed stores and a
 * `delete`, it was a dictionary, and the capture path reads a token's fields on every capture).
 */
export function fromTokenValues(values: unknown[]): TokenRecord {
  const t: TokenRecord = {
    uuid: values[AT.uuid] as string,
    user_id: values[AT.user_id] as number | null,
    alias: values[AT.alias] as string | null,
    redirect: !!values[AT.redirect],
    actions: !!values[AT.actions],
    cors: !!values[AT.cors],
    // expiry is an integer, a boolean (legacy) or null, kept as JSON text (toRow).
    expiry: values[AT.expiry] === null ? null : JSON.parse(String(values[AT.expiry])),
    timeout: values[AT.timeout] as number,
    listen: values[AT.listen] as number,
    premium: !!values[AT.premium],
    premium_expires_at: values[AT.premium_expires_at] as number | null,
    ip: values[AT.ip] as string,
    user_agent: values[AT.user_agent] as string,
    default_content: values[AT.default_content] as string,
    default_status: values[AT.default_status] as number,
    default_content_type: values[AT.default_content_type] as string,
    request_limit: values[AT.request_limit] as number,
    description: values[AT.description] as string | null,
    group_id: values[AT.group_id] as number | null,
    password_hash: values[AT.password_hash] as string | null,
    created_at: values[AT.created_at] as number,
    updated_at: values[AT.updated_at] as number,
    expires_at: values[AT.expires_at] as number | null,
    team_id: values[AT.team_id] as number | null,
  };
  // Absent rather than null without rules, like records built before them.
  if (values[AT.redaction] != null) t.redaction = JSON.parse(String(values[AT.redaction]));
  return t;
}

function withStats(r: Row): TokenWithStats {
  return {
    ...fromTokenValues(TOKEN_COLUMNS.map((c) => r[c])),
    requests: Number(r.request_count),
    latest_request_id: (r.latest_request_id as string | null) ?? null,
    latest_request_at: (r.latest_request_at as number | null) ?? null,
  };
}

function isUniqueViolation(e: unknown): boolean {
  return e instanceof Error && 'code' in e && String((e as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT_UNIQUE');
}

/**
 * `requests` is the request engine (requests/engine.ts): its `sync` catches up the captures stored
 * so far, which keeps the counters and latest request read here; it deletes a token's requests in
 * chunks; it is told when a token's request_limit changed (raised above SEARCH_INDEX_ABOVE, the
 * token is listed for the search index by trigger tokens_search_raised, which the engine fills).
 */
export function sqliteTokens(db: Database, requests: TokenRequests = inThreadTokenRequests(db)): TokenRepo {
  const insert = db.prepare(`INSERT INTO tokens (${TOKEN_COLUMNS.join(', ')}) VALUES (${TOKEN_COLUMNS.map((c) => '@' + c).join(', ')})`);
  // A record's columns, read as values (fromTokenValues).
  const record = (where: string) => db.prepare<[string], unknown[]>(`SELECT ${TOKEN_COLUMNS.join(', ')} FROM tokens WHERE ${where}`).raw(true);
  const byId = record('uuid = ?');
  const byAlias = record('alias = ?');
  // Served by tokens_alias_nocase (migration 15).
  const byAliasNoCase = record('alias = ? COLLATE NOCASE ORDER BY alias LIMIT 1');
  const statsOf = db.prepare<[string], Row>('SELECT request_count, latest_request_id, latest_request_at FROM tokens WHERE uuid = ?');
  const del = db.prepare('DELETE FROM tokens WHERE uuid = ?');
  // Requests do not cascade from tokens: the engine deletes those left with the token.
  const deleteToken = db.transaction((uuid: string) => {
    requests.deleteTokenLeftovers(uuid);
    return del.run(uuid).changes > 0;
  });
  const owned = db.prepare<[number], { uuid: string }>('SELECT uuid FROM tokens WHERE user_id = ? ORDER BY created_at, rowid');
  const expired = db.prepare<[number, number], { uuid: string }>('SELECT uuid FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?');
  // Served by tokens_team (migration 17); a search or a group limit narrows the team's rows.
  const listWhere = (teamId: number, opts: TokenListOptions): { where: string; args: unknown[] } => {
    const parts = ['team_id = ?'];
    const args: unknown[] = [teamId];
    if (opts.search) {
      // LIKE ignores ASCII case; the search text's own % and _ are matched literally.
      const like = '%' + opts.search.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
      parts.push("(uuid LIKE ? ESCAPE '\\' OR alias LIKE ? ESCAPE '\\')");
      args.push(like, like);
    }
    if (opts.groupIds) {
      parts.push(opts.groupIds.length ? `group_id IN (${opts.groupIds.map(() => '?').join(', ')})` : '0');
      args.push(...opts.groupIds);
    }
    return { where: parts.join(' AND '), args };
  };
  const ORDER = {
    created_at: { asc: 'created_at ASC, rowid ASC', desc: 'created_at DESC, rowid DESC' },
    token_id: { asc: 'uuid ASC', desc: 'uuid DESC' },
  } as const;
  const inactive = db.prepare<[number, number], { uuid: string }>(`SELECT uuid FROM tokens WHERE (premium = 0 OR expiry = 'true') AND COALESCE(latest_request_at, created_at) < ? LIMIT ?`);
  const clearGroup = db.prepare('UPDATE tokens SET group_id = NULL WHERE group_id = ?');
  const updates = new Map<string, ReturnType<Database['prepare']>>();

  return {
    async create(t) {
      try {
        // Records built before teams (fixtures, old callers) may lack team_id: the owner's team then.
        insert.run({ ...toRow(t), team_id: t.team_id ?? t.user_id ?? null });
      } catch (e) {
        if (isUniqueViolation(e) && t.alias) throw new AliasTaken(t.alias);
        throw e;
      }
    },
    async get(uuid) {
      const r = byId.get(uuid);
      return r ? fromTokenValues(r) : null;
    },
    async resolve(idOrAlias) {
      const r = byId.get(idOrAlias) ?? byAlias.get(idOrAlias);
      return r ? fromTokenValues(r) : null;
    },
    async resolveIgnoringCase(idOrAlias) {
      const r = byId.get(idOrAlias.toLowerCase()) ?? byAliasNoCase.get(idOrAlias);
      return r ? fromTokenValues(r) : null;
    },
    async update(uuid, patch: TokenPatch) {
      const keys = Object.keys(patch).filter((k) => (TOKEN_COLUMNS as readonly string[]).includes(k) && k !== 'uuid' && k !== 'created_at');
      if (keys.length) {
        // One prepared statement per distinct set of columns; the set of columns is small and fixed.
        const sig = keys.sort().join(',');
        let stmt = updates.get(sig);
        if (!stmt) {
          stmt = db.prepare(`UPDATE tokens SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE uuid = @uuid`);
          updates.set(sig, stmt);
        }
        try {
          stmt.run({ ...toRow(patch), uuid });
        } catch (e) {
          if (isUniqueViolation(e) && patch.alias) throw new AliasTaken(patch.alias);
          throw e;
        }
        if (keys.includes('request_limit')) {
          requests.searchIndexChanged();
          if (typeof patch.request_limit === 'number') requests.trimTo(uuid, patch.request_limit);
        }
      }
      const r = byId.get(uuid);
      return r ? fromTokenValues(r) : null;
    },
    async delete(uuid) {
      // Its requests go with it (their files cascade from them); a capture stored after this has
      // its token checked by the writer, and one caught up without its token is dropped there.
      await requests.sync(uuid);
      // Its requests first, in short chunks that let captures in between (a token may hold a
      // million); then the few left (captures meanwhile) with the token, in one transaction.
      await requests.deleteTokenRequests(uuid);
      return deleteToken.immediate(uuid);
    },
    async list(teamId, opts) {
      await requests.sync();
      const { where, args } = listWhere(teamId, opts);
      const rows = db.prepare<unknown[], Row>(`SELECT * FROM tokens WHERE ${where} ORDER BY ${ORDER[opts.orderBy][opts.direction]} LIMIT ? OFFSET ?`).all(...args, opts.perPage, (opts.page - 1) * opts.perPage);
      const total = db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM tokens WHERE ${where}`).get(...args)!.n;
      return { items: rows.map(withStats), total };
    },
    async ownedBy(userId) {
      return owned.all(userId).map((r) => r.uuid);
    },
    async stats(uuid) {
      await requests.sync(uuid);
      const r = statsOf.get(uuid);
      if (!r) return { requests: 0, latest_request_id: null, latest_request_at: null };
      return { requests: Number(r.request_count), latest_request_id: (r.latest_request_id as string | null) ?? null, latest_request_at: (r.latest_request_at as number | null) ?? null };
    },
    async expired(now, limit) {
      return expired.all(now, limit).map((r) => r.uuid);
    },
    async inactive(before, limit) {
      await requests.sync();
      return inactive.all(before, limit).map((r) => r.uuid);
    },
    async clearGroup(groupId) {
      clearGroup.run(groupId);
    },
  };
}
