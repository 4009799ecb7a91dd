// Agenda's storage on our SQLite file: a JobRepository with the semantics of
// @agendajs/mongo-backend's MongoJobRepository (same queries, same upsert rules for `single`,
// `unique`, insert-only and debounced jobs, same lock conditions), over the `agenda_jobs` table of
// migration 4. Every read-then-write runs in an IMMEDIATE transaction and every lock is one
// UPDATE ... RETURNING, so several processes on one file never lock the same job twice.
// The shared contract suite (backend.contract.ts) runs against this and the Mongo backend.
import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import {
  computeJobState,
  toJobId,
  type AgendaBackend,
  type JobId,
  type JobParameters,
  type JobRepository,
  type JobRepositoryOptions,
  type JobsOverview,
  type JobsQueryOptions,
  type JobsResult,
  type JobsSort,
  type RemoveJobsOptions,
  type SortDirection,
} from 'agenda';

interface JobRow {
  id: string;
  name: string;
  priority: number;
  next_run_at: number | null;
  type: string;
  locked_at: number | null;
  last_run_at: number | null;
  last_finished_at: number | null;
  failed_at: number | null;
  fail_count: number | null;
  fail_reason: string | null;
  repeat_timezone: string | null;
  repeat_interval: string | null;
  repeat_at: string | null;
  disabled: number | null;
  progress: number | null;
  data: string | null;
  last_modified_by: string | null;
  fork: number | null;
  debounce_started_at: number | null;
  start_date: number | null;
  end_date: number | null;
  skip_days: string | null;
}

type Cond = { sql: string; params: unknown[] };

const COLUMNS: Record<string, keyof JobRow> = {
  name: 'name',
  priority: 'priority',
  nextRunAt: 'next_run_at',
  type: 'type',
  lockedAt: 'locked_at',
  lastRunAt: 'last_run_at',
  lastFinishedAt: 'last_finished_at',
  failedAt: 'failed_at',
  failCount: 'fail_count',
  failReason: 'fail_reason',
  repeatTimezone: 'repeat_timezone',
  repeatAt: 'repeat_at',
  disabled: 'disabled',
  progress: 'progress',
  lastModifiedBy: 'last_modified_by',
  debounceStartedAt: 'debounce_started_at',
  startDate: 'start_date',
  endDate: 'end_date',
};

const DATE_COLUMNS = new Set(['next_run_at', 'locked_at', 'last_run_at', 'last_finished_at', 'failed_at', 'debounce_started_at', 'start_date', 'end_date']);

/** 24 hex characters, like an ObjectId: seconds, then randomness. */
function newId(): string {
  return (
    Math.floor(Date.now() / 1000)
      .toString(16)
      .padStart(8, '0') + randomBytes(8).toString('hex')
  );
}

function ms(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  const t = new Date(v as string | number).getTime();
  return Number.isNaN(t) ? null : t;
}

const date = (v: number | null) => (v === null ? undefined : new Date(v));
const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
const parse = (v: string | null) => (v === null ? undefined : JSON.parse(v));

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

function toJob(r: JobRow): JobParameters & { _id: JobId } {
  return {
    _id: toJobId(r.id),
    name: r.name,
    priority: r.priority,
    nextRunAt: r.next_run_at === null ? null : new Date(r.next_run_at),
    type: r.type as JobParameters['type'],
    data: parse(r.data),
    lockedAt: date(r.locked_at),
    lastFinishedAt: date(r.last_finished_at),
    failedAt: date(r.failed_at),
    failCount: r.fail_count ?? undefined,
    failReason: r.fail_reason ?? undefined,
    repeatTimezone: r.repeat_timezone ?? undefined,
    lastRunAt: date(r.last_run_at),
    repeatInterval: parse(r.repeat_interval),
    repeatAt: r.repeat_at ?? undefined,
    disabled: r.disabled === null ? undefined : r.disabled === 1,
    progress: r.progress ?? undefined,
    // `unique` and `uniqueOpts` steer one save and are not stored (as in the Mongo backend).
    lastModifiedBy: r.last_modified_by ?? undefined,
    fork: r.fork === null ? undefined : r.fork === 1,
    debounceStartedAt: date(r.debounce_started_at),
    startDate: date(r.start_date),
    endDate: date(r.end_date),
    skipDays: parse(r.skip_days),
  };
}

