// Migration 17 on a database from before teams: every user becomes the one-person team of their own
// ID as its Administrator, every token joins its owner's team, anonymous tokens stay without one.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, migrations } from './migrations.js';
import { sqliteTokens } from './repos/tokens.js';
import { sqliteUsers } from './repos/users.js';

function beforeTeams(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version >= 17) continue;
    db.exec(m.up);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)').run(m.version);
  }
  return db;
}

const TOKEN_SQL = `INSERT INTO tokens (uuid, user_id, redirect, actions, cors, timeout, listen, premium, ip, user_agent,
  default_content, default_status, default_content_type, request_limit, created_at, updated_at)
  VALUES (?, ?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 100, ?, ?)`;

describe('upgrade to teams (SQLite migration 17)', () => {
  it('makes each existing user a one-person team and each token part of its owner’s team', async () => {
    const db = beforeTeams();
    const addUser = db.prepare('INSERT INTO users (name, email, premium, created_at, updated_at) VALUES (?, ?, 0, 1, 1)');
    const a = Number(addUser.run('A', 'a@example.test').lastInsertRowid);
    const b = Number(addUser.run('B', 'b@example.test').lastInsertRowid);
    db.prepare('INSERT INTO api_keys (user_id, hash, prefix, created_at) VALUES (?, ?, ?, 1)').run(b, 'hash-b', 'whk_');
    const addToken = db.prepare(TOKEN_SQL);
    addToken.run('00000000-0000-4000-8000-00000000000a', a, 1, 1);
    addToken.run('00000000-0000-4000-8000-00000000000b', b, 2, 2);
    addToken.run('00000000-0000-4000-8000-00000000000c', null, 3, 3);

    migrate(db);
    const users = sqliteUsers(db);
    const tokens = sqliteTokens(db);
    expect(await users.get(a)).toMatchObject({ team_id: a, user_type_id: 100, role_id: null, invite_hash: null });
    expect(await users.findByApiKeyHash('hash-b')).toMatchObject({ id: b, team_id: b, user_type_id: 100 });
    expect((await users.page(b, 1, 10)).items.map((u) => u.id)).toEqual([b]);
    expect((await tokens.get('00000000-0000-4000-8000-00000000000a'))?.team_id).toBe(a);
    expect((await tokens.get('00000000-0000-4000-8000-00000000000c'))?.team_id).toBeNull();
    const list = await tokens.list(b, { page: 1, perPage: 10, orderBy: 'created_at', direction: 'asc' });
    expect(list.items.map((t) => t.uuid)).toEqual(['00000000-0000-4000-8000-00000000000b']);
    // A user added afterwards starts their own team too, with an ID no earlier team has.
    const c = await users.create({ name: 'C', email: 'c@example.test', premium: false, created_at: 2, updated_at: 2 });
    expect(c.team_id).toBe(c.id);
    expect([a, b]).not.toContain(c.team_id);
    db.close();
  });
});
