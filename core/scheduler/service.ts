// Schedules as workflow documents: created and replaced through the API or applied from files in
// workflows/ (idempotently: a file's document is keyed by its path and name, and re-applying an
// unchanged document changes nothing), each change re-planning the schedule's Agenda job.
import { isDeepStrictEqual } from 'node:util';
import { HttpError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ScheduleRecord, Store } from '../store/types.js';
import type { Clock } from '../util/time.js';
import { readWorkflowFolder } from '../workflows/kernel.js';
import { checkScheduleGroup } from './access.js';
import { normaliseScheduleDocument, type ScheduleDocument } from './document.js';
import type { Scheduler } from './scheduler.js';

export interface ApplyReport {
  created: number;
  updated: number;
  unchanged: number;
  /** Files or documents that could not be applied, with the reason. */
  failed: Array<{ file: string; error: string }>;
}

export class ScheduleService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scheduler: Pick<Scheduler, 'plan' | 'unplan'>,
  ) {}

  /** `groupId` has been checked by the caller (access.ts checkScheduleGroup). */
  async create(userId: number, doc: ScheduleDocument, source: string | null = null, groupId: number | null = null): Promise<ScheduleRecord> {
    const now = this.clock.now();
    const stored = stripOwner(doc);
    const s = await this.store.schedules.create({
      user_id: userId,
      group_id: groupId,
      document: stored as unknown as Record<string, unknown>,
      source,
      last_run_at: null,
      last_status: null,
      created_at: now,
      updated_at: now,
    });
    await this.scheduler.plan(s);
    return s;
  }

  /** `groupId` undefined keeps the schedule's group; otherwise it has been checked by the caller. */
  async replace(s: ScheduleRecord, doc: ScheduleDocument, groupId?: number | null): Promise<ScheduleRecord> {
    const updated = await this.store.schedules.update(s.id, stripOwner(doc) as unknown as Record<string, unknown>, this.clock.now(), groupId);
    if (!updated) return s;
    await this.scheduler.plan(updated);
    return updated;
  }

  async delete(s: ScheduleRecord): Promise<void> {
    await this.store.schedules.delete(s.id);
    await this.scheduler.unplan(s.id);
  }

  /** The document as exported: with its owner's e-mail (and its group), so the file can be applied elsewhere. */
  async exportDocument(s: ScheduleRecord): Promise<ScheduleDocument> {
    const doc = structuredClone(s.document) as unknown as ScheduleDocument;
    const user = await this.store.users.get(s.user_id);
    return { ...doc, metadata: { ...doc.metadata, owner: user?.email ?? s.user_id, ...(s.group_id !== null ? { group_id: s.group_id } : {}) } };
  }

  private async owner(owner: string | number | undefined) {
    if (owner === undefined) throw new Error('metadata.owner is required for documents in workflows/ (a user e-mail or id)');
    const u = typeof owner === 'number' ? await this.store.users.get(owner) : (await this.store.users.list()).find((x) => x.email.toLowerCase() === owner.toLowerCase());
    if (u) return u;
    throw new Error(`metadata.owner: no user ${JSON.stringify(owner)}`);
  }

  /** Applies one document from a file; `key` identifies it across applies. */
  async applyDocument(input: unknown, key: string): Promise<'created' | 'updated' | 'unchanged'> {
    const doc = normaliseScheduleDocument(input);
    const owner = await this.owner(doc.metadata.owner);
    const userId = owner.id;
    // A file names its group or none: applying it sets exactly that.
    const groupId = doc.metadata.group_id ?? null;
    await checkScheduleGroup(this.store, { kind: 'admin' }, groupId, owner);
    const source = `file:${key}#${doc.metadata.name}`;
    const existing = await this.store.schedules.getBySource(source);
    if (!existing) {
      await this.create(userId, doc, source, groupId);
      return 'created';
    }
    if (existing.user_id === userId && existing.group_id === groupId && isDeepStrictEqual(existing.document, JSON.parse(JSON.stringify(stripOwner(doc))))) return 'unchanged';
    if (existing.user_id !== userId) {
      await this.delete(existing);
      await this.create(userId, doc, source, groupId);
    } else {
      await this.replace(existing, doc, groupId);
    }
    return 'updated';
  }

  /**
   * Applies every `kind: Schedule` document of the YAML/JSON files in `dir` (other kinds are left
   * to their own loaders; subfolders such as examples/ are not read, see readWorkflowFolder). A
   * missing directory is no error.
   */
  async applyDirectory(dir: string, logger?: Logger): Promise<ApplyReport> {
    const report: ApplyReport = { created: 0, updated: 0, unchanged: 0, failed: [] };
    for (const { file, docs, error } of await readWorkflowFolder(dir)) {
      if (error) report.failed.push({ file, error });
      for (const d of docs) {
        if ((d as { kind?: unknown })?.kind !== 'Schedule') continue;
        try {
          report[await this.applyDocument(d, file)]++;
        } catch (e) {
          const msg = e instanceof HttpError && e.errors ? `${e.message}` : (e as Error).message;
          report.failed.push({ file, error: msg });
        }
      }
    }
    for (const f of report.failed) logger?.warn('schedule document not applied', f);
    if (report.created || report.updated) logger?.info('schedule documents applied', { dir, created: report.created, updated: report.updated, unchanged: report.unchanged });
    return report;
  }
}

/** The owner and the group live in the record (user_id, group_id), not in the stored document. */
function stripOwner(doc: ScheduleDocument): ScheduleDocument {
  const { owner: _owner, group_id: _group, ...metadata } = doc.metadata;
  return { ...doc, metadata };
}
