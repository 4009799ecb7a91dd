// Agenda, the one scheduler of the service: schedules, token cleanup and the jobs other modules
// queue (queued actions). With MongoDB it stores jobs through @agendajs/mongo-backend, with
// SQLite through our own backend (sqlite-backend.ts), in the store's own database either way, so
// every process on that database shares one job list and each job runs in exactly one of them.
//
// A schedule is one Agenda job (`schedule.run`, unique per schedule id) whose nextRunAt is the
// schedule's next tick. The job carries no repeatInterval: while it runs its nextRunAt is null and
// it stays locked, so if the process dies mid-run the lock expires and another process runs that
// tick again; the handler sets the following tick itself, from the schedule as it is after the run.
//
// Agenda loads only once there is work for it: a schedule, or a queued job (enqueued here, or
// found in the shared job list, which is looked at every poll). Until then token cleanup runs on a
// plain timer in each job-running process (it is idempotent: each run deletes what has expired);
// once Agenda runs, cleanup is its one recurring job, run by one process at a time. Saves a few MB
// of idle RSS (the bench's memory section).
import os from 'node:os';
import type { Agenda, AgendaBackend, Job } from 'agenda';
import type { Db } from 'mongodb';
import type { Logger } from '../logger.js';
import type { OutboundClient } from '../net/outbound.js';
import type { ScheduleRecord, Store } from '../store/types.js';
import type { Clock } from '../util/time.js';
import type { ScheduleDocument } from './document.js';
import { nextRun } from './intervals.js';
import type { Notifier } from './notify.js';
import { runSchedule, type RunnerDeps } from './runner.js';

export const JOBS = {
  schedule: 'schedule.run',
  cleanup: 'tokens.cleanup',
} as const;

/** Agenda's storage for a store: the same database the store uses. */
export const AGENDA_COLLECTION = 'agenda_jobs';

function mongoDbOf(store: Store): Db {
  const native = store.database?.();
  if (native?.kind !== 'mongo') throw new Error('The MongoDB store does not expose its database');
  return native.db;
}

export async function agendaBackendFor(store: Store): Promise<AgendaBackend> {
  if (store.kind === 'sqlite') {
    const native = store.database?.();
    if (native?.kind !== 'sqlite') throw new Error('The SQLite store does not expose its database handle');
    const { SqliteBackend } = await import('./sqlite-backend.js');
    return new SqliteBackend(native.db);
  }
  // Imported only here: the MongoDB driver costs a SQLite deployment a fifth of a second at start.
  const { MongoBackend } = await import('@agendajs/mongo-backend');
  return new MongoBackend({ mongo: mongoDbOf(store), collection: AGENDA_COLLECTION });
}

/**
 * One job per schedule even when processes plan the same schedule at once. SQLite serialises the
 * upserts (IMMEDIATE transactions); MongoDB's upserts may race, so there a unique index decides.
 */
async function ensureJobIndexes(store: Store): Promise<void> {
  if (store.kind !== 'mongo') return;
  await mongoDbOf(store)
    .collection(AGENDA_COLLECTION)
    .createIndex({ name: 1, 'data.scheduleId': 1 }, { name: 'schedule_job_unique', unique: true, partialFilterExpression: { name: JOBS.schedule } });
}

/** Whether the shared job list holds a job other than token cleanup (without loading Agenda). */
async function hasJobs(store: Store): Promise<boolean> {
  const native = store.database?.();
  if (native?.kind === 'sqlite') return native.db.prepare('SELECT 1 FROM agenda_jobs WHERE name <> ? LIMIT 1').get(JOBS.cleanup) !== undefined;
  if (native?.kind === 'mongo') return (await native.db.collection(AGENDA_COLLECTION).findOne({ name: { $ne: JOBS.cleanup } }, { projection: { _id: 1 } })) !== null;
  return true;
}

const isDuplicateKey = (e: unknown) => (e as { code?: number })?.code === 11000;

export interface JobOptions {
  /** How long a run may hold its lock before another process may take the job over. */
  lockLifetimeMs?: number;
  /** Runs of this job at once in one process. */
  concurrency?: number;
}

/** What other modules get as JOBS (core/service-keys.ts). */
export interface JobQueue {
  /** Defines the handler of a job name (before or after start). */
  define<T>(name: string, handler: (data: T, job: Job<T>) => Promise<void>, opts?: JobOptions): void;
  /** Runs `name` with `data` once at `runAt` (in whichever process locks it first). */
  enqueue<T>(name: string, data: T, runAt: Date | number): Promise<string>;
}

export interface SchedulerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  http: OutboundClient;
  notifier?: Notifier;
  /** The recurring token expiry/inactivity cleanup. */
  cleanup?: () => Promise<unknown>;
  /** Told about every schedule run and whether it failed (metrics). */
  onRun?(failed: boolean): void;
}

