// The bulk copy's part of the storage contract (TransferRepo), run by runStoreContract against
// every adapter: each kind read back page by page equals what was stored, a copy into a second
// store reads back the same, writing it twice changes nothing, ids made after a copy do not collide.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSFER_ORDER } from './migrate.js';
import type { Store, TransferKind, TransferRecords } from './types.js';

type Sample = { sampleToken: () => import('./types.js').TokenRecord; sampleRequest: (t: string, over?: object) => import('./types.js').RequestRecord };

/** Every record of a kind, read in pages of `limit`. */
async function readAll<K extends TransferKind>(store: Store, kind: K, limit: number, now: number): Promise<Array<TransferRecords[K]>> {
  const all: Array<TransferRecords[K]> = [];
  for (let cursor: string | null = null; ;) {
    const page: { items: Array<TransferRecords[K]>; cursor: string | null } = await store.transfer.read(kind, cursor, limit, now);
    all.push(...page.items);
    if (page.items.length < limit) return all;
    cursor = page.cursor;
  }
}

/** One or more records of every kind, through the repositories. */
async function fill(store: Store, { sampleToken, sampleRequest }: Sample): Promise<string[]> {
  const u = await store.users.create({ name: 'Copy', email: 'copy@example.test', premium: true, created_at: 1, updated_at: 2 });
  await store.users.addApiKey(u.id, 'hash-' + randomUUID(), 'whk_copy', 3);
  const g = await store.groups.create({ user_id: u.id, name: 'G', created_at: 4, updated_at: 5 });
  const tokens = [sampleToken(), sampleToken()];
  tokens[0] = { ...tokens[0]!, user_id: u.id, alias: 'copy-' + randomUUID().slice(0, 8), group_id: g.id, expiry: true, premium: true };
  for (const t of tokens) await store.tokens.create(t);
  await store.workflows.putForToken(tokens[0]!.uuid, { kind: 'TokenActions', spec: { steps: [{ type: 'log', 'a.b': '$x' }] } }, 6);
  const sorting = 1_800_000_000_000_000;
  for (let i = 0; i < 7; i++) {
    const r = sampleRequest(tokens[i % 2]!.uuid, { sorting: sorting + Math.floor(i / 3), note: i === 1 ? 'n' : null, extra: i === 2 ? { response: { status: 201 } } : {} });
    const files =
      i === 3
        ? new Map([
            ['f1', Buffer.from([0, 1, 255])],
            ['f2', Buffer.from('two')],
          ])
        : undefined;
    if (files)
      r.files = [
        { id: 'f1', name: 'a', filename: 'a.bin', size: 3, content_type: 'application/octet-stream' },
        { id: 'f2', name: 'b', filename: 'b.txt', size: 3, content_type: 'text/plain' },
      ];
    await store.requests.insert(r, 10_000, files);
  }
  const s = await store.schedules.create({ user_id: u.id, group_id: 77, document: { kind: 'Schedule', metadata: { name: 's' } }, source: null, last_run_at: 7, last_status: 200, created_at: 8, updated_at: 9 });
  await store.schedules.addLog(
    {
      schedule_id: s.id,
      response_status: 200,
      response_headers: { 'x.y': ['1'] },
      response_body: 'ok',
      time: 0.5,
      error: null,
      tls_expires_at: 99_000,
      tls_days_left: 3,
      tls_alert: 'expiring',
      created_at: 10,
      updated_at: 10,
    },
    10,
  );
  await store.schedules.putNotificationSettings({ user_id: u.id, email: null, email_enabled: true, webhook_url: 'http://x.test/', updated_at: 11 });
  await store.globals.set(`user:${u.id}`, 'greeting', 'hello', 12);
  await store.providers.create({ id: randomUUID(), user_id: u.id, type: 'vault', name: 'P', settings: { region: 'eu' }, secret: 'sealed:abc', created_at: 13, updated_at: 13 });
  await store.templates.create({ user_id: u.id, name: 'T', variables: [{ name: 'v', value: '1' }], actions: [{ id: randomUUID(), type: 'log' }], created_at: 14, updated_at: 14 });
  await store.databases.create({ id: randomUUID(), user_id: u.id, name: 'db', created_at: 15, updated_at: 15 });
  await store.queueProfiles.create({ id: randomUUID(), user_id: u.id, name: 'qp', initial_delay: 1, rate_limit: 10, rate_period: 60, job_lifetime: 600, created_at: 15, updated_at: 15 });
  await store.actionFailures.fail(randomUUID(), tokens[0]!.uuid, 16);
  await store.counters.hit('copy-' + randomUUID(), Date.now(), 3_600_000);
  await store.shares.put({ token_id: tokens[0]!.uuid, hash: 'share-' + randomUUID(), created_at: 17 });
  await store.errorLog.add(
    [
      {
        user_id: u.id,
        source: 'action',
        token_id: tokens[0]!.uuid,
        request_id: null,
        action_id: randomUUID(),
        action_type: 'http',
        schedule_id: null,
        schedule_name: null,
        message: 'refused',
        read: false,
        created_at: 18,
      },
      { user_id: u.id, source: 'schedule', token_id: null, request_id: null, action_id: null, action_type: null, schedule_id: s.id, schedule_name: 's', message: 'Check failed', read: true, created_at: 19 },
      { user_id: null, source: 'action', token_id: tokens[1]!.uuid, request_id: randomUUID(), action_id: null, action_type: null, schedule_id: null, schedule_name: null, message: 'x', read: false, created_at: 20 },
    ],
    100,
  );
  return tokens.map((t) => t.uuid);
}

