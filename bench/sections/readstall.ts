// Do reads stall captures? Capture throughput and p99 at 32 connections on a pool of
// small tokens of the big-token service (bench/big-token.ts), alone and while another client loops
// through the search section's queries on the big token and a DELETE of one tenth of it (a
// `slice<N>` query, 100,000 requests at the default size) runs. Alone and loaded windows alternate,
// an alone window on either side of each loaded one, so both see the machine alike; each loaded
// window deletes another slice, and lasts until its delete has finished. Goals: loaded p99 under
// 20 ms, loaded throughput at least 0.9x alone (bracketedRatio).
import http from 'node:http';
import { bigToken, type BigToken } from '../big-token.js';
import { ADMIN_API_KEY, fmt, load, loadErrors, mergeMeasurements, percentile, quiet, warmUp, type BenchContext, type Goal, type Measurement, type Section, type SectionResult } from '../harness.js';
import { deleteQuery, TIMED_QUERIES } from '../search-corpus.js';
import { listRequests, queryText } from './search.js';
import { addHistograms, describeHistogram, histogramDelta, scrapeHistograms, type Histogram } from '../scrape.js';

/** The service's histograms read around each window: its catch-ups hold the event loop (in-thread writer). */
const CATCH_UPS = 'capture_store_catchup_duration_seconds';
const COMMITS = 'capture_store_commit_duration_seconds';
/** A catch-up longer than this alone puts a capture waiting behind it near the p99 goal. */
const SLOW_CATCH_UP_S = 0.015;

export const READSTALL_GOALS = { maxP99Ms: 20, minThroughputRatio: 0.9 };

/**
 * What the loaded windows run (BENCH_READSTALL_LOAD, default both): `searches`, `delete`, or both,
 * comma-separated, to tell their costs apart. The goals are for both.
 */
export function readstallLoad(raw = process.env.BENCH_READSTALL_LOAD): { searches: boolean; delete: boolean } {
  const parts = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!parts.length) return { searches: true, delete: true };
  for (const p of parts) if (p !== 'searches' && p !== 'delete') throw new Error(`BENCH_READSTALL_LOAD=${JSON.stringify(raw)}: expected searches, delete or both`);
  return { searches: parts.includes('searches'), delete: parts.includes('delete') };
}
const ROUNDS = 3;
/** The request_limit of the small tokens that take the captures. */
const SMALL_LIMIT = 10_000;
/**
 * A loaded window lasts until its delete finished, at most this much longer than windowS.
 * Deletions give way to captures (a 25th of the time while captures saturate the event loop,
 * chunks.ts): 89,280 rows of the million-row token took 103-156 s under the capture load, and a
 * window cut before the delete ended would leave its tail to the next round's window alone.
 */
const MAX_EXTRA_MS = 300_000;
/** How often a loaded window that outlasts its length logs its delete's progress. */
const PROGRESS_EVERY_MS = 30_000;
/**
 * The shortest alone window. The loaded windows last as long as their delete (100-165 s each at a
 * million rows): with alone windows of 5 s, the alone rate (the ratio's denominator) was the noisy
 * half of the measurement, 9,800-13,100 captures/s across one run's rounds against 10,700-11,200
 * loaded.
 */
const ALONE_MIN_S = 20;

/**
 * Loaded throughput against alone: the captures the loaded windows took, over those the alone rate
 * on either side of each (the mean of the alone windows before and after it) would have taken in
 * the same time. The machine's speed drifts by more than the goal's margin over a loaded window's
 * minutes (alone windows of one run at 14,200-21,400 captures/s); against the alone windows before
 * them only, a run's loaded windows were compared with the machine as it had been. `alone` holds
 * one window more than `loaded`: alone[i] and alone[i + 1] bracket loaded[i].
 */
export function bracketedRatio(alone: Array<Pick<Measurement, 'rps'>>, loaded: Array<Pick<Measurement, 'rps' | 'durationS'>>): number {
  if (alone.length !== loaded.length + 1) throw new Error(`bracketedRatio: ${alone.length} alone windows around ${loaded.length} loaded ones`);
  let took = 0;
  let expected = 0;
  loaded.forEach((l, i) => {
    took += l.rps * l.durationS;
    expected += ((alone[i]!.rps + alone[i + 1]!.rps) / 2) * l.durationS;
  });
  return expected > 0 ? took / expected : 0;
}

