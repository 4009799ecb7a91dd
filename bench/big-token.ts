// The one expensive fixture of the benchmark: the service with a token holding BENCH_SEARCH_ROWS
// captures (default 1,000,000; MAX_REQUEST_LIMIT raised to allow it). Seeded once per run by
// whichever of the `search`, `readstall` and `memory` sections asks first, kept (data folder and
// process) for the others, stopped by closeBigToken() at the end of the run.
//
// Seeding goes through the front door: autocannon POSTs the corpus of bench/search-corpus.ts at
// full speed (32 connections), so rows, indexes, counters and the WAL are what real captures
// produce. Writing the SQLite file with the store's code before start-up would skip exactly the
// capture path whose indexes the searches depend on; HTTP seeding measured 15-25k captures/s on
// this 2-core machine (40-70 s for a million), which fits the run. Timing starts only once the
// token's counter shows every capture and the service has been idle for a second (its catch-up
// and any background indexing done).
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_API_KEY, firstAnswer, load, loadErrors, procMemMiB, quiet, startService, type BenchContext, type Measurement, type Service } from './harness.js';
import { CORPUS_SIZE, corpusEntry, type SeedWindow } from './search-corpus.js';

/** The highest request_limit the service allows in this run, and the big token's limit. */
export const BIG_REQUEST_LIMIT = 1_000_000;

/** Captures seeded into the big token (BENCH_SEARCH_ROWS, default 1,000,000). */
export function searchRows(): number {
  const raw = process.env.BENCH_SEARCH_ROWS;
  if (raw === undefined || raw === '') return BIG_REQUEST_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < CORPUS_SIZE || n > BIG_REQUEST_LIMIT) {
    throw new Error(`BENCH_SEARCH_ROWS=${JSON.stringify(raw)}: expected a whole number from ${CORPUS_SIZE} to ${BIG_REQUEST_LIMIT}`);
  }
  return n;
}

/** Largest WAL file size seen while a phase ran, polled every 50 ms. */
export class WalWatch {
  readonly maxBytesByPhase: Record<string, number> = {};
  constructor(private readonly dataDir: string) {}

  /** Current total size of the `-wal` files in the data folder (and one level down). */
  sizeNow(): number {
    let total = 0;
    const visit = (dir: string, depth: number) => {
      let names: fs.Dirent[];
      try {
        names = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const d of names) {
        const p = path.join(dir, d.name);
        if (d.isDirectory() && depth > 0) visit(p, depth - 1);
        else if (d.isFile() && d.name.endsWith('-wal')) {
          try {
            total += fs.statSync(p).size;
          } catch {
            // checkpointed away between readdir and stat
          }
        }
      }
    };
    visit(this.dataDir, 1);
    return total;
  }

  /** Starts polling under `phase`; call the returned function to stop. */
  watch(phase: string): () => void {
    const sample = () => {
      this.maxBytesByPhase[phase] = Math.max(this.maxBytesByPhase[phase] ?? 0, this.sizeNow());
    };
    sample();
    const timer = setInterval(sample, 50);
    return () => {
      clearInterval(timer);
      sample();
    };
  }

  get maxBytes(): number {
    return Math.max(0, ...Object.values(this.maxBytesByPhase));
  }
}

export interface RssSample {
  when: string;
  mib: number;
  /** Captures the big token held at the time. */
  stored: number;
}

export interface BigToken {
  service: Service;
  token: string;
  rows: number;
  /** created_at of the token's oldest and newest request (second precision, as the API gives it). */
  seed: SeedWindow;
  seedSeconds: number;
  seeding: Measurement;
  /** From the end of seeding until the counter showed every capture and the service was idle. */
  settleMs: number;
  wal: WalWatch;
  rss: RssSample[];
  /** Problems of the seeding (non-2xx, missing captures): every section using it reports them. */
  runErrors: string[];
  /** Reads VmRSS now and keeps it under `when`. */
  sampleRss(when: string, stored: number): RssSample;
}

let pending: Promise<BigToken> | null = null;

/** The seeded service, seeding it on first use. */
export function bigToken(ctx: BenchContext): Promise<BigToken> {
  pending ??= seedBigToken(ctx);
  return pending;
}

/** Stops the service and removes its data folder (no-op when never seeded). */
export async function closeBigToken(): Promise<void> {
  const p = pending;
  pending = null;
  if (!p) return;
  try {
    await (await p).service.stop();
  } catch {
    // seeding failed; the section that asked reported it
  }
}

