// Copies a whole store into another (`npm run cli -- migrate`), SQLite to MongoDB or back: every
// kind of record, in pages, through TransferRepo. After each page the target records how far it
// got (a checkpoint per kind), so an interrupted copy continues where it stopped; writes replace
// records by key, so a page written twice changes nothing. At the end every kind is counted on
// both sides. Run it with the service stopped: records changed in the source during or after a
// copy are not followed (only records past the checkpoint are copied by a later run).
//
// Bodies a SQLite store keeps in files (Store.bodyFiles) travel with their requests: into the
// target's own body files when it has them, else inline in the row (MongoDB), in batches of bounded
// size. A target with body files also takes inline bodies past its threshold into files.
import { readFile } from 'node:fs/promises';
import type { Millis, RequestWithFiles, Store, TransferCheckpoint, TransferKind } from './types.js';

/** Copy order: what a record refers to (user, token, schedule) is copied before it. */
export const TRANSFER_ORDER: readonly TransferKind[] = [
  'users',
  'api_keys',
  'groups',
  'tokens',
  'workflows',
  'requests',
  'schedules',
  'schedule_logs',
  'notification_settings',
  'global_variables',
  'providers',
  'templates',
  'databases',
  'queue_profiles',
  'action_failures',
  'rate_counters',
  'token_shares',
  'error_log',
];

type RepositoryName = Exclude<keyof Store, 'kind' | 'ping' | 'close' | 'transfer' | 'database' | 'observeCaptureCommits' | 'observeCatchUps' | 'bodyFiles' | 'space'>;

/**
 * What each repository of the Store holds, as kinds of copied records. A repository added to
 * Store must be listed here (the type says so, and migrate.test.ts checks it against types.ts).
 */
export const REPOSITORY_KINDS: Record<RepositoryName, readonly TransferKind[] | { notCopied: string }> = {
  users: ['users', 'api_keys'],
  tokens: ['tokens'],
  requests: ['requests'],
  counters: ['rate_counters'],
  groups: ['groups'],
  listeners: { notCopied: 'captures waiting for a set-response live for seconds, while their connection is open; none is open while the service is stopped' },
  schedules: ['schedules', 'schedule_logs', 'notification_settings'],
  workflows: ['workflows'],
  globals: ['global_variables'],
  providers: ['providers'],
  databases: ['databases'],
  queueProfiles: ['queue_profiles'],
  templates: ['templates'],
  actionFailures: ['action_failures'],
  shares: ['token_shares'],
  errorLog: ['error_log'],
  replays: { notCopied: 'replays are background runs with progress: the history stays with the store that ran them, and a replay still running is not moved (start it again on the target)' },
};

/** Records per page: large enough to write in bulk, small enough that requests with bodies fit in memory. */
export const PAGE_SIZE = 500;
/** The largest page `--page-size` allows. A page is held in memory whole: with large bodies, choose fewer. */
export const MAX_PAGE_SIZE = 10_000;

/** Bodies read from files held at once while copying requests into rows: a page is written in parts past this. */
export const INLINE_BODY_BYTES = 64 * 1024 * 1024;

/** Writes a page of requests with their bodies, wherever the source keeps them. */
async function writeRequests(source: Store, target: Store, items: RequestWithFiles[]): Promise<void> {
  const from = source.bodyFiles;
  const to = target.bodyFiles;
  if (!from && !to) return target.transfer.write('requests', items);
  let batch: RequestWithFiles[] = [];
  let filed: Array<{ row: RequestWithFiles['request']; body: Buffer | string }> = [];
  let held = 0;
  const flush = async () => {
    await target.transfer.write('requests', batch);
    // After the rows: the target's sweeper removes a file whose row it cannot find.
    for (const f of filed) await to!.place(f.row, f.body);
    batch = [];
    filed = [];
    held = 0;
  };
  for (const item of items) {
    const r = item.request;
    const file = from?.storedFileOf(r) ?? null;
    if (to && (file || r.body.length > to.threshold)) {
      const row = { ...r, body: Buffer.alloc(0), size: file ? r.size : r.body.length };
      batch.push({ ...item, request: row });
      filed.push({ row, body: file ?? r.body });
    } else if (file) {
      // Swept (its request was being deleted): the empty body the source would answer with.
      const body = await readFile(file).catch(() => Buffer.alloc(0));
      batch.push({ ...item, request: { ...r, body } });
      held += body.length;
    } else batch.push(item);
    if (held >= INLINE_BODY_BYTES) await flush();
  }
  if (batch.length) await flush();
}