/** The goals of the section from the merged alone and loaded measurements and bracketedRatio's ratio. */
export function readStallGoals(alone: Measurement, loaded: Measurement, ratio: number): Goal[] {
  return [
    {
      name: 'capture p99 while searches and a 100k delete run',
      target: `< ${READSTALL_GOALS.maxP99Ms} ms`,
      // p99 of every capture in the windows; the worst round's beside it.
      actual: `${fmt.ms(loaded.latencyMs.p99)} (alone ${fmt.ms(alone.latencyMs.p99)}; worst round ${fmt.ms(loaded.latencyMs.p99WorstWindow ?? loaded.latencyMs.p99)})`,
      pass: loaded.latencyMs.p99 < READSTALL_GOALS.maxP99Ms,
    },
    {
      name: 'capture throughput under those reads vs alone',
      target: `>= ${READSTALL_GOALS.minThroughputRatio}x`,
      actual: `${ratio.toFixed(2)}x (${fmt.int(loaded.rps)} vs ${fmt.int(alone.rps)} req/s, each loaded window against the alone ones around it)`,
      pass: ratio >= READSTALL_GOALS.minThroughputRatio,
    },
  ];
}

/** Runs the timed queries one after another until stopped; returns each answer's time. */
function searchLoop(fixture: BigToken, errors: string[]): { stop(): Promise<number[]> } {
  let running = true;
  const times: number[] = [];
  const done = (async () => {
    for (let i = 0; running; i++) {
      const q = TIMED_QUERIES[i % TIMED_QUERIES.length]!;
      const a = await listRequests(fixture.service.url, fixture.token, { query: queryText(q, fixture) });
      if (a.error) {
        errors.push(`readstall search ${q.form}: ${a.status} ${a.error}`);
        return;
      }
      times.push(a.ms);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return times;
    },
  };
}

/**
 * The DELETE of one slice, over node:http: fetch gives up waiting for the answer's headers after
 * 300 s (undici's headersTimeout), and under the capture load a delete may take longer (its
 * deletion gives way to the captures: chunks.ts).
 */
function deleteSlice(fixture: BigToken, slice: number): Promise<{ ms: number; status: number; error: string | null }> {
  const started = performance.now();
  const url = new URL(`${fixture.service.url}/token/${fixture.token}/requests?${new URLSearchParams({ query: deleteQuery(slice) })}`);
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'DELETE', headers: { Accept: 'application/json', 'Api-Key': ADMIN_API_KEY } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve({ ms: performance.now() - started, status, error: status >= 200 && status < 300 ? null : text.slice(0, 300) });
      });
    });
    req.on('error', (e) => resolve({ ms: performance.now() - started, status: 0, error: String(e) }));
    req.end();
  });
}

