// One contract for Agenda's job repository: run against our SQLite backend always and against
// @agendajs/mongo-backend when MONGODB_URI is set, so both behave the same for Agenda.
import { Agenda, type AgendaBackend, type JobParameters, type JobRepository } from 'agenda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface BackendUnderTest {
  backend: AgendaBackend;
  /** Drops what the test stored. */
  cleanup(): Promise<void>;
}

const job = (over: Partial<JobParameters> = {}): JobParameters => ({
  name: 'job',
  priority: 0,
  nextRunAt: new Date(Date.now() - 1000),
  type: 'normal',
  data: {},
  ...over,
});

const sec = (n: number) => new Date(Date.now() + n * 1000);

export function agendaBackendContract(label: string, make: () => Promise<BackendUnderTest>): void {
  describe(`Agenda backend contract: ${label}`, () => {
    let under: BackendUnderTest;
    let repo: JobRepository;

    beforeEach(async () => {
      under = await make();
      await under.backend.connect();
      repo = under.backend.repository;
      await repo.purgeAllJobs();
    });

    afterEach(async () => {
      await under.cleanup();
    });

    describe('saveJob', () => {
      it('inserts a normal job with an id and reads it back with its fields', async () => {
        const saved = await repo.saveJob(job({ data: { a: 1, nested: { b: 'x' } }, priority: 10, repeatInterval: '5 minutes', repeatTimezone: 'UTC' }), { lastModifiedBy: 'p1' });
        expect(saved._id).toMatch(/^[0-9a-f]{24}$/);
        const got = await repo.getJobById(saved._id!);
        expect(got).toMatchObject({ name: 'job', priority: 10, type: 'normal', data: { a: 1, nested: { b: 'x' } }, repeatInterval: '5 minutes', repeatTimezone: 'UTC', lastModifiedBy: 'p1' });
        expect(got!.nextRunAt).toBeInstanceOf(Date);
        expect(got!.lockedAt).toBeUndefined();
        expect(got!.disabled).toBeUndefined();
      });

      it('two normal saves are two jobs', async () => {
        await repo.saveJob(job(), undefined);
        await repo.saveJob(job(), undefined);
        expect((await repo.queryJobs({ name: 'job' })).total).toBe(2);
      });

      it('with an id updates that job; a missing id returns the input unchanged', async () => {
        const saved = await repo.saveJob(job({ data: { v: 1 } }), undefined);
        const updated = await repo.saveJob({ ...saved, data: { v: 2 } }, undefined);
        expect(updated.data).toEqual({ v: 2 });
        expect((await repo.getJobById(saved._id!))!.data).toEqual({ v: 2 });
        await repo.removeJobs({ id: saved._id });
        const gone = await repo.saveJob({ ...saved, data: { v: 3 } }, undefined);
        expect(gone.data).toEqual({ v: 3 });
        expect(await repo.getJobById(saved._id!)).toBeNull();
      });

      it('type single keeps one job per name and does not move a past nextRunAt', async () => {
        const first = await repo.saveJob(job({ name: 'single', type: 'single', nextRunAt: sec(-60), repeatInterval: '1 minute' }), undefined);
        const second = await repo.saveJob(job({ name: 'single', type: 'single', nextRunAt: sec(-1), repeatInterval: '2 minutes' }), undefined);
        expect(second._id).toBe(first._id);
        expect(second.repeatInterval).toBe('2 minutes');
        expect(second.nextRunAt!.getTime()).toBe(first.nextRunAt!.getTime());
        const future = sec(3600);
        const third = await repo.saveJob(job({ name: 'single', type: 'single', nextRunAt: future }), undefined);
        expect(third.nextRunAt!.getTime()).toBe(future.getTime());
        expect((await repo.queryJobs({ name: 'single' })).total).toBe(1);
      });

      it('unique upserts on the matching data and updates it', async () => {
        const a = await repo.saveJob({ ...job({ data: { id: 7, v: 1 } }), unique: { 'data.id': 7 } }, undefined);
        const b = await repo.saveJob({ ...job({ data: { id: 7, v: 2 } }), unique: { 'data.id': 7 } }, undefined);
        const c = await repo.saveJob({ ...job({ data: { id: 8, v: 1 } }), unique: { 'data.id': 8 } }, undefined);
        expect(b._id).toBe(a._id);
        expect(b.data).toEqual({ id: 7, v: 2 });
        expect(c._id).not.toBe(a._id);
        expect((await repo.queryJobs({ name: 'job' })).total).toBe(2);
        // The unique query is scoped to the job name.
        const other = await repo.saveJob({ ...job({ name: 'other', data: { id: 7 } }), unique: { 'data.id': 7 } }, undefined);
        expect(other._id).not.toBe(a._id);
      });

      it('unique with insertOnly leaves an existing job as it is', async () => {
        const a = await repo.saveJob({ ...job({ data: { id: 1, v: 1 } }), unique: { 'data.id': 1 }, uniqueOpts: { insertOnly: true } }, undefined);
        const b = await repo.saveJob({ ...job({ data: { id: 1, v: 2 } }), unique: { 'data.id': 1 }, uniqueOpts: { insertOnly: true } }, undefined);
        expect(b._id).toBe(a._id);
        expect(b.data).toEqual({ id: 1, v: 1 });
      });

      it('unique rejects server-side evaluation operators', async () => {
        await expect(repo.saveJob({ ...job(), unique: { $where: 'true' } }, undefined)).rejects.toThrow(/\$where/);
      });

      it('trailing debounce pushes nextRunAt to delay after the last save', async () => {
        const opts = { unique: { 'data.k': 'x' }, uniqueOpts: { debounce: { delay: 5000 } } };
        const t0 = Date.now();
        const a = await repo.saveJob({ ...job({ data: { k: 'x', n: 1 } }), ...opts }, undefined);
        expect(a.nextRunAt!.getTime()).toBeGreaterThanOrEqual(t0 + 5000);
        expect(a.debounceStartedAt).toBeInstanceOf(Date);
        const b = await repo.saveJob({ ...job({ data: { k: 'x', n: 2 } }), ...opts }, undefined);
        expect(b._id).toBe(a._id);
        expect(b.data).toEqual({ k: 'x', n: 2 });
        expect(b.nextRunAt!.getTime()).toBeGreaterThanOrEqual(a.nextRunAt!.getTime());
        expect(b.debounceStartedAt!.getTime()).toBe(a.debounceStartedAt!.getTime());
      });

      it('debounce with an exceeded maxWait runs now and restarts the window', async () => {
        const opts = { unique: { 'data.k': 'y' }, uniqueOpts: { debounce: { delay: 60_000, maxWait: 1 } } };
        await repo.saveJob({ ...job({ data: { k: 'y' } }), ...opts }, undefined);
        await new Promise((r) => setTimeout(r, 10));
        const b = await repo.saveJob({ ...job({ data: { k: 'y' } }), ...opts }, undefined);
        expect(b.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now());
        expect(b.debounceStartedAt).toBeUndefined();
      });

      it('leading debounce keeps the first nextRunAt', async () => {
        const opts = { unique: { 'data.k': 'z' }, uniqueOpts: { debounce: { delay: 60_000, strategy: 'leading' as const } } };
        const first = sec(-1);
        const a = await repo.saveJob({ ...job({ data: { k: 'z', n: 1 }, nextRunAt: first }), ...opts }, undefined);
        expect(a.nextRunAt!.getTime()).toBe(first.getTime());
        const b = await repo.saveJob({ ...job({ data: { k: 'z', n: 2 }, nextRunAt: sec(100) }), ...opts }, undefined);
        expect(b.nextRunAt!.getTime()).toBe(first.getTime());
        expect(b.data).toEqual({ k: 'z', n: 2 });
      });
    });

    describe('locking', () => {
      it('getNextJobToRun locks the due job, earliest first, and no one else gets it', async () => {
        await repo.saveJob(job({ data: { n: 2 }, nextRunAt: sec(-5) }), undefined);
        await repo.saveJob(job({ data: { n: 1 }, nextRunAt: sec(-10) }), undefined);
        await repo.saveJob(job({ data: { n: 3 }, nextRunAt: sec(3600) }), undefined);
        const deadline = sec(-600);
        const a = await repo.getNextJobToRun('job', sec(1), deadline, undefined, { lastModifiedBy: 'A' });
        const b = await repo.getNextJobToRun('job', sec(1), deadline, undefined, { lastModifiedBy: 'B' });
        const c = await repo.getNextJobToRun('job', sec(1), deadline, undefined, undefined);
        expect(a!.data).toEqual({ n: 1 });
        expect(a!.lockedAt).toBeInstanceOf(Date);
        expect(a!.lastModifiedBy).toBe('A');
        expect(b!.data).toEqual({ n: 2 });
        expect(c).toBeUndefined();
      });

      it('higher priority first among jobs due at the same time', async () => {
        const at = sec(-5);
        await repo.saveJob(job({ data: { p: 0 }, nextRunAt: at, priority: 0 }), undefined);
        await repo.saveJob(job({ data: { p: 20 }, nextRunAt: at, priority: 20 }), undefined);
        expect((await repo.getNextJobToRun('job', sec(1), sec(-600), undefined, undefined))!.data).toEqual({ p: 20 });
      });

      it('skips disabled jobs and other names; a job due before the next scan is locked early', async () => {
        await repo.saveJob(job({ disabled: true }), undefined);
        await repo.saveJob(job({ name: 'else' }), undefined);
        expect(await repo.getNextJobToRun('job', sec(1), sec(-600), undefined, undefined)).toBeUndefined();
        await repo.saveJob(job({ nextRunAt: sec(3) }), undefined);
        expect(await repo.getNextJobToRun('job', sec(1), sec(-600), undefined, undefined)).toBeUndefined();
        expect(await repo.getNextJobToRun('job', sec(5), sec(-600), undefined, undefined)).toBeDefined();
      });

      it('a lock older than the deadline is taken over (the process holding it died)', async () => {
        const saved = await repo.saveJob(job(), undefined);
        const first = await repo.getNextJobToRun('job', sec(1), sec(-600), sec(-120), undefined);
        expect(first!._id).toBe(saved._id);
        expect(await repo.getNextJobToRun('job', sec(1), sec(-600), undefined, undefined)).toBeUndefined();
        // Running jobs have nextRunAt null: an expired lock is taken over all the same.
        await repo.saveJobState({ ...first!, nextRunAt: null }, undefined);
        const again = await repo.getNextJobToRun('job', sec(1), sec(-60), undefined, { lastModifiedBy: 'B' });
        expect(again!._id).toBe(saved._id);
        expect(again!.lastModifiedBy).toBe('B');
      });

      it('lockJob locks only an unlocked job whose nextRunAt is unchanged', async () => {
        const saved = await repo.saveJob(job({ nextRunAt: sec(10) }), undefined);
        expect(await repo.lockJob({ ...saved, nextRunAt: sec(20) }, undefined)).toBeUndefined();
        const locked = await repo.lockJob(saved, { lastModifiedBy: 'A' });
        expect(locked!.lockedAt).toBeInstanceOf(Date);
        expect(await repo.lockJob(saved, undefined)).toBeUndefined();
      });

      it('unlockJob leaves a running job (nextRunAt null) locked; unlockJobs unlocks it', async () => {
        const a = await repo.saveJob(job(), undefined);
        const locked = await repo.getNextJobToRun('job', sec(1), sec(-600), undefined, undefined);
        await repo.saveJobState({ ...locked!, nextRunAt: null }, undefined);
        await repo.unlockJob(locked!);
        expect((await repo.getJobById(a._id!))!.lockedAt).toBeInstanceOf(Date);
        await repo.unlockJobs([a._id!]);
        expect((await repo.getJobById(a._id!))!.lockedAt).toBeUndefined();
        await repo.unlockJobs([]);
      });

      it('saveJobState writes the processor fields and fails for a removed job', async () => {
        const a = await repo.saveJob(job({ data: { keep: true } }), undefined);
        const now = new Date();
        await repo.saveJobState({ ...a, lastRunAt: now, lastFinishedAt: now, failCount: 2, failReason: 'boom', failedAt: now, progress: 50, data: { keep: false } }, { lastModifiedBy: 'X' });
        const got = await repo.getJobById(a._id!);
        expect(got).toMatchObject({ failCount: 2, failReason: 'boom', progress: 50, lastModifiedBy: 'X', data: { keep: true } });
        expect(got!.lastRunAt!.getTime()).toBe(now.getTime());
        await repo.removeJobs({ id: a._id });
        await expect(repo.saveJobState(a, undefined)).rejects.toThrow(/cannot be updated/);
      });
    });

    describe('queries and removal', () => {
      beforeEach(async () => {
        await repo.saveJob(job({ name: 'alpha', data: { user: 1, tags: ['a', 'b'] }, nextRunAt: sec(60) }), undefined);
        await repo.saveJob(job({ name: 'alpha', data: { user: 2 }, nextRunAt: sec(-60) }), undefined);
        await repo.saveJob(job({ name: 'beta', data: { user: 1, deep: { x: true } }, disabled: true, nextRunAt: sec(120) }), undefined);
        await repo.saveJob(job({ name: 'gamma', data: { user: 3 }, repeatInterval: '1 hour', nextRunAt: sec(-30) }), undefined);
      });

      it('filters by name, names, search, id(s) and data (partial and nested)', async () => {
        expect((await repo.queryJobs({ name: 'alpha' })).total).toBe(2);
        expect((await repo.queryJobs({ names: ['alpha', 'gamma'] })).total).toBe(3);
        expect((await repo.queryJobs({ search: 'ALP' })).total).toBe(2);
        expect((await repo.queryJobs({ data: { user: 1 } })).total).toBe(2);
        expect((await repo.queryJobs({ data: { deep: { x: true } } })).jobs.map((j) => j.name)).toEqual(['beta']);
        expect((await repo.queryJobs({ data: { tags: 'a' } })).total).toBe(1);
        expect((await repo.queryJobs({ data: { user: '1' } })).total).toBe(0);
        const one = (await repo.queryJobs({ name: 'gamma' })).jobs[0]!;
        expect((await repo.queryJobs({ id: one._id })).jobs.map((j) => j.name)).toEqual(['gamma']);
        expect((await repo.queryJobs({ ids: [one._id] })).total).toBe(1);
        expect((await repo.queryJobs({ includeDisabled: false })).total).toBe(3);
      });

      it('computes states and filters by them', async () => {
        const all = await repo.queryJobs({});
        const states = Object.fromEntries(all.jobs.map((j) => [`${j.name}:${(j.data as { user: number }).user}`, j.state]));
        expect(states).toEqual({ 'alpha:1': 'scheduled', 'alpha:2': 'queued', 'beta:1': 'scheduled', 'gamma:3': 'repeating' });
        expect((await repo.queryJobs({ state: 'queued' })).total).toBe(1);
        expect((await repo.queryJobs({ state: 'paused' })).jobs.map((j) => j.name)).toEqual(['beta']);
      });

      it('sorts (default nextRunAt then lastRunAt descending) and pages with skip and limit', async () => {
        const def = await repo.queryJobs({});
        expect(def.jobs.map((j) => j.nextRunAt!.getTime())).toEqual([...def.jobs.map((j) => j.nextRunAt!.getTime())].sort((a, b) => b - a));
        const asc = await repo.queryJobs({ sort: { nextRunAt: 'asc' }, skip: 1, limit: 2 });
        expect(asc.total).toBe(4);
        expect(asc.jobs.map((j) => j.name)).toEqual(['gamma', 'alpha']);
        const byName = await repo.queryJobs({ sort: { name: 'desc' }, limit: 1 });
        expect(byName.jobs[0]!.name).toBe('gamma');
        const stateSkip = await repo.queryJobs({ state: 'scheduled', sort: { nextRunAt: 'asc' }, skip: 1 });
        expect(stateSkip.total).toBe(2);
        expect(stateSkip.jobs.map((j) => j.name)).toEqual(['beta']);
      });

      it('overview, distinct names and queue size', async () => {
        expect((await repo.getDistinctJobNames()).sort()).toEqual(['alpha', 'beta', 'gamma']);
        const overview = Object.fromEntries((await repo.getJobsOverview()).map((o) => [o.name, o]));
        expect(overview.alpha).toMatchObject({ total: 2, scheduled: 1, queued: 1 });
        expect(overview.beta).toMatchObject({ total: 1, paused: 1 });
        expect(overview.gamma).toMatchObject({ total: 1, repeating: 1 });
        expect(await repo.getQueueSize()).toBe(2);
      });

      it('disables and enables by name and counts only the jobs it changed', async () => {
        expect(await repo.disableJobs({ name: 'alpha' })).toBe(2);
        expect(await repo.disableJobs({ name: 'alpha' })).toBe(0);
        expect(await repo.enableJobs({ names: ['alpha', 'beta'] })).toBe(3);
        expect(await repo.disableJobs({})).toBe(0);
      });

      it('removes by id, ids, name, names, notNames and data; nothing without criteria', async () => {
        expect(await repo.removeJobs({})).toBe(0);
        expect(await repo.removeJobs({ notNames: ['alpha'] })).toBe(2);
        expect(await repo.removeJobs({ name: 'alpha', data: { user: 2 } })).toBe(1);
        const left = (await repo.queryJobs({})).jobs;
        expect(left.map((j) => j.name)).toEqual(['alpha']);
        expect(await repo.removeJobs({ ids: [left[0]!._id] })).toBe(1);
        expect(await repo.purgeAllJobs()).toBe(0);
      });
    });

    describe('with Agenda', () => {
      it('runs a job once, and a recurring job on its interval, through this backend', async () => {
        const agenda = new Agenda({ backend: under.backend, processEvery: 50, name: 'contract' });
        const runs: string[] = [];
        agenda.define('once', async (j) => {
          runs.push(`once:${(j.attrs.data as { n: number }).n}`);
        });
        try {
          await agenda.start();
          await agenda.now('once', { n: 1 });
          await agenda.schedule(new Date(Date.now() + 150), 'once', { n: 2 });
          const deadline = Date.now() + 3000;
          while (runs.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
          expect(runs).toEqual(['once:1', 'once:2']);
          const done = await repo.queryJobs({ name: 'once' });
          expect(done.jobs.every((j) => j.state === 'completed' && j.lastFinishedAt instanceof Date)).toBe(true);
        } finally {
          await agenda.stop();
        }
      });
    });
  });
}
