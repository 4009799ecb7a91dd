// The changes that can take a live stream's access away, done to a test server as the service does
// them. User deletion and owner changes have no API route yet: the helpers do what such a route
// must (remove the rows, then publish user.access_changed; update the token through the token
// service's update hooks, which publish token.updated).
import type { Database } from 'better-sqlite3';
import type { TestServer } from './server.js';
import { BUS } from '../../core/service-keys.js';

/** Revokes one API key of a user through the API (DELETE /users/:id/api-keys/:key). */
export async function revokeKey(server: TestServer, user: { id: number; key: string }): Promise<void> {
  const list = await server.call('GET', `/users/${user.id}/api-keys`, { key: user.key });
  const record = (list.data.data as Array<{ id: number; prefix: string }>).find((k) => user.key.startsWith(k.prefix));
  if (!record) throw new Error('key not listed');
  const r = await server.call('DELETE', `/users/${user.id}/api-keys/${record.id}`, { key: user.key });
  if (r.status !== 204) throw new Error(`revoke: ${r.status} ${r.text}`);
}

/** Issues another API key for a user. */
export async function newKey(server: TestServer, user: { id: number; key: string }): Promise<string> {
  const r = await server.call('POST', `/users/${user.id}/api-keys`, { key: user.key });
  if (r.status !== 201) throw new Error(`new key: ${r.status} ${r.text}`);
  return r.data.api_key as string;
}

/** Deletes a user and their keys from the SQLite store, then announces it as a deletion must. */
export function deleteUser(server: TestServer, userId: number): void {
  const db = (server.services.store as unknown as { db: Database }).db;
  db.prepare('DELETE FROM api_keys WHERE user_id = ?').run(userId);
  db.prepare('DELETE FROM users WHERE id = ?').run(userId);
  server.provided.get(BUS)!.publishAccess({ type: 'user.access_changed', userId });
}

/** Gives a token another owner, committed like any token change (update hooks publish token.updated). */
export async function changeOwner(server: TestServer, tokenId: string, userId: number | null): Promise<void> {
  // A token belongs to its owner's team: a new owner brings the token into theirs.
  const owner = userId === null ? null : await server.services.store.users.get(userId);
  const updated = await server.services.store.tokens.update(tokenId, { user_id: userId, team_id: owner?.team_id ?? null, updated_at: Date.now() });
  if (!updated) throw new Error('no such token');
  for (const hook of server.services.tokens.updateHooks) hook(updated);
}