export const readstallSection: Section = {
  name: 'readstall',
  title: 'Reads vs captures: capture p99 and throughput alone, and while searches loop and a 100k-row delete runs on the big token',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const { settings } = ctx;
    const what = readstallLoad();
    const fixture = await bigToken(ctx);
    const svc = fixture.service;
    const pid = svc.proc.pid!;
    const runErrors = [...fixture.runErrors];
    const headers = { 'Content-Type': 'application/json' };

    // Small tokens take the captures, filled to their limit first so that every window trims alike
    // (each capture then also deletes its token's oldest). Filled during the first rounds instead,
    // the first alone window ran untrimmed (15,600 captures/s, p99 10 ms) against trimmed windows
    // after it (9,500-10,400/s, p99 44-47 ms), and its round's ratio compared the two states.
    const tokens: string[] = [];
    for (let i = 0; i < settings.connections; i++) tokens.push(await svc.createToken({ request_limit: SMALL_LIMIT }));
    const capture = { url: svc.url, connections: settings.connections, headers, requests: tokens.map((t) => ({ method: 'POST', path: `/${t}`, headers, body: settings.body })) };
    ctx.log(`readstall: filling ${tokens.length} tokens to their limit (${fmt.int(SMALL_LIMIT)} each)`);
    const fill = await load({ ...capture, seconds: 0, amount: tokens.length * (SMALL_LIMIT + 100) });
    runErrors.push(...loadErrors('readstall fill', fill));
    runErrors.push(...(await warmUp('readstall warm-up', { ...capture, seconds: settings.warmupSeconds })));

    const windowS = Math.max(2, Math.round(settings.seconds / 2));
    const aloneS = Math.max(windowS, ALONE_MIN_S);
    const alone: Measurement[] = [];
    const loaded: Measurement[] = [];
    const deletes: Array<{ slice: number; ms: number; deleted: number; windowS: number }> = [];
    const searchTimes: number[] = [];
    /** What the service's histograms saw in the alone and the loaded windows. */
    const seen = { alone: [] as Array<Record<string, Histogram>>, loaded: [] as Array<Record<string, Histogram>> };
    const watched = async <T>(into: Array<Record<string, Histogram>>, run: () => Promise<T>): Promise<T> => {
      const before = await scrapeHistograms(svc.url, [CATCH_UPS, COMMITS]);
      const result = await run();
      const after = await scrapeHistograms(svc.url, [CATCH_UPS, COMMITS]);
      into.push({ [CATCH_UPS]: histogramDelta(before[CATCH_UPS]!, after[CATCH_UPS]!), [COMMITS]: histogramDelta(before[COMMITS]!, after[COMMITS]!) });
      return result;
    };
    const under = [what.searches && 'searches', what.delete && 'a delete'].filter(Boolean).join(' and ');
    ctx.log(`readstall: ${ROUNDS} rounds of ${aloneS} s alone then ${windowS}+ s under ${under}, and ${aloneS} s alone after the last, ${settings.connections} connections`);
    const aloneWindow = async () => {
      await quiet(pid, 10_000, 300);
      alone.push(await watched(seen.alone, () => load({ ...capture, seconds: aloneS, serverPid: pid })));
      await quiet(pid, 10_000, 300);
    };
    for (let round = 0; round < ROUNDS; round++) {
      await aloneWindow();

      const slice = 9 - round;
      const before = await svc.storedCount(fixture.token);
      const stopWal = fixture.wal.watch('delete');
      const reads = what.searches ? searchLoop(fixture, runErrors) : { stop: async () => [] };
      const deleting = what.delete ? deleteSlice(fixture, slice) : Promise.resolve({ ms: 0, status: 200, error: null });
      const windowStart = performance.now();
      // One run of the load generator for the whole window, ended once its delete has finished (at
      // least windowS): a window of one-second runs reconnected every second and reported 1-5% more
      // time than it loaded, a cost the alone windows (one run each) did not pay (the same code on
      // the same machine: 0.82x that way, 0.98x in one run).
      const minimum = new Promise((resolve) => setTimeout(resolve, windowS * 1000));
      // A long delete's progress (its chunks take the token's counter down as they go).
      const progress = setInterval(() => {
        svc.storedCount(fixture.token).then(
          (n) => ctx.log(`readstall: round ${round + 1}: ${fmt.int(before - n)} deleted after ${Math.round((performance.now() - windowStart) / 1000)} s`),
          () => {},
        );
      }, PROGRESS_EVERY_MS);
      const window = await watched(seen.loaded, () => load({ ...capture, seconds: windowS + MAX_EXTRA_MS / 1000, until: Promise.all([minimum, deleting]), serverPid: pid })).finally(() => clearInterval(progress));
      const windowLength = (performance.now() - windowStart) / 1000;
      const d = await deleting;
      searchTimes.push(...(await reads.stop()));
      stopWal();
      loaded.push(window);
      const after = await svc.storedCount(fixture.token);
      if (d.error) runErrors.push(`readstall delete slice${slice}: ${d.status} ${d.error}`);
      deletes.push({ slice, ms: d.ms, deleted: before - after, windowS: windowLength });
      // A slice is about 9% of the seeded captures; a delete that removed far fewer measured nothing.
      if (what.delete && before - after < fixture.rows * 0.045) runErrors.push(`readstall: DELETE ?query=${deleteQuery(slice)} removed ${before - after} requests, about ${Math.round(fixture.rows * 0.09)} expected`);
      ctx.log(
        `readstall: round ${round + 1}: alone ${fmt.int(alone.at(-1)!.rps)} req/s p99 ${fmt.ms(alone.at(-1)!.latencyMs.p99)}; loaded ${fmt.int(loaded.at(-1)!.rps)} req/s p99 ${fmt.ms(loaded.at(-1)!.latencyMs.p99)}; deleted ${before - after} in ${Math.round(d.ms)} ms`,
      );
      // Where the server's time went, per thread (busy share of a core): alone, then loaded.
      // With what each read from the disk, past the OS cache (a million requests' file may not fit it).
      const threads = (m: Measurement) => (m.serverThreads ?? []).map((t) => `${t.tid}:${t.busy.toFixed(2)}${t.diskReadMBps ? ` (${t.diskReadMBps.toFixed(1)} MB/s read)` : ''}`).join(' ');
      // The same round's catch-ups, alone and loaded: after the first delete, the alone windows' catch-ups cost more a row.
      const held = (k: 'alone' | 'loaded', m: Measurement) => describeHistogram(seen[k].at(-1)![CATCH_UPS]!, m.durationS, SLOW_CATCH_UP_S);
      ctx.log(`readstall: round ${round + 1}: catch-ups alone ${held('alone', alone.at(-1)!)}; loaded ${held('loaded', loaded.at(-1)!)}`);
      ctx.log(`readstall: round ${round + 1}: threads alone ${threads(alone.at(-1)!)}; loaded ${threads(window)}`);
    }
    await aloneWindow();
    ctx.log(`readstall: alone after the last round ${fmt.int(alone.at(-1)!.rps)} req/s p99 ${fmt.ms(alone.at(-1)!.latencyMs.p99)}`);
    const ratio = bracketedRatio(alone, loaded);
    const roundRatios = loaded.map((l, i) => bracketedRatio([alone[i]!, alone[i + 1]!], [l]));
    const a = mergeMeasurements(alone);
    const l = mergeMeasurements(loaded);
    runErrors.push(...loadErrors('readstall alone', a), ...loadErrors('readstall loaded', l));
    const stored = await svc.storedCount(fixture.token);
    fixture.sampleRss('after the readstall section', stored);
    const sortedSearch = [...searchTimes].sort((x, y) => x - y);
    const histograms = (k: 'alone' | 'loaded') => ({ catchUps: addHistograms(seen[k].map((h) => h[CATCH_UPS]!)), commits: addHistograms(seen[k].map((h) => h[COMMITS]!)) });
    const held = { alone: histograms('alone'), loaded: histograms('loaded') };
    return {
      metrics: {
        alone: a,
        loaded: l,
        ratio,
        rounds: loaded.map((l, i) => ({ aloneBefore: alone[i]!.rps, aloneAfter: alone[i + 1]!.rps, loaded: l.rps, ratio: roundRatios[i], aloneP99: alone[i]!.latencyMs.p99, loadedP99: l.latencyMs.p99 })),
        deletes,
        searchesDuringLoad: { count: searchTimes.length, medianMs: percentile(sortedSearch, 50), p95Ms: percentile(sortedSearch, 95), maxMs: sortedSearch.at(-1) ?? null },
        serviceHistograms: held,
        bigTokenStoredAfter: stored,
      },
      goals: readStallGoals(a, l, ratio),
      lines: [
        `alone   ${fmt.int(a.rps)} req/s, ${fmt.latency(a)}; server ${fmt.cpu(a)}`,
        `loaded  ${fmt.int(l.rps)} req/s, ${fmt.latency(l)}; server ${fmt.cpu(l)}`,
        `rounds  ${roundRatios.map((r) => `${r.toFixed(2)}x`).join(' ')} (loaded against the alone windows around it); alone windows ${alone.map((m) => fmt.int(m.rps)).join(', ')} req/s; load average ${a.loadavg1m.toFixed(2)} at start`,
        `deletes ${deletes.map((x) => `slice${x.slice}: ${fmt.int(x.deleted)} rows in ${fmt.ms(x.ms)}`).join('; ')} (loaded windows ${deletes.map((x) => x.windowS.toFixed(1)).join(', ')} s)`,
        `searches during the loaded windows: ${searchTimes.length}, median ${fmt.ms(percentile(sortedSearch, 50))}, p95 ${fmt.ms(percentile(sortedSearch, 95))}, max ${fmt.ms(sortedSearch.at(-1) ?? NaN)}`,
        `big token now holds ${fmt.int(stored)} requests`,
        // The service's own account of what held the event loop (in-thread writer): its catch-ups.
        `catch-ups alone  ${describeHistogram(held.alone.catchUps, a.durationS, SLOW_CATCH_UP_S)}; commits ${describeHistogram(held.alone.commits, a.durationS, SLOW_CATCH_UP_S)}`,
        `catch-ups loaded ${describeHistogram(held.loaded.catchUps, l.durationS, SLOW_CATCH_UP_S)}; commits ${describeHistogram(held.loaded.commits, l.durationS, SLOW_CATCH_UP_S)}`,
        ...(what.searches && what.delete ? [] : [`loaded windows ran ${under} only (BENCH_READSTALL_LOAD): the goals are for both`]),
      ],
      runErrors,
    };
  },
};