export interface CopyOptions {
  source: Store;
  target: Store;
  /** Names the source in the target's checkpoints: a later run from the same source continues. */
  sourceName: string;
  /** Copy into a target that holds records not copied from this source (same keys are replaced). */
  force?: boolean;
  pageSize?: number;
  /** The clock: what is live (rate windows) is read at the start, and both sides counted at the end. */
  now?: () => Millis;
  /** After each page, and once per kind before its first page. */
  onProgress?: (p: { kind: TransferKind; done: number; total: number; resumed: number }) => void;
  /** Checked between pages: the checkpoint is saved, then Interrupted is thrown. */
  signal?: AbortSignal;
}

export interface KindCount {
  kind: TransferKind;
  source: number;
  target: number;
}

export class TargetNotEmpty extends Error {
  constructor(readonly held: Array<{ kind: TransferKind; count: number }>) {
    super(`the target already holds ${held.map((h) => `${h.count} ${h.kind}`).join(', ')} not copied from this source`);
  }
}

export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** What the target holds, by kind (kinds with none left out). */
async function holdings(store: Store, now: Millis): Promise<Array<{ kind: TransferKind; count: number }>> {
  const out: Array<{ kind: TransferKind; count: number }> = [];
  for (const kind of TRANSFER_ORDER) {
    const count = await store.transfer.count(kind, now);
    if (count) out.push({ kind, count });
  }
  return out;
}

/** Copies every kind, continuing from the target's checkpoints; returns both sides' counts per kind. */
export async function copyStore(opts: CopyOptions): Promise<KindCount[]> {
  const { source, target, sourceName } = opts;
  const pageSize = opts.pageSize ?? PAGE_SIZE;
  const clock = opts.now ?? Date.now;
  const now = clock();
  const ours = new Map((await target.transfer.checkpoints()).filter((c) => c.source === sourceName).map((c) => [c.kind, c]));
  if (!ours.size) {
    const held = await holdings(target, now);
    if (held.length && !opts.force) throw new TargetNotEmpty(held);
    await target.transfer.clearCheckpoints();
  }
  for (const kind of TRANSFER_ORDER) {
    let cp: TransferCheckpoint = ours.get(kind) ?? { kind, source: sourceName, cursor: null, copied: 0, done: false };
    const resumed = cp.copied;
    const total = await source.transfer.count(kind, now);
    opts.onProgress?.({ kind, done: cp.copied, total, resumed });
    for (;;) {
      if (opts.signal?.aborted) throw new Interrupted();
      const page = await source.transfer.read(kind, cp.cursor, pageSize, now);
      if (!page.items.length) break;
      if (kind === 'requests') await writeRequests(source, target, page.items as RequestWithFiles[]);
      else await target.transfer.write<TransferKind>(kind, page.items);
      cp = { ...cp, cursor: page.cursor, copied: cp.copied + page.items.length };
      await target.transfer.saveCheckpoint(cp);
      opts.onProgress?.({ kind, done: cp.copied, total, resumed });
      if (page.items.length < pageSize) break;
    }
    await target.transfer.saveCheckpoint({ ...cp, done: true });
  }
  // Both sides are counted at one instant taken after the copy, not when it began: a rate window
  // that closed meanwhile counts on neither side, whether or not a side has already removed it
  // (MongoDB's TTL index and SQLite's sweep remove closed windows on their own schedule).
  const countedAt = clock();
  const counts: KindCount[] = [];
  for (const kind of TRANSFER_ORDER) counts.push({ kind, source: await source.transfer.count(kind, countedAt), target: await target.transfer.count(kind, countedAt) });
  return counts;
}
