// Contract cases for teams, user types and invites (UserRepo, TokenRepo.list by team), run by
// store.contract.ts against every adapter.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Store, TokenRecord } from './types.js';

export function runTeamsContract(store: () => Store, sampleToken: (over?: Partial<TokenRecord>) => TokenRecord): void {
  const email = () => `${randomUUID()}@example.test`;

  it('a user created alone starts a team of their own as its Administrator; invitees join a given team', async () => {
    const s = store();
    const founder = await s.users.create({ name: 'F', email: email(), premium: false, created_at: 1, updated_at: 1 });
    expect(founder).toMatchObject({ team_id: founder.id, user_type_id: 100, role_id: null, invite_hash: null });
    const viewer = await s.users.create({
      name: 'V',
      email: email(),
      premium: false,
      team_id: founder.team_id,
      user_type_id: 300,
      role_id: 20001,
      invite_hash: 'h-' + randomUUID(),
      invite_expires_at: 1000,
      created_at: 2,
      updated_at: 2,
    });
    expect(await s.users.get(viewer.id)).toEqual(viewer);
    expect(viewer).toMatchObject({ team_id: founder.id, user_type_id: 300, role_id: 20001 });
    const page = await s.users.page(founder.team_id, 1, 1);
    expect(page).toMatchObject({ total: 2, items: [{ id: founder.id }] });
    expect((await s.users.page(founder.team_id, 2, 1)).items.map((u) => u.id)).toEqual([viewer.id]);
    expect((await s.users.page(null, 1, 100)).total).toBeGreaterThanOrEqual(2);
  });

  it('keeps the groups a user is limited to, and clears the limit', async () => {
    const s = store();
    const u = await s.users.create({ name: 'L', email: email(), premium: false, group_ids: [3, 9], created_at: 1, updated_at: 1 });
    expect((await s.users.get(u.id))!.group_ids).toEqual([3, 9]);
    expect((await s.users.update(u.id, { group_ids: [4] }))!.group_ids).toEqual([4]);
    expect((await s.users.update(u.id, { group_ids: null }))!.group_ids).toBeNull();
    expect((await s.users.create({ name: 'N', email: email(), premium: false, created_at: 1, updated_at: 1 })).group_ids).toBeNull();
  });

  it('finds users by e-mail ignoring case, updates and deletes them with their keys', async () => {
    const s = store();
    const addr = `Mixed.${randomUUID()}@Example.test`;
    const u = await s.users.create({ name: 'U', email: addr, premium: false, created_at: 1, updated_at: 1 });
    expect((await s.users.findByEmail(addr.toLowerCase())).map((x) => x.id)).toEqual([u.id]);
    expect(await s.users.findByEmail('.*@example.test')).toEqual([]);
    const k = await s.users.addApiKey(u.id, 'hash-' + randomUUID(), 'whk_', 1);
    expect(await s.users.update(u.id, { name: 'Renamed', user_type_id: 200, role_id: null, updated_at: 5 })).toMatchObject({ name: 'Renamed', user_type_id: 200, email: addr, updated_at: 5 });
    expect(await s.users.update(u.id + 100_000, { name: 'x' })).toBeNull();
    expect(await s.users.delete(u.id)).toBe(true);
    expect(await s.users.get(u.id)).toBeNull();
    expect(await s.users.findByApiKeyHash(k.hash)).toBeNull();
    expect(await s.users.delete(u.id)).toBe(false);
  });

  it('an invite is used once, and not after it expires', async () => {
    const s = store();
    const hash = 'invite-' + randomUUID();
    const u = await s.users.create({ name: 'I', email: email(), premium: false, invite_hash: hash, invite_expires_at: 5000, created_at: 1, updated_at: 1 });
    expect((await s.users.findByInvite(hash))?.id).toBe(u.id);
    expect(await s.users.useInvite(hash, 5000)).toBeNull();
    const both = await Promise.all([s.users.useInvite(hash, 4000), s.users.useInvite(hash, 4000)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(both.find(Boolean)).toMatchObject({ id: u.id, invite_hash: null, invite_expires_at: null });
    expect(await s.users.useInvite(hash, 4000)).toBeNull();
    expect(await s.users.findByInvite(hash)).toBeNull();
  });

  it("lists a team's tokens (every member's) and the tokens a user owns", async () => {
    const s = store();
    const team = 5_000_000 + Math.floor(Math.random() * 1e6);
    const a = sampleToken({ user_id: team, team_id: team, created_at: 1 });
    const b = sampleToken({ user_id: team + 1, team_id: team, created_at: 2 });
    const other = sampleToken({ user_id: team + 2, team_id: team + 2, created_at: 3 });
    for (const t of [a, b, other]) await s.tokens.create(t);
    const list = await s.tokens.list(team, { page: 1, perPage: 10, orderBy: 'created_at', direction: 'asc' });
    expect(list.items.map((t) => t.uuid)).toEqual([a.uuid, b.uuid]);
    expect(list.items[1]).toMatchObject({ user_id: team + 1, team_id: team });
    expect(await s.tokens.ownedBy(team + 1)).toEqual([b.uuid]);
    expect((await s.tokens.update(b.uuid, { user_id: team }))?.team_id).toBe(team);
    expect(await s.tokens.ownedBy(team)).toEqual([a.uuid, b.uuid]);
  });
}
