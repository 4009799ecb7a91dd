// Capture throughput and latency of the real service (`node dist/core/main.js`, SQLite, group
// commit), compared with the bare baseline, and a check that every answered capture was stored.
//
// The ratio is measured in paired rounds: the measured run is split into BENCH_ROUNDS windows,
// each in a round with an equal window of a bare node:http server started for the pairing. On a
// shared 2-core machine the speed drifts by tens of percent within a minute; compared with one
// bare run made before it, the same build scored anywhere from 0.44x to 0.63x. Paired windows see
// the same machine. Before each window every server is let finish the work it deferred (the
// service's catch-up and WAL checkpoint, at most a few hundred ms of the window before), which
// would otherwise run during the next window and slow it. The ratio to the standalone
// baseline section is reported beside it. With BENCH_PREVIOUS_BUILD set, the previous build's
// service is measured in the same rounds too, next to this build's window, and the run reports
// this build's throughput as a ratio to it.
//
// CPU per capture is compared with a minimal capture server (bench/minimal-capture-server.ts:
// node:http + better-sqlite3, the service's row and key layout, one transaction per event-loop
// turn, answering after commit) in the same rounds: what the service spends beyond it is the cost
// of its own work per capture. The same rounds measure the service's CPU per capture on two more
// kinds of token: search-indexed ones (request_limit above SEARCH_INDEX_ABOVE: every capture also
// gets search keys and full-text entries) and ones at their request_limit (every capture trims one).
import {
  firstAnswer,
  fmt,
  load,
  loadErrors,
  mergeMeasurements,
  quiet,
  startBare,
  startMinimal,
  startService,
  warmUp,
  type BenchContext,
  type Goal,
  type LoadOptions,
  type Measurement,
  type Section,
  type SectionResult,
} from '../harness.js';
import type { BareMetrics } from './bare.js';
import { addHistograms, histogramDelta, parseCounter, parseHistogram, scrapeText, type Histogram } from '../scrape.js';
import { roundsInterval, type Interval } from '../paired-ratio.js';

/** The service's catch-up transactions and the rows they took: read around the plain windows. */
const CATCH_UPS = 'capture_store_catchup_duration_seconds';
const CATCH_UP_ROWS = 'capture_store_catchup_rows_total';

/** The most a token keeps (`request_limit` tops out at 10000); older captures are trimmed. */
const REQUEST_LIMIT = 10_000;
/** Generous upper bound on capture throughput on the benchmark machine, to size the token pool. */
const MAX_EXPECTED_RPS = 50_000;

/** minRatioToPrevious: "unchanged", allowing for the few percent two runs of one build differ by. */
/** maxCpuVsMinimal: the service's CPU per capture at most this multiple of the minimal server's. */
/** maxSearchVsPlain: CPU per capture on a search-indexed token at most this multiple of a plain token's. */
/** maxTrimUs: CPU per capture on a token at its request_limit at most this many µs above a plain token's. */
export const GOALS = { minRatio: 0.5, maxP99Ms: 20, minRatioToPrevious: 0.95, maxCpuVsMinimal: 1.25, maxSearchVsPlain: 2, maxTrimUs: 2 };

/** A search-indexed token's request_limit: above SEARCH_INDEX_ABOVE (10,000 by default). */
const SEARCH_REQUEST_LIMIT = 2 * REQUEST_LIMIT;
/** Tokens at their request_limit, and that limit: each capture trims one request. */
const TRIM_TOKENS = 100;
const TRIM_LIMIT = 100;
/**
 * Captures beyond the trim tokens' limits before measuring: enough for the trimmed rows' sweep to
 * run too (it starts once TRIMMED_BACKLOG, 10,000, wait), as it does on a busy service.
 */
const TRIM_FILL_EXTRA = 20_000;