export function runTransferContract(name: string, factory: () => Promise<Store>, sample: Sample): void {
  describe(`bulk copy contract: ${name}`, () => {
    let a: Store;
    let b: Store;
    let tokens: string[];
    const now = Date.now();
    beforeAll(async () => {
      [a, b] = [await factory(), await factory()];
      tokens = await fill(a, sample);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('reads every kind page by page in a stable order, and a copy reads back the same', async () => {
      for (const kind of TRANSFER_ORDER) {
        const all = await readAll(a, kind, 2, now);
        expect(all.length, kind).toBeGreaterThan(0);
        expect(await a.transfer.count(kind, now), kind).toBe(all.length);
        expect(await readAll(a, kind, 1000, now), kind).toEqual(all);
        for (let i = 0; i < all.length; i += 3) await b.transfer.write(kind, all.slice(i, i + 3));
        expect(await readAll(b, kind, 1000, now), kind).toEqual(all);
      }
      for (const t of tokens) {
        expect(await b.tokens.stats(t)).toEqual(await a.tokens.stats(t));
        const page = { page: 1, perPage: 100, sorting: 'newest' as const };
        expect((await b.requests.list(t, page)).items).toEqual((await a.requests.list(t, page)).items);
      }
    });

    it('writing the same records again changes nothing', async () => {
      for (const kind of TRANSFER_ORDER) {
        const before = await readAll(b, kind, 1000, now);
        await b.transfer.write(kind, await readAll(a, kind, 1000, now));
        expect(await readAll(b, kind, 1000, now), kind).toEqual(before);
      }
      for (const t of tokens) expect(await b.tokens.stats(t)).toEqual(await a.tokens.stats(t));
    });

    it('ids made after a copy follow the copied ones', async () => {
      const [copied] = await readAll(b, 'users', 1000, now);
      const u = await b.users.create({ name: 'New', email: 'new@example.test', premium: false, created_at: 1, updated_at: 1 });
      expect(u.id).toBeGreaterThan(copied!.id);
      const t = await b.templates.create({ user_id: u.id, name: 'N', variables: [], actions: [], created_at: 1, updated_at: 1 });
      expect(t.id).toBeGreaterThan((await readAll(a, 'templates', 1000, now)).at(-1)!.id);
    });

    it('keeps checkpoints until cleared', async () => {
      await b.transfer.saveCheckpoint({ kind: 'requests', source: 'src', cursor: '["x",1,2]', copied: 5, done: false });
      await b.transfer.saveCheckpoint({ kind: 'requests', source: 'src', cursor: '["y",1,2]', copied: 6, done: true });
      expect(await b.transfer.checkpoints()).toEqual([{ kind: 'requests', source: 'src', cursor: '["y",1,2]', copied: 6, done: true }]);
      await b.transfer.clearCheckpoints();
      expect(await b.transfer.checkpoints()).toEqual([]);
    });
  });
}