export interface SchedulerOptions {
  /** Agenda instance name, recorded on the jobs it locks. */
  name?: string;
  /** How often the job list is polled (ms). */
  processEvery?: number;
  /** Lock lifetime of a schedule run (ms). Default 2 minutes: a run takes at most ~45 s. */
  scheduleLockLifetimeMs?: number;
  /** Whether this process runs jobs (false: it only writes them, e.g. an API-only process). */
  process?: boolean;
  /** How often token cleanup runs (ms). */
  cleanupEveryMs?: number;
}

export interface Scheduler {
  /** Agenda, once loaded (throws before: nothing has needed it yet; see `loaded`). */
  readonly agenda: Agenda;
  /** Whether Agenda is loaded (a schedule or a queued job has needed it). */
  readonly loaded: boolean;
  jobs: JobQueue;
  /** Creates or moves the job of a schedule to its next tick after now. */
  plan(schedule: ScheduleRecord): Promise<void>;
  /** Removes the job of a deleted schedule. */
  unplan(scheduleId: number): Promise<void>;
  /** Runs a schedule now, outside its timetable; resolves with the log entry. */
  runNow(schedule: ScheduleRecord): ReturnType<typeof runSchedule>;
  /** Gives every schedule a job and drops jobs of schedules that are gone. */
  sync(): Promise<{ planned: number; removed: number }>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function createScheduler(deps: SchedulerDeps, opts: SchedulerOptions = {}): Promise<Scheduler> {
  const { store, clock, logger } = deps;
  const processEvery = opts.processEvery ?? 5000;
  const cleanupEvery = opts.cleanupEveryMs ?? 60_000;
  let running = 0;
  /** Job definitions of other modules, given to Agenda when it loads. */
  const definitions: Array<(a: Agenda) => void> = [];
  let loading: Promise<Agenda> | null = null;
  let agenda: Agenda | null = null;
  let started = false;
  let stopped = false;
  /** Until Agenda loads: token cleanup, and the look at the job list for work queued elsewhere. */
  let cleanupTimer: NodeJS.Timeout | null = null;
  let watchTimer: NodeJS.Timeout | null = null;

  const runner: RunnerDeps = {
    store,
    http: deps.http,
    clock,
    logger,
    onFailure: deps.notifier ? (n) => deps.notifier!.notify(n) : undefined,
    onTlsAlert: deps.notifier ? (n) => deps.notifier!.tlsAlert(n) : undefined,
    onRun: deps.onRun,
  };

  const tickAfter = (s: ScheduleRecord, after: number) => {
    const doc = s.document as unknown as ScheduleDocument;
    return new Date(nextRun(doc.spec.interval, doc.spec.cron, after));
  };

  async function load(): Promise<Agenda> {
    const { Agenda } = await import('agenda');
    const a = new Agenda({
      backend: await agendaBackendFor(store),
      name: opts.name ?? `${os.hostname()}:${process.pid}`,
      processEvery,
      maxConcurrency: 50,
      defaultConcurrency: 5,
      defaultLockLifetime: 10 * 60_000,
      // One-off jobs (queued work) are dropped once they succeed; failed ones stay for inspection.
      removeOnComplete: true,
    });
    a.on('error', (err: Error) => logger.error('scheduler error', { err }));
    a.on('start', () => running++);
    a.on('complete', () => running--);
    a.define(
      JOBS.schedule,
      async (job: Job<{ scheduleId: number }>) => {
        const id = job.attrs.data.scheduleId;
        const schedule = await store.schedules.get(id);
        if (!schedule) {
          // The schedule was deleted while its job waited: drop the job.
          job.attrs.nextRunAt = null;
          await a.cancel({ id: job.attrs._id });
          return;
        }
        const started = clock.now();
        // Set first, so that a run that throws still keeps the timetable.
        job.attrs.nextRunAt = tickAfter(schedule, started);
        try {
          await runSchedule(runner, schedule);
        } finally {
          // The schedule may have changed (or gone) while it ran.
          const now = await store.schedules.get(id);
          job.attrs.nextRunAt = now ? tickAfter(now, Math.max(started, clock.now())) : null;
        }
      },
      // An instance locks no more schedules than it runs at once: with several instances, due
      // schedules are shared out instead of queued behind one instance's running ones.
      { lockLifetime: opts.scheduleLockLifetimeMs ?? 2 * 60_000, concurrency: 10, lockLimit: 10 },
    );
    if (deps.cleanup) {
      const cleanup = deps.cleanup;
      a.define(
        JOBS.cleanup,
        async () => {
          await cleanup();
        },
        { lockLifetime: 10 * 60_000, concurrency: 1 },
      );
    }
    for (const d of definitions) d(a);
    agenda = a;
    if (started) await run(a);
    return a;
  }

  /** Agenda, loading it (and starting it, when the scheduler was started) on first need. */
  const need = (): Promise<Agenda> => (loading ??= load());

  /** Agenda takes over from the timers. */
  async function run(a: Agenda) {
    stopTimers();
    await a.ready;
    if (deps.cleanup) await a.every(cleanupEvery, JOBS.cleanup, undefined, { skipImmediate: true });
    if (opts.process !== false) await a.start();
  }

  function stopTimers() {
    if (cleanupTimer) clearInterval(cleanupTimer);
    if (watchTimer) clearInterval(watchTimer);
    cleanupTimer = watchTimer = null;
  }

  let indexes: Promise<void> | undefined;

  const jobs: JobQueue = {
    define(name, handler, o = {}) {
      const d = (a: Agenda) => a.define(name, async (job: Job<never>) => handler(job.attrs.data, job), { lockLifetime: o.lockLifetimeMs, concurrency: o.concurrency });
      definitions.push(d);
      if (agenda) d(agenda);
    },
    async enqueue(name, data, runAt) {
      const job = await (await need()).schedule(new Date(runAt), name, data);
      return String(job.attrs._id);
    },
  };

  const scheduler: Scheduler = {
    get agenda() {
      if (!agenda) throw new Error('Agenda is not loaded: no schedule or queued job has needed it yet');
      return agenda;
    },
    get loaded() {
      return agenda !== null;
    },
    jobs,
    async plan(schedule) {
      const a = await need();
      await (indexes ??= ensureJobIndexes(store));
      const save = () => a.create(JOBS.schedule, { scheduleId: schedule.id }).unique({ 'data.scheduleId': schedule.id }).schedule(tickAfter(schedule, clock.now())).save();
      try {
        await save();
      } catch (e) {
        // Another process inserted the job first: now the upsert finds it.
        if (!isDuplicateKey(e)) throw e;
        await save();
      }
    },
    async unplan(scheduleId) {
      // Nothing can be planned for it while the job list holds no job.
      if (!agenda && !(await hasJobs(store))) return;
      await (await need()).cancel({ name: JOBS.schedule, data: { scheduleId } });
    },
    runNow(schedule) {
      return runSchedule(runner, schedule);
    },
    async sync() {
      // No schedule and no job: nothing to plan or drop, and no reason to load Agenda.
      if (!agenda && !(await hasJobs(store)) && !(await store.schedules.ids(0, 1)).length) return { planned: 0, removed: 0 };
      const a = await need();
      const planned = new Set<number>();
      let removed = 0;
      const { jobs: existing } = await a.queryJobs({ name: JOBS.schedule });
      for (const j of existing) {
        const id = (j.data as { scheduleId?: number } | undefined)?.scheduleId;
        if (typeof id === 'number' && (await store.schedules.get(id))) planned.add(id);
        else removed += await a.cancel({ id: j._id });
      }
      let count = 0;
      for (let after = 0; ;) {
        const ids = await store.schedules.ids(after, 500);
        for (const id of ids) {
          if (planned.has(id)) continue;
          const s = await store.schedules.get(id);
          if (s) {
            await scheduler.plan(s);
            count++;
          }
        }
        if (ids.length < 500) break;
        after = ids[ids.length - 1]!;
      }
      return { planned: count, removed };
    },
    async start() {
      started = true;
      if (agenda) return run(agenda);
      if (loading) return void (await loading);
      if (await hasJobs(store)) return void (await need());
      if (deps.cleanup && opts.process !== false) {
        const cleanup = deps.cleanup;
        cleanupTimer = setInterval(() => void cleanup().catch((err) => logger.error('token cleanup failed', { err })), cleanupEvery);
        cleanupTimer.unref();
      }
      // Jobs another process queues on the shared list (a process that does not run jobs never loads for them).
      if (opts.process !== false) {
        watchTimer = setInterval(() => {
          if (loading || stopped) return;
          void hasJobs(store)
            .then((yes) => (yes && !stopped ? need() : undefined))
            .catch((err) => logger.error('scheduler error', { err }));
        }, processEvery);
        watchTimer.unref();
      }
    },
    async stop() {
      stopped = true;
      stopTimers();
      const a = await loading?.catch(() => null);
      if (!a) return void (await deps.notifier?.idle());
      // Stop taking jobs (idle locks are released), then let running ones finish for a while.
      await a.stop();
      // Within main.ts's 10 s shutdown limit; a run cut short is retried elsewhere once its lock expires.
      const deadline = Date.now() + 7_000;
      while (running > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await deps.notifier?.idle();
    },
  };
  return scheduler;
}