export const captureSection: Section = {
  name: 'capture',
  title: 'Capture: POST /{uuid} on the service (SQLite, group commit)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const { settings } = ctx;
    const svc = await startService({ MAX_REQUEST_LIMIT: String(SEARCH_REQUEST_LIMIT) }, settings.serviceNodeArgs);
    const paired = await startBare();
    const minimal = await startMinimal();
    const previous = settings.previousBuild ? await startService({}, settings.serviceNodeArgs, settings.previousBuild) : null;
    const runErrors: string[] = [];
    try {
      const headers = { 'Content-Type': 'application/json' };

      // Warm-up goes to its own token, so the verified tokens below see only the measured run.
      // The service finishes starting some parts after it listens: wait for one capture first.
      const warm = await svc.createToken({ request_limit: REQUEST_LIMIT });
      const firstMs = await firstAnswer(`${svc.url}/${warm}`, { method: 'POST', headers, body: settings.body });
      ctx.log(`capture: first capture answered in ${Math.round(firstMs)} ms; warm-up ${settings.warmupSeconds} s`);
      runErrors.push(...(await warmUp('capture warm-up', { url: svc.url, path: `/${warm}`, connections: settings.connections, body: settings.body, headers, seconds: settings.warmupSeconds })));

      // Verifying "stored == answered": a token keeps at most REQUEST_LIMIT requests and trims the
      // oldest beyond that, so one token cannot hold a 10 s run. Instead the measured run spreads
      // its captures round-robin over a pool of fresh tokens: every autocannon connection cycles
      // through the same list of capture URLs, so each token gets about answered / pool (give or
      // take one per connection). The pool is sized so a token gets at most half its limit even
      // at MAX_EXPECTED_RPS; nothing is trimmed, and the sum of the tokens' `total` is exactly
      // what was stored. If a token still reaches its limit the check is inconclusive and the run
      // is reported as failed rather than trusted.
      const poolSize = Math.max(settings.connections, Math.ceil((settings.seconds * MAX_EXPECTED_RPS) / (REQUEST_LIMIT / 2)));
      ctx.log(`capture: creating ${poolSize} tokens`);
      const tokens: string[] = [];
      for (let i = 0; i < poolSize; i++) tokens.push(await svc.createToken({ request_limit: REQUEST_LIMIT }));
      // The same number of search-indexed tokens, a capture each in turn; and tokens at their limit.
      const searchTokens: string[] = [];
      for (let i = 0; i < poolSize; i++) searchTokens.push(await svc.createToken({ request_limit: SEARCH_REQUEST_LIMIT }));
      const trimTokens: string[] = [];
      for (let i = 0; i < TRIM_TOKENS; i++) trimTokens.push(await svc.createToken({ request_limit: TRIM_LIMIT }));
      const fill = await load({
        url: svc.url,
        connections: settings.connections,
        seconds: 0,
        amount: TRIM_TOKENS * TRIM_LIMIT + TRIM_FILL_EXTRA,
        headers,
        requests: trimTokens.map((uuid) => ({ method: 'POST', path: `/${uuid}`, headers, body: settings.body })),
      });
      runErrors.push(...loadErrors('trim tokens fill', fill));
      await quiet(svc.proc.pid!);
      const filled = await Promise.all(trimTokens.map((t) => svc.storedCount(t)));
      if (filled.some((n) => n !== TRIM_LIMIT)) runErrors.push(`capture: the trim tokens hold ${Math.min(...filled)}-${Math.max(...filled)} requests after the fill, not their limit ${TRIM_LIMIT}`);
      const previousTokens: string[] = [];
      if (previous) {
        ctx.log(`capture: previous build from ${settings.previousBuild}, warm-up and ${poolSize} tokens`);
        const previousWarm = await previous.createToken({ request_limit: REQUEST_LIMIT });
        runErrors.push(...(await warmUp('previous build warm-up', { url: previous.url, path: `/${previousWarm}`, connections: settings.connections, body: settings.body, headers, seconds: settings.warmupSeconds })));
        for (let i = 0; i < poolSize; i++) previousTokens.push(await previous.createToken({ request_limit: REQUEST_LIMIT }));
      }
      const captureLoad = (target: typeof svc, pool: string[], seconds: number): LoadOptions => ({
        url: target.url,
        connections: settings.connections,
        seconds,
        headers,
        serverPid: target.proc.pid,
        settle: true,
        requests: pool.map((uuid) => ({ method: 'POST', path: `/${uuid}`, headers, body: settings.body })),
      });

      // Every window's CPU includes the work its captures left for later (settle).
      const bareLoad = { url: paired.url, path: '/', connections: settings.connections, body: settings.body, settle: true };
      runErrors.push(...(await warmUp('paired bare warm-up', { ...bareLoad, seconds: settings.warmupSeconds })));
      // The minimal server takes any first path segment as a token: the same URLs as the service.
      const minimalLoad = () => ({ url: minimal.url, connections: settings.connections, headers, settle: true, requests: tokens.map((uuid) => ({ method: 'POST', path: `/${uuid}`, headers, body: settings.body })) });
      runErrors.push(...(await warmUp('minimal server warm-up', { url: minimal.url, path: `/${tokens[0]}`, connections: settings.connections, body: settings.body, headers, seconds: settings.warmupSeconds })));
      const windowS = Math.max(1, Math.round(settings.seconds / settings.rounds));
      ctx.log(
        `capture: measuring ${settings.rounds} rounds of ${windowS}-s windows (search-indexed, at limit, plain, ${previous ? 'previous build, ' : ''}minimal, bare node:http; reversed in odd rounds), ${settings.connections} connections, ${poolSize} tokens round-robin`,
      );
      const captureRuns: Measurement[] = [];
      const bareRuns: Measurement[] = [];
      const previousRuns: Measurement[] = [];
      const minimalRuns: Measurement[] = [];
      const searchRuns: Measurement[] = [];
      const trimRuns: Measurement[] = [];
      const catchUps: Histogram[] = [];
      let caughtRows = 0;
      // Each round runs every window once, in this order in even rounds and in the reverse order in
      // odd ones, so that drift within a round weighs alike on both sides of each comparison over
      // two rounds. The plain window, which every CPU figure is compared with, stands between the
      // windows of the two goals decided by the smallest margins: tokens at their limit (trimming
      // adds a few µs to ~40) and the minimal server. Two and three windows apart (the order
      // before), a run's rounds gave trimming figures from -10 to +32 µs; adjacent, -6 to +11.
      // The previous build's window lies next to this build's, and bare node:http's (the throughput
      // pairing) two windows from it.
      const windows: Array<() => Promise<void>> = [
        async () => void searchRuns.push(await load(captureLoad(svc, searchTokens, windowS))),
        async () => void trimRuns.push(await load(captureLoad(svc, trimTokens, windowS))),
        async () => {
          const before = await scrapeText(svc.url);
          captureRuns.push(await load(captureLoad(svc, tokens, windowS)));
          // The catch-ups of the window (and of its captures, to the quiet after it): how many rows
          // a step takes under this load, which its cost per capture depends on (docs/storage.md).
          await quiet(svc.proc.pid!);
          const after = await scrapeText(svc.url);
          catchUps.push(histogramDelta(parseHistogram(before, CATCH_UPS), parseHistogram(after, CATCH_UPS)));
          caughtRows += parseCounter(after, CATCH_UP_ROWS) - parseCounter(before, CATCH_UP_ROWS);
        },
        ...(previous ? [async () => void previousRuns.push(await load(captureLoad(previous, previousTokens, windowS)))] : []),
        async () => void minimalRuns.push(await load({ ...minimalLoad(), seconds: windowS, serverPid: minimal.proc.pid })),
        async () => void bareRuns.push(await load({ ...bareLoad, seconds: windowS, serverPid: paired.proc.pid })),
      ];
      // Every server quiet before each window, not only the service: a window shares the two cores
      // with whatever another server still does.
      const servers = [svc, paired, minimal, ...(previous ? [previous] : [])];
      for (let round = 0; round < settings.rounds; round++) {
        for (const w of round % 2 ? [...windows].reverse() : windows) {
          for (const server of servers) await quiet(server.proc.pid!);
          await w();
        }
      }
      const m = mergeMeasurements(captureRuns);
      const pairedBare = mergeMeasurements(bareRuns);
      runErrors.push(...loadErrors('capture', m), ...loadErrors('paired bare', pairedBare));
      const previousM = previous ? mergeMeasurements(previousRuns) : null;
      const minimalM = mergeMeasurements(minimalRuns);
      runErrors.push(...loadErrors('minimal server', minimalM));
      const searchM = mergeMeasurements(searchRuns);
      const trimM = mergeMeasurements(trimRuns);
      runErrors.push(...loadErrors('search-indexed tokens', searchM), ...loadErrors('tokens at their limit', trimM));
      if (previousM) runErrors.push(...loadErrors('previous build', previousM));

      // Captures still in flight when autocannon stopped may commit after it returned.
      await new Promise((r) => setTimeout(r, 500));
      const counts = await Promise.all(tokens.map((t) => svc.storedCount(t)));
      const stored = counts.reduce((a, b) => a + b, 0);
      const maxPerToken = Math.max(...counts);
      if (maxPerToken >= REQUEST_LIMIT) runErrors.push(`capture: a token reached its request_limit (${maxPerToken}); the stored count is inconclusive, enlarge the token pool`);
      // Answered but not stored: must be 0. Stored but not counted as answered: requests in flight
      // when the run stopped (autocannon drops their answers), at most one per connection.
      const lost = Math.max(0, m.answered2xx - stored);
      const unanswered = Math.max(0, stored - m.answered2xx);
      const inFlight = settings.connections * settings.rounds;
      if (unanswered > inFlight) runErrors.push(`capture: ${unanswered} more captures stored than answered, more than could be in flight (${inFlight})`);

      if (previous) {
        const previousCode = await previous.stop();
        if (previousCode !== 0) runErrors.push(`capture: the previous build's service exited with ${previousCode} on SIGTERM\n${previous.output()}`);
      }
      const code = await svc.stop();
      if (code !== 0) runErrors.push(`capture: the service exited with ${code} on SIGTERM\n${svc.output()}`);

      const bare = ctx.results.get('bare')?.metrics as BareMetrics | undefined;
      const ratio = pairedBare.rps > 0 ? m.rps / pairedBare.rps : null;
      const roundRatios = captureRuns.map((c, i) => (bareRuns[i]!.rps > 0 ? c.rps / bareRuns[i]!.rps : 0));
      const standaloneRatio = bare && bare.measurement.rps > 0 ? m.rps / bare.measurement.rps : null;
      const bareCpu = pairedBare.serverCpuUsPerRequest;
      const cpuRatio = bareCpu && m.serverCpuUsPerRequest !== null ? m.serverCpuUsPerRequest / bareCpu : null;
      const minimalCpu = minimalM.serverCpuUsPerRequest;
      const cpuVsMinimal = minimalCpu && m.serverCpuUsPerRequest !== null ? m.serverCpuUsPerRequest / minimalCpu : null;
      const minimalCpuVsBare = minimalCpu && bareCpu ? minimalCpu / bareCpu : null;
      const plainCpu = m.serverCpuUsPerRequest;
      const searchVsPlain = plainCpu && searchM.serverCpuUsPerRequest !== null ? searchM.serverCpuUsPerRequest / plainCpu : null;
      const trimUs = plainCpu !== null && trimM.serverCpuUsPerRequest !== null ? trimM.serverCpuUsPerRequest - plainCpu : null;
      // Each figure again over resampled rounds: whether the run decides its goal (paired-ratio.ts).
      const rounds = captureRuns.length;
      const intervals = {
        cpuVsMinimal: roundsInterval(rounds, (picks) => cpuOver(captureRuns, picks) / cpuOver(minimalRuns, picks)),
        searchVsPlain: roundsInterval(rounds, (picks) => cpuOver(searchRuns, picks) / cpuOver(captureRuns, picks)),
        trimUs: roundsInterval(rounds, (picks) => cpuOver(trimRuns, picks) - cpuOver(captureRuns, picks)),
      };
      const vsPrevious = previousM && previousM.rps > 0 ? m.rps / previousM.rps : null;
      const steps = addHistograms(catchUps);
      const catchUp = { steps: steps.count, seconds: steps.sum, rows: caughtRows, rowsPerStep: steps.count ? caughtRows / steps.count : null };
      const previousRoundRatios = previousRuns.map((p, i) => (p.rps > 0 ? captureRuns[i]!.rps / p.rps : 0));
      const goals: Goal[] = [
        {
          name: 'throughput vs bare node:http (paired rounds)',
          target: `>= ${GOALS.minRatio}x`,
          actual: ratio === null ? 'n/a (no baseline)' : `${ratio.toFixed(2)}x`,
          pass: ratio !== null && ratio >= GOALS.minRatio,
        },
        { name: 'capture latency p99', target: `< ${GOALS.maxP99Ms} ms`, actual: fmt.ms(m.latencyMs.p99), pass: m.latencyMs.p99 < GOALS.maxP99Ms },
        { name: 'answered but not stored (lost)', target: '0', actual: String(lost), pass: lost === 0 },
      ];
      goals.push({
        name: 'CPU per capture vs the minimal capture server (paired rounds)',
        target: `<= ${GOALS.maxCpuVsMinimal}x`,
        actual: cpuVsMinimal === null ? 'n/a (no CPU figures)' : `${cpuVsMinimal.toFixed(2)}x`,
        pass: cpuVsMinimal !== null && cpuVsMinimal <= GOALS.maxCpuVsMinimal,
      });
      goals.push({
        name: 'CPU per capture, search-indexed token vs plain (paired rounds)',
        target: `< ${GOALS.maxSearchVsPlain}x`,
        actual: searchVsPlain === null ? 'n/a (no CPU figures)' : `${searchVsPlain.toFixed(2)}x`,
        pass: searchVsPlain !== null && searchVsPlain < GOALS.maxSearchVsPlain,
      });
      goals.push({
        name: 'CPU per capture added by trimming (token at its request_limit)',
        target: `< ${GOALS.maxTrimUs} µs`,
        actual: trimUs === null ? 'n/a (no CPU figures)' : `${trimUs.toFixed(1)} µs`,
        pass: trimUs !== null && trimUs < GOALS.maxTrimUs,
      });
      if (previousM) {
        goals.push({
          name: 'throughput vs the previous build (paired rounds)',
          target: `>= ${GOALS.minRatioToPrevious}x`,
          actual: vsPrevious === null ? 'n/a' : `${vsPrevious.toFixed(2)}x`,
          pass: vsPrevious !== null && vsPrevious >= GOALS.minRatioToPrevious,
        });
      }
      const metrics: Record<string, unknown> = {
        measurement: m satisfies Measurement,
        ratioToBare: ratio,
        pairedBare,
        rounds: captureRuns.map((c, i) => ({ capture: c.rps, bare: bareRuns[i]!.rps, ratio: roundRatios[i] })),
        ratioToStandaloneBare: standaloneRatio,
        cpuPerRequestVsBare: cpuRatio,
        firstCaptureMs: firstMs,
        tokens: poolSize,
        stored,
        lost,
        storedButUnanswered: unanswered,
        maxStoredPerToken: maxPerToken,
        minimal: { measurement: minimalM, cpuVsMinimal, cpuVsMinimalInterval: intervals.cpuVsMinimal, minimalCpuVsBare },
        searchIndexed: { measurement: searchM, cpuVsPlain: searchVsPlain, cpuVsPlainInterval: intervals.searchVsPlain },
        atLimit: { measurement: trimM, addedCpuUs: trimUs, addedCpuUsInterval: intervals.trimUs, tokens: TRIM_TOKENS, requestLimit: TRIM_LIMIT },
        catchUp,
        previousBuild: previousM ? { build: settings.previousBuild, measurement: previousM, ratio: vsPrevious, rounds: previousRoundRatios } : null,
      };
      return {
        metrics,
        goals,
        lines: [
          `throughput  ${fmt.int(m.rps)} req/s (${fmt.int(m.answered2xx)} answered 2xx in ${m.durationS} s)` + (ratio === null ? '' : `, ${ratio.toFixed(2)}x bare`),
          `paired bare ${fmt.int(pairedBare.rps)} req/s in the same rounds; per round ${roundRatios.map((r) => r.toFixed(2) + 'x').join(' ')}` +
            (standaloneRatio === null ? '' : `; ${standaloneRatio.toFixed(2)}x the standalone baseline above`),
          ...(previousM
            ? [
                `previous    ${fmt.int(previousM.rps)} req/s in the same rounds (${settings.previousBuild}); this build ${vsPrevious!.toFixed(2)}x it, per round ${previousRoundRatios.map((r) => r.toFixed(2) + 'x').join(' ')}; its CPU ${fmt.cpu(previousM)}`,
              ]
            : []),
          `minimal     ${fmt.int(minimalM.rps)} req/s in the same rounds; its CPU ${fmt.cpu(minimalM)}` +
            (minimalCpuVsBare === null ? '' : `, ${minimalCpuVsBare.toFixed(2)}x bare's`) +
            (cpuVsMinimal === null ? '' : `; the service's CPU per capture ${cpuVsMinimal.toFixed(2)}x the minimal server's`),
          `CPU/capture bare ${us(bareCpu)}, minimal ${us(minimalCpu)}, service ${us(plainCpu)} (plain token), ${us(searchM.serverCpuUsPerRequest)} (search-indexed), ${us(trimM.serverCpuUsPerRequest)} (at its request_limit)`,
          `CPU ratios  service/minimal ${ratioText(cpuVsMinimal)} (goal <= ${GOALS.maxCpuVsMinimal}x); search-indexed/plain ${ratioText(searchVsPlain)} (goal < ${GOALS.maxSearchVsPlain}x); trimming adds ${trimUs === null ? 'n/a' : trimUs.toFixed(1) + ' µs'} (goal < ${GOALS.maxTrimUs} µs)`,
          `95% range   service/minimal ${intervalText(intervals.cpuVsMinimal, 2, 'x')}; search-indexed/plain ${intervalText(intervals.searchVsPlain, 2, 'x')}; trimming ${intervalText(intervals.trimUs, 1, ' µs')} (rounds resampled: a goal whose bound falls inside is not decided by this run)`,
          `per round   service/minimal ${captureRuns.map((c, i) => ratioText(cpuOf(c) / cpuOf(minimalRuns[i]!))).join(' ')}; search/plain ${searchRuns.map((c, i) => ratioText(cpuOf(c) / cpuOf(captureRuns[i]!))).join(' ')}; trim µs ${trimRuns.map((c, i) => (cpuOf(c) - cpuOf(captureRuns[i]!)).toFixed(1)).join(' ')}`,
          `search-idx  ${fmt.int(searchM.rps)} req/s; threads ${fmt.threads(searchM)}`,
          `at limit    ${fmt.int(trimM.rps)} req/s; threads ${fmt.threads(trimM)}`,
          `catch-ups   ${catchUp.steps ? `${fmt.int(catchUp.steps)} steps in the plain windows, ${fmt.int(catchUp.rowsPerStep!)} rows and ${((catchUp.seconds / catchUp.steps) * 1000).toFixed(1)} ms a step, ${((catchUp.seconds * 1e6) / Math.max(1, catchUp.rows)).toFixed(1)} µs a row` : 'none seen'}`,
          `latency     ${fmt.latency(m)}`,
          `server CPU  ${fmt.cpu(m)}` + (cpuRatio === null ? '' : `, ${cpuRatio.toFixed(1)}x bare's`) + `; load average ${m.loadavg1m.toFixed(2)} at start`,
          `threads     ${fmt.threads(m)}`,
          `cold start  the first capture (right after /healthz and POST /token) took ${fmt.ms(firstMs)}`,
          `stored      ${fmt.int(stored)} over ${poolSize} tokens (max ${fmt.int(maxPerToken)} per token): lost ${lost}, stored but unanswered at stop ${unanswered}`,
        ],
        runErrors,
      };
    } finally {
      await svc.stop();
      await paired.stop();
      await minimal.stop();
      await previous?.stop();
    }
  },
};

const us = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(1)} µs`);
const ratioText = (v: number | null) => (v === null || !Number.isFinite(v) ? 'n/a' : `${v.toFixed(2)}x`);
const cpuOf = (m: Measurement) => m.serverCpuUsPerRequest ?? NaN;
/** CPU per request over the picked rounds' windows (a round picked twice counts twice), as mergeMeasurements weighs them. */
function cpuOver(runs: Measurement[], picks: number[]): number {
  let cpu = 0;
  let completed = 0;
  for (const i of picks) {
    cpu += cpuOf(runs[i]!) * runs[i]!.completed;
    completed += runs[i]!.completed;
  }
  return completed > 0 ? cpu / completed : NaN;
}
const intervalText = (i: Interval | null, digits: number, unit: string) => (i === null ? 'n/a' : `${i.low.toFixed(digits)} to ${i.high.toFixed(digits)}${unit}`);