/** JSON path of `a.b.c` inside the data column: `$."a"."b"."c"`. */
function jsonPath(keys: string[]): string {
  return '$' + keys.map((k) => `."${k.replace(/"/g, '\\"')}"`).join('');
}

/** MongoDB equality of a value at a JSON path (a scalar also matches an array that contains it). */
function jsonEquals(path: string, value: unknown): Cond {
  if (value instanceof Date) value = value.toISOString();
  if (value === null || value === undefined) return { sql: `(json_type(data, ?) IS NULL OR json_type(data, ?) = 'null')`, params: [path, path] };
  if (typeof value === 'object') return { sql: `(json_type(data, ?) IN ('array', 'object') AND json_extract(data, ?) = json(?))`, params: [path, path, JSON.stringify(value)] };
  let types: string;
  let bound: unknown = value;
  if (typeof value === 'string') types = `('text')`;
  else if (typeof value === 'number') types = `('integer', 'real')`;
  else if (typeof value === 'boolean') {
    types = value ? `('true')` : `('false')`;
    bound = value ? 1 : 0;
  } else throw new Error(`Unsupported value in a job query: ${typeof value}`);
  return {
    sql: `((json_type(data, ?) IN ${types} AND json_extract(data, ?) = ?) OR (json_type(data, ?) = 'array' AND EXISTS (SELECT 1 FROM json_each(data, ?) e WHERE e.type IN ${types} AND e.value = ?)))`,
    params: [path, path, bound, path, path, bound],
  };
}

/** Flattens a data filter like MongoJobRepository does: nested plain objects become paths. */
function dataConditions(data: unknown, prefix: string[] = []): Cond[] {
  if (prefix.length === 0 && !isPlainObject(data)) {
    return [data === null ? { sql: `data = 'null'`, params: [] } : { sql: 'data = ?', params: [JSON.stringify(data)] }];
  }
  const out: Cond[] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (isPlainObject(v)) out.push(...dataConditions(v, [...prefix, k]));
    else out.push(jsonEquals(jsonPath([...prefix, k]), v));
  }
  return out;
}

const BANNED_UNIQUE_OPERATORS = new Set(['$where', '$function', '$accumulator', '$expr']);