async function waitForCount(service: Service, token: string, rows: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await service.storedCount(token);
    if (n >= rows || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** When the token's captures were stored, from its oldest and newest request (whole seconds). */
async function storedWindow(service: Service, token: string): Promise<SeedWindow> {
  const at = async (sorting: string) => {
    const res = await fetch(`${service.url}/token/${token}/requests?sorting=${sorting}&per_page=1`, { headers: { 'Api-Key': ADMIN_API_KEY } });
    const page = (await res.json()) as { data?: Array<{ created_at?: string }> };
    const t = Date.parse(`${page.data?.[0]?.created_at ?? ''}Z`.replace(' ', 'T'));
    if (!Number.isFinite(t)) throw new Error(`GET /token/${token}/requests?sorting=${sorting} gave no created_at`);
    return t;
  };
  return { startedAt: await at('oldest'), finishedAt: (await at('newest')) + 1000 };
}

async function seedBigToken(ctx: BenchContext): Promise<BigToken> {
  const rows = searchRows();
  const service = await startService({ MAX_REQUEST_LIMIT: String(BIG_REQUEST_LIMIT) }, ctx.settings.serviceNodeArgs);
  try {
    const token = await service.createToken({ request_limit: BIG_REQUEST_LIMIT });
    const wal = new WalWatch(service.dataDir);
    const runErrors: string[] = [];
    const requests = Array.from({ length: CORPUS_SIZE }, (_, i) => {
      const e = corpusEntry(i);
      return { method: e.method, path: `/${token}${e.pathSuffix}`, headers: e.headers, ...(e.body === undefined ? {} : { body: e.body }) };
    });
    // A fresh process answers its first capture slowly: not part of the seeding.
    const warm = await service.createToken();
    await firstAnswer(`${service.url}/${warm}`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    ctx.log(`big token: seeding ${rows.toLocaleString('en-US')} captures over HTTP (${ctx.settings.connections} connections)`);
    const stopWatch = wal.watch('seeding');
    const started = Date.now();
    // Pipelined (4 per connection): the same captures, with less of the load generator's own cost.
    const seeding = await load({ url: service.url, seconds: 0, amount: rows, connections: ctx.settings.connections, pipelining: 4, requests, serverPid: service.proc.pid });
    const seedSeconds = (Date.now() - started) / 1000;
    runErrors.push(...loadErrors('big token seeding', seeding));
    const settleStart = performance.now();
    // Every answered capture must be counted; pipelined runs can stop a few requests short of
    // `amount`, and those are sent again (a capture answered but never counted is an error).
    let answered = seeding.answered2xx;
    let stored = await waitForCount(service, token, Math.min(rows, answered), 60_000);
    for (let attempt = 0; stored < rows && stored >= Math.min(rows, answered) && attempt < 3; attempt++) {
      const more = await load({ url: service.url, seconds: 0, amount: rows - stored, connections: 1, requests });
      runErrors.push(...loadErrors('big token top-up', more));
      answered += more.answered2xx;
      stored = await waitForCount(service, token, Math.min(rows, answered), 60_000);
    }
    if (stored < Math.min(rows, answered)) runErrors.push(`big token: ${stored} captures counted of ${Math.min(rows, answered)} answered, 60 s after seeding`);
    else if (stored < rows) runErrors.push(`big token: only ${stored} of ${rows} captures stored`);
    await quiet(service.proc.pid!, 180_000, 1000);
    const settleMs = performance.now() - settleStart;
    stopWatch();
    stored = await service.storedCount(token);
    const seed = await storedWindow(service, token);
    ctx.log(
      `big token: ${stored.toLocaleString('en-US')} stored in ${seedSeconds.toFixed(1)} s (${Math.round(seeding.rps)} captures/s), ` +
        `settled ${Math.round(settleMs)} ms later; WAL peak ${(wal.maxBytes / 2 ** 20).toFixed(0)} MiB`,
    );
    const rss: RssSample[] = [];
    const fixture: BigToken = {
      service,
      token,
      rows,
      seed,
      seedSeconds,
      seeding,
      settleMs,
      wal,
      rss,
      runErrors,
      sampleRss(when, n) {
        const s = { when, mib: procMemMiB(service.proc.pid), stored: n };
        rss.push(s);
        return s;
      },
    };
    fixture.sampleRss('seeded and idle', stored);
    return fixture;
  } catch (e) {
    await service.stop();
    throw e;
  }
}
