import type { Database } from 'better-sqlite3';
import type { ApiKeyRecord, UserPatch, UserRecord, UserRepo, UserTypeId } from '../../types.js';

interface UserRow {
  id: number;
  name: string;
  email: string;
  premium: number;
  team_id: number | null;
  user_type_id: number;
  role_id: number | null;
  group_ids: string | null;
  invite_hash: string | null;
  invite_expires_at: number | null;
  created_at: number;
  updated_at: number;
}
const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  name: r.name,
  email: r.email,
  premium: !!r.premium,
  team_id: r.team_id ?? r.id,
  user_type_id: r.user_type_id as UserTypeId,
  role_id: r.role_id,
  group_ids: r.group_ids === null ? null : (JSON.parse(r.group_ids) as number[]),
  invite_hash: r.invite_hash,
  invite_expires_at: r.invite_expires_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const PATCHABLE = ['name', 'email', 'user_type_id', 'role_id', 'group_ids', 'invite_hash', 'invite_expires_at', 'updated_at'] as const;

export function sqliteUsers(db: Database): UserRepo {
  const insert = db.prepare(
    `INSERT INTO users (name, email, premium, team_id, user_type_id, role_id, group_ids, invite_hash, invite_expires_at, created_at, updated_at)
     VALUES (@name, @email, @premium, @team_id, @user_type_id, @role_id, @group_ids, @invite_hash, @invite_expires_at, @created_at, @updated_at)`,
  );
  // A user without a team starts their own, named by their ID.
  const ownTeam = db.prepare('UPDATE users SET team_id = id WHERE id = ?');
  const byId = db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?');
  const all = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY id');
  const pageAll = db.prepare<[number, number], UserRow>('SELECT * FROM users ORDER BY id LIMIT ? OFFSET ?');
  const countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users');
  const pageTeam = db.prepare<[number, number, number], UserRow>('SELECT * FROM users WHERE team_id = ? ORDER BY id LIMIT ? OFFSET ?');
  const countTeam = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM users WHERE team_id = ?');
  const byEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ? COLLATE NOCASE ORDER BY id');
  const del = db.prepare('DELETE FROM users WHERE id = ?');
  const delKeys = db.prepare('DELETE FROM api_keys WHERE user_id = ?');
  const useInvite = db.prepare<[number, string, number], UserRow>('UPDATE users SET invite_hash = NULL, invite_expires_at = NULL, updated_at = ? WHERE invite_hash = ? AND invite_expires_at > ? RETURNING *');
  const byInvite = db.prepare<[string], UserRow>('SELECT * FROM users WHERE invite_hash = ?');
  const addKey = db.prepare('INSERT INTO api_keys (user_id, hash, prefix, created_at) VALUES (?, ?, ?, ?)');
  const keys = db.prepare<[number], ApiKeyRecord>('SELECT * FROM api_keys WHERE user_id = ? ORDER BY id');
  const delKey = db.prepare('DELETE FROM api_keys WHERE user_id = ? AND id = ?');
  const byKey = db.prepare<[string], UserRow>('SELECT u.* FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.hash = ?');
  const updates = new Map<string, ReturnType<Database['prepare']>>();

  const create = db.transaction((row: Record<string, unknown>): number => {
    const id = Number(insert.run(row).lastInsertRowid);
    if (row.team_id === null) ownTeam.run(id);
    return id;
  });
  const remove = db.transaction((id: number) => {
    delKeys.run(id);
    return del.run(id).changes > 0;
  });

  return {
    async create(u) {
      const id = create({
        name: u.name,
        email: u.email,
        premium: u.premium ? 1 : 0,
        team_id: u.team_id ?? null,
        user_type_id: u.user_type_id ?? 100,
        role_id: u.role_id ?? null,
        group_ids: u.group_ids ? JSON.stringify(u.group_ids) : null,
        invite_hash: u.invite_hash ?? null,
        invite_expires_at: u.invite_expires_at ?? null,
        created_at: u.created_at,
        updated_at: u.updated_at,
      });
      return toUser(byId.get(id)!);
    },
    async get(id) {
      const r = byId.get(id);
      return r ? toUser(r) : null;
    },
    async list() {
      return all.all().map(toUser);
    },
    async page(teamId, page, perPage) {
      const offset = (page - 1) * perPage;
      if (teamId === null) return { items: pageAll.all(perPage, offset).map(toUser), total: countAll.get()!.n };
      return { items: pageTeam.all(teamId, perPage, offset).map(toUser), total: countTeam.get(teamId)!.n };
    },
    async findByEmail(email) {
      return byEmail.all(email).map(toUser);
    },
    async update(id, patch: UserPatch) {
      const keys = PATCHABLE.filter((k) => patch[k] !== undefined);
      if (keys.length) {
        // One prepared statement per distinct set of columns (a small, fixed set).
        const sig = keys.join(',');
        let stmt = updates.get(sig);
        if (!stmt) {
          stmt = db.prepare(`UPDATE users SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`);
          updates.set(sig, stmt);
        }
        stmt.run({ ...Object.fromEntries(keys.map((k) => [k, k === 'group_ids' ? (patch.group_ids ? JSON.stringify(patch.group_ids) : null) : patch[k]])), id });
      }
      const r = byId.get(id);
      return r ? toUser(r) : null;
    },
    async delete(id) {
      return remove(id);
    },
    async useInvite(hash, now) {
      const r = useInvite.get(now, hash, now);
      return r ? toUser(r) : null;
    },
    async findByInvite(hash) {
      const r = byInvite.get(hash);
      return r ? toUser(r) : null;
    },
    async addApiKey(userId, hash, prefix, now) {
      const info = addKey.run(userId, hash, prefix, now);
      return { id: Number(info.lastInsertRowid), user_id: userId, hash, prefix, created_at: now };
    },
    async listApiKeys(userId) {
      return keys.all(userId);
    },
    async deleteApiKey(userId, keyId) {
      return delKey.run(userId, keyId).changes > 0;
    },
    async findByApiKeyHash(hash) {
      const r = byKey.get(hash);
      return r ? toUser(r) : null;
    },
  };
}