/** The conditions of a `unique()` query: field paths (`data.x`, `name`...) to plain values. */
function uniqueConditions(unique: Record<string, unknown>): Cond[] {
  const out: Cond[] = [];
  for (const [key, value] of Object.entries(unique)) {
    if (BANNED_UNIQUE_OPERATORS.has(key)) throw new Error(`Unsafe operator "${key}" is not allowed in a unique() constraint`);
    if (key.startsWith('$') || (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$')))) {
      throw new Error(`Query operators are not supported in a unique() constraint by the SQLite backend: ${key}`);
    }
    const [head, ...rest] = key.split('.');
    if (head === 'data') {
      if (rest.length === 0) out.push(...dataConditions(value));
      else if (isPlainObject(value)) out.push(...dataConditions(value, rest));
      else out.push(jsonEquals(jsonPath(rest), value));
    } else if (head === '_id' && rest.length === 0) {
      out.push({ sql: 'id = ?', params: [String(value)] });
    } else if (COLUMNS[key]) {
      const col = COLUMNS[key]!;
      const v = DATE_COLUMNS.has(col) ? ms(value) : typeof value === 'boolean' ? (value ? 1 : 0) : value;
      out.push(v === null || v === undefined ? { sql: `${col} IS NULL`, params: [] } : { sql: `${col} = ?`, params: [v] });
    } else {
      // A field jobs do not have matches only null, as in MongoDB.
      out.push({ sql: value === null ? '1' : '0', params: [] });
    }
  }
  return out;
}

function where(conds: Cond[]): { sql: string; params: unknown[] } {
  if (!conds.length) return { sql: '', params: [] };
  return { sql: ' WHERE ' + conds.map((c) => c.sql).join(' AND '), params: conds.flatMap((c) => c.params) };
}

const SORT_COLUMNS: Record<keyof JobsSort, string> = {
  nextRunAt: 'next_run_at',
  lastRunAt: 'last_run_at',
  lastFinishedAt: 'last_finished_at',
  priority: 'priority',
  name: 'name',
  data: 'data',
};

function orderBy(sort: JobsSort | Partial<Record<string, SortDirection>>): string {
  const parts = Object.entries(sort as Record<string, SortDirection | undefined>)
    .filter(([k, d]) => k in SORT_COLUMNS && (d === 'asc' || d === 'desc'))
    .map(([k, d]) => `${SORT_COLUMNS[k as keyof JobsSort]} ${d === 'asc' ? 'ASC' : 'DESC'}`);
  // Insertion order breaks ties, as MongoDB's natural order usually does.
  return ' ORDER BY ' + [...parts, 'rowid ASC'].join(', ');
}

/** Every persisted field of a job as column values (undefined becomes NULL, as the Mongo backend stores null). */
function rowValues(props: Omit<JobParameters, '_id' | 'unique' | 'uniqueOpts'>, lastModifiedBy: string | null): Omit<JobRow, 'id'> {
  return {
    name: props.name,
    priority: props.priority ?? 0,
    next_run_at: ms(props.nextRunAt),
    type: props.type ?? 'normal',
    locked_at: ms(props.lockedAt),
    last_run_at: ms(props.lastRunAt),
    last_finished_at: ms(props.lastFinishedAt),
    failed_at: ms(props.failedAt),
    fail_count: props.failCount ?? null,
    fail_reason: props.failReason ?? null,
    repeat_timezone: props.repeatTimezone ?? null,
    repeat_interval: json(props.repeatInterval ?? undefined),
    repeat_at: props.repeatAt ?? null,
    disabled: props.disabled === undefined || props.disabled === null ? null : props.disabled ? 1 : 0,
    progress: props.progress ?? null,
    data: json(props.data),
    last_modified_by: lastModifiedBy,
    fork: props.fork === undefined || props.fork === null ? null : props.fork ? 1 : 0,
    debounce_started_at: ms(props.debounceStartedAt),
    start_date: ms(props.startDate),
    end_date: ms(props.endDate),
    skip_days: json(props.skipDays ?? undefined),
  };
}

const ROW_COLUMNS = Object.keys(rowValues({ name: '', priority: 0, nextRunAt: null, type: 'normal', data: null }, null)) as Array<keyof Omit<JobRow, 'id'>>;

export interface SqliteJobRepositoryOptions {
  /** Order in which due jobs are locked. Default: nextRunAt ascending, then priority descending. */
  sort?: Partial<Record<string, SortDirection>>;
}

export class SqliteJobRepository implements JobRepository {
  private readonly sort: Partial<Record<string, SortDirection>>;

  constructor(
    private readonly db: Database,
    opts: SqliteJobRepositoryOptions = {},
  ) {
    this.sort = opts.sort ?? { nextRunAt: 'asc', priority: 'desc' };
  }

  /** The table comes with the store's migrations; nothing to open. */
  async connect(): Promise<void> {
    this.db.prepare('SELECT 1 FROM agenda_jobs LIMIT 1').get();
  }

  private all(sql: string, params: unknown[]): JobRow[] {
    return this.db.prepare(sql).all(...params) as JobRow[];
  }

  private one(sql: string, params: unknown[]): JobRow | undefined {
    return this.db.prepare(sql).get(...params) as JobRow | undefined;
  }

  private byId(id: string): JobRow | undefined {
    return this.one('SELECT * FROM agenda_jobs WHERE id = ?', [id]);
  }

  private insert(values: Omit<JobRow, 'id'>): JobRow {
    const row = { id: newId(), ...values };
    const cols = ['id', ...ROW_COLUMNS];
    this.db.prepare(`INSERT INTO agenda_jobs (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => row[c as keyof JobRow]));
    return row;
  }

  private update(id: string, values: Partial<Omit<JobRow, 'id'>>): JobRow | undefined {
    const cols = Object.keys(values) as Array<keyof Omit<JobRow, 'id'>>;
    if (!cols.length) return this.byId(id);
    return this.one(`UPDATE agenda_jobs SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ? RETURNING *`, [...cols.map((c) => values[c]), id]);
  }

  async getJobById(id: string): Promise<JobParameters | null> {
    const r = this.byId(String(id));
    return r ? toJob(r) : null;
  }

  async queryJobs(options: JobsQueryOptions = {}): Promise<JobsResult> {
    const { name, names, state, id, ids, search, data, includeDisabled = true, sort, skip = 0, limit = 0 } = options;
    const now = new Date();
    const conds: Cond[] = [];
    if (search && typeof search === 'string') {
      conds.push({ sql: 'instr(lower(name), lower(?)) > 0', params: [search] });
    } else if (name && typeof name === 'string') {
      conds.push({ sql: 'name = ?', params: [name] });
    } else if (Array.isArray(names)) {
      const valid = names.filter((n): n is string => typeof n === 'string');
      if (valid.length) conds.push({ sql: `name IN (${valid.map(() => '?').join(', ')})`, params: valid });
    }
    if (id && typeof id === 'string') conds.push({ sql: 'id = ?', params: [id] });
    else if (Array.isArray(ids)) {
      const valid = ids.filter((i): i is string => typeof i === 'string');
      if (valid.length) conds.push({ sql: `id IN (${valid.map(() => '?').join(', ')})`, params: valid });
    }
    if (data !== undefined) conds.push(...dataConditions(data));
    if (!includeDisabled) conds.push({ sql: '(disabled IS NULL OR disabled = 0)', params: [] });
    const w = where(conds);
    const order = orderBy(sort && Object.keys(sort).length ? sort : { nextRunAt: 'desc', lastRunAt: 'desc' });
    const withState = (r: JobRow) => {
      const job = toJob(r);
      return { ...job, state: computeJobState(job, now) };
    };
    if (!state) {
      const page = limit > 0 ? ` LIMIT ${Math.floor(limit)} OFFSET ${Math.floor(skip)}` : skip > 0 ? ` LIMIT -1 OFFSET ${Math.floor(skip)}` : '';
      const rows = this.all(`SELECT * FROM agenda_jobs${w.sql}${order}${page}`, w.params);
      const total = (this.db.prepare(`SELECT count(*) AS n FROM agenda_jobs${w.sql}`).get(...w.params) as { n: number }).n;
      return { jobs: rows.map(withState), total };
    }
    let jobs = this.all(`SELECT * FROM agenda_jobs${w.sql}${order}`, w.params)
      .map(withState)
      .filter((j) => (state === 'paused' ? j.disabled === true : j.state === state));
    const total = jobs.length;
    if (limit > 0) jobs = jobs.slice(skip, skip + limit);
    else if (skip > 0) jobs = jobs.slice(skip);
    return { jobs, total };
  }

  async getJobsOverview(): Promise<JobsOverview[]> {
    const now = new Date();
    const names = await this.getDistinctJobNames();
    return names.map((name) => {
      const o: JobsOverview = { name, total: 0, running: 0, scheduled: 0, queued: 0, completed: 0, failed: 0, repeating: 0, paused: 0 };
      for (const r of this.all('SELECT * FROM agenda_jobs WHERE name = ?', [name])) {
        const job = toJob(r);
        o.total++;
        o[computeJobState(job, now)]++;
        if (job.disabled === true) o.paused++;
      }
      return o;
    });
  }

  async getDistinctJobNames(): Promise<string[]> {
    return (this.db.prepare('SELECT DISTINCT name FROM agenda_jobs').all() as Array<{ name: string }>).map((r) => r.name);
  }

  async getQueueSize(): Promise<number> {
    return (this.db.prepare('SELECT count(*) AS n FROM agenda_jobs WHERE next_run_at < ?').get(Date.now()) as { n: number }).n;
  }

  /** The filter of remove/disable/enable; null when it selects nothing (no criteria). */
  private filterOf(options: RemoveJobsOptions): { sql: string; params: unknown[] } | null {
    const conds: Cond[] = [];
    if (options.id) conds.push({ sql: 'id = ?', params: [String(options.id)] });
    else if (Array.isArray(options.ids) && options.ids.length) conds.push({ sql: `id IN (${options.ids.map(() => '?').join(', ')})`, params: options.ids.map(String) });
    if (options.name && typeof options.name === 'string') conds.push({ sql: 'name = ?', params: [options.name] });
    else if (Array.isArray(options.names) && options.names.some((n) => typeof n === 'string')) {
      const valid = options.names.filter((n): n is string => typeof n === 'string');
      conds.push({ sql: `name IN (${valid.map(() => '?').join(', ')})`, params: valid });
    } else if (Array.isArray(options.notNames) && options.notNames.some((n) => typeof n === 'string')) {
      const valid = options.notNames.filter((n): n is string => typeof n === 'string');
      conds.push({ sql: `name NOT IN (${valid.map(() => '?').join(', ')})`, params: valid });
    }
    if (options.data !== undefined) conds.push(...dataConditions(options.data));
    return conds.length ? where(conds) : null;
  }

  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    const f = this.filterOf(options);
    if (!f) return 0;
    return this.db.prepare(`DELETE FROM agenda_jobs${f.sql}`).run(...f.params).changes;
  }

  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    const f = this.filterOf(options);
    if (!f) return 0;
    // Counts changed jobs only, as MongoDB's modifiedCount does.
    return this.db.prepare(`UPDATE agenda_jobs SET disabled = 1${f.sql} AND (disabled IS NULL OR disabled = 0)`).run(...f.params).changes;
  }

  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    const f = this.filterOf(options);
    if (!f) return 0;
    return this.db.prepare(`UPDATE agenda_jobs SET disabled = 0${f.sql} AND (disabled IS NULL OR disabled = 1)`).run(...f.params).changes;
  }

  async purgeAllJobs(): Promise<number> {
    return this.db.prepare('DELETE FROM agenda_jobs').run().changes;
  }

  async unlockJob(job: JobParameters): Promise<void> {
    if (!job._id) return;
    // Only jobs that are not being processed (nextRunAt set) are unlocked.
    this.db.prepare('UPDATE agenda_jobs SET locked_at = NULL WHERE id = ? AND next_run_at IS NOT NULL').run(String(job._id));
  }

  async unlockJobs(jobIds: Array<JobId | string>): Promise<void> {
    if (!jobIds.length) return;
    this.db.prepare(`UPDATE agenda_jobs SET locked_at = NULL WHERE id IN (${jobIds.map(() => '?').join(', ')})`).run(...jobIds.map(String));
  }

  async lockJob(job: JobParameters, options?: JobRepositoryOptions): Promise<JobParameters | undefined> {
    if (!job._id) return undefined;
    const r = this.one(
      `UPDATE agenda_jobs SET locked_at = ?, last_modified_by = ?
       WHERE id = ? AND name = ? AND locked_at IS NULL AND next_run_at IS ? AND (disabled IS NULL OR disabled = 0)
       RETURNING *`,
      [Date.now(), options?.lastModifiedBy ?? null, String(job._id), job.name, ms(job.nextRunAt)],
    );
    return r ? toJob(r) : undefined;
  }

  async getNextJobToRun(jobName: string, nextScanAt: Date, lockDeadline: Date, now?: Date, options?: JobRepositoryOptions): Promise<JobParameters | undefined> {
    const lockTime = (now ?? new Date()).getTime();
    // One statement: the pick and the lock are atomic across processes.
    const r = this.one(
      `UPDATE agenda_jobs SET locked_at = ?, last_modified_by = ?
       WHERE id = (
         SELECT id FROM agenda_jobs
         WHERE name = ? AND (disabled IS NULL OR disabled = 0)
           AND ((locked_at IS NULL AND next_run_at <= ?) OR locked_at <= ?)
         ${orderBy(this.sort)} LIMIT 1
       )
       RETURNING *`,
      [lockTime, options?.lastModifiedBy ?? null, jobName, nextScanAt.getTime(), lockDeadline.getTime()],
    );
    return r ? toJob(r) : undefined;
  }

  async saveJobState(job: JobParameters, options?: JobRepositoryOptions): Promise<void> {
    if (!job._id) throw new Error('Cannot save job state without job ID');
    const info = this.db
      .prepare(
        `UPDATE agenda_jobs SET locked_at = ?, next_run_at = ?, last_run_at = ?, progress = ?, fail_reason = ?, fail_count = ?,
           failed_at = ?, last_finished_at = ?, last_modified_by = ?
         WHERE id = ? AND name = ?`,
      )
      .run(
        ms(job.lockedAt),
        ms(job.nextRunAt),
        ms(job.lastRunAt),
        job.progress ?? null,
        job.failReason ?? null,
        job.failCount ?? null,
        ms(job.failedAt),
        ms(job.lastFinishedAt),
        options?.lastModifiedBy ?? null,
        String(job._id),
        job.name,
      );
    if (info.changes !== 1) throw new Error(`job ${job._id} (name: ${job.name}) cannot be updated in the database, maybe it does not exist anymore?`);
  }

  async saveJob<DATA = unknown>(job: JobParameters<DATA>, options?: JobRepositoryOptions): Promise<JobParameters<DATA>> {
    const { _id, unique, uniqueOpts, ...props } = job;
    const values = rowValues(props as JobParameters, options?.lastModifiedBy ?? null);
    const now = Date.now();
    const run = (): JobRow | null => {
      if (_id) {
        const current = this.byId(String(_id));
        if (!current || current.name !== props.name) return null;
        return this.update(String(_id), values)!;
      }
      if (props.type === 'single') {
        const existing = this.one(`SELECT * FROM agenda_jobs WHERE name = ? AND type = 'single'${orderBy({})} LIMIT 1`, [props.name]);
        if (!existing) return this.insert(values);
        // A nextRunAt in the past is only set when the job is created: it must not reset a schedule.
        const { next_run_at, ...rest } = values;
        const protect = next_run_at !== null && next_run_at <= now;
        return this.update(existing.id, protect ? rest : values)!;
      }
      if (unique) {
        const w = where([...uniqueConditions(unique as Record<string, unknown>), { sql: 'name = ?', params: [props.name] }]);
        const existing = this.one(`SELECT * FROM agenda_jobs${w.sql}${orderBy({})} LIMIT 1`, w.params);
        const debounce = uniqueOpts?.debounce;
        if (debounce) {
          if (existing) {
            const startedAt = existing.debounce_started_at ?? now;
            if (debounce.strategy === 'leading') {
              return this.update(existing.id, { ...values, next_run_at: existing.next_run_at, debounce_started_at: startedAt })!;
            }
            const force = debounce.maxWait !== undefined && debounce.maxWait > 0 && now - startedAt >= debounce.maxWait;
            return this.update(existing.id, { ...values, next_run_at: force ? now : now + debounce.delay, debounce_started_at: force ? null : startedAt })!;
          }
          if (debounce.strategy === 'leading') return this.insert({ ...values, debounce_started_at: now });
          return this.insert({ ...values, next_run_at: now + debounce.delay, debounce_started_at: now });
        }
        if (existing) return uniqueOpts?.insertOnly ? existing : this.update(existing.id, values)!;
        return this.insert(values);
      }
      return this.insert(values);
    };
    const row = this.db.transaction(run).immediate();
    if (!row) return job;
    return toJob(row) as JobParameters<DATA>;
  }
}

/** Agenda's backend over the store's SQLite database (polling: no notification channel). */
export class SqliteBackend implements AgendaBackend {
  readonly name = 'SQLite';
  readonly repository: SqliteJobRepository;
  readonly notificationChannel = undefined;
  /** The store owns the database: Agenda must not close it. */
  readonly ownsConnection = false;

  constructor(db: Database, opts: SqliteJobRepositoryOptions = {}) {
    this.repository = new SqliteJobRepository(db, opts);
  }

  async connect(): Promise<void> {
    await this.repository.connect();
  }

  async disconnect(): Promise<void> {}
}
