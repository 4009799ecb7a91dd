// Capture over cleartext HTTP/2 (h2c with prior knowledge, as a proxy sends upstream): POST
// /{uuid} on the service, driven by h2load, against a bare node:http2 server in paired rounds, the
// method of the HTTP/1.1 capture section (capture.ts): each window of the service right after an
// equal window of the bare server, so both see the machine as it was. The goal is the HTTP/1.1
// section's own ratio to its bare server: HTTP/2 should cost the service no more than it costs
// node:http2. The same check that every answered capture was stored.
import { firstAnswer, fmt, mergeMeasurements, loadErrors, quiet, startBare, startService, type BenchContext, type Goal, type Measurement, type Section, type SectionResult } from '../harness.js';
import { h2load, h2loadAvailable } from '../h2load.js';
import { GOALS as HTTP1_GOALS } from './capture.js';

const REQUEST_LIMIT = 10_000;
const MAX_EXPECTED_RPS = 50_000;
/** Streams in flight on each connection: a proxy multiplexes; BENCH_CONNECTIONS requests in flight in all. */
const STREAMS_PER_CONNECTION = 4;
/** HTTP/2's ratio may fall this far below HTTP/1.1's (the paired windows' own spread) and still pass. */
const RATIO_TOLERANCE = 0.9;

export const h2captureSection: Section = {
  name: 'h2capture',
  title: 'Capture over HTTP/2 (h2c): POST /{uuid} on the service vs a bare node:http2 server',
  async run(ctx: BenchContext): Promise<SectionResult> {
    if (!(await h2loadAvailable())) throw new Error('h2load is not installed: apt-get install nghttp2-client');
    const { settings } = ctx;
    const svc = await startService({}, settings.serviceNodeArgs);
    const paired = await startBare('http2');
    const runErrors: string[] = [];
    try {
      const headers = { 'content-type': 'application/json' };
      const streams = Math.min(STREAMS_PER_CONNECTION, settings.connections);
      const connections = Math.max(1, Math.round(settings.connections / streams));
      const shape = { connections, streams, body: settings.body, headers };

      const warm = await svc.createToken({ request_limit: REQUEST_LIMIT });
      await firstAnswer(`${svc.url}/${warm}`, { method: 'POST', headers, body: settings.body });
      if (settings.warmupSeconds > 0) {
        const w = await h2load({ ...shape, url: svc.url, paths: [`/${warm}`], seconds: settings.warmupSeconds });
        runErrors.push(...loadErrors('h2 capture warm-up', w).filter((e) => !e.includes('no 2xx')));
      }
      // A pool of tokens, each kept under half its request_limit, so stored == answered can be checked.
      const poolSize = Math.max(settings.connections, Math.ceil((settings.seconds * MAX_EXPECTED_RPS) / (REQUEST_LIMIT / 2)));
      ctx.log(`h2capture: creating ${poolSize} tokens`);
      const tokens: string[] = [];
      for (let i = 0; i < poolSize; i++) tokens.push(await svc.createToken({ request_limit: REQUEST_LIMIT }));
      if (settings.warmupSeconds > 0) await h2load({ ...shape, url: paired.url, paths: ['/'], seconds: settings.warmupSeconds });

      const windowS = Math.max(1, Math.round(settings.seconds / settings.rounds));
      ctx.log(`h2capture: measuring ${settings.rounds} x ${windowS} s, each after ${windowS} s of bare node:http2, ${connections} connections x ${streams} streams`);
      const captureRuns: Measurement[] = [];
      const bareRuns: Measurement[] = [];
      for (let round = 0; round < settings.rounds; round++) {
        await quiet(svc.proc.pid!);
        bareRuns.push(await h2load({ ...shape, url: paired.url, paths: ['/'], seconds: windowS, serverPid: paired.proc.pid }));
        captureRuns.push(await h2load({ ...shape, url: svc.url, paths: tokens.map((t) => `/${t}`), seconds: windowS, serverPid: svc.proc.pid }));
      }
      const m = mergeMeasurements(captureRuns);
      const pairedBare = mergeMeasurements(bareRuns);
      runErrors.push(...loadErrors('h2 capture', m), ...loadErrors('paired bare http2', pairedBare));

      await new Promise((r) => setTimeout(r, 500));
      const counts = await Promise.all(tokens.map((t) => svc.storedCount(t)));
      const stored = counts.reduce((a, b) => a + b, 0);
      const maxPerToken = Math.max(...counts);
      if (maxPerToken >= REQUEST_LIMIT) runErrors.push(`h2capture: a token reached its request_limit (${maxPerToken}); the stored count is inconclusive`);
      const lost = Math.max(0, m.answered2xx - stored);

      const code = await svc.stop();
      if (code !== 0) runErrors.push(`h2capture: the service exited with ${code} on SIGTERM\n${svc.output()}`);

      const ratio = pairedBare.rps > 0 ? m.rps / pairedBare.rps : null;
      const roundRatios = captureRuns.map((c, i) => (bareRuns[i]!.rps > 0 ? c.rps / bareRuns[i]!.rps : 0));
      const http1Ratio = ctx.results.get('capture')?.metrics.ratioToBare as number | null | undefined;
      const target = typeof http1Ratio === 'number' ? http1Ratio * RATIO_TOLERANCE : HTTP1_GOALS.minRatio;
      const goals: Goal[] = [
        {
          name: 'throughput vs bare node:http2 (paired rounds)',
          target: typeof http1Ratio === 'number' ? `>= ${target.toFixed(2)}x (${RATIO_TOLERANCE} x HTTP/1.1's ${http1Ratio.toFixed(2)}x in this run)` : `>= ${target}x (the HTTP/1.1 goal; its section did not run)`,
          actual: ratio === null ? 'n/a (no baseline)' : `${ratio.toFixed(2)}x`,
          pass: ratio !== null && ratio >= target,
        },
        { name: 'capture latency p99', target: `< ${HTTP1_GOALS.maxP99Ms} ms`, actual: fmt.ms(m.latencyMs.p99), pass: m.latencyMs.p99 < HTTP1_GOALS.maxP99Ms },
        { name: 'answered but not stored (lost)', target: '0', actual: String(lost), pass: lost === 0 },
      ];
      return {
        metrics: {
          measurement: m,
          ratioToBare: ratio,
          http1RatioToBare: http1Ratio ?? null,
          pairedBare,
          rounds: captureRuns.map((c, i) => ({ capture: c.rps, bare: bareRuns[i]!.rps, ratio: roundRatios[i] })),
          connections,
          streams,
          tokens: poolSize,
          stored,
          lost,
        },
        goals,
        lines: [
          `throughput  ${fmt.int(m.rps)} req/s (${fmt.int(m.answered2xx)} answered 2xx in ${m.durationS.toFixed(1)} s)` + (ratio === null ? '' : `, ${ratio.toFixed(2)}x bare node:http2`),
          `paired bare ${fmt.int(pairedBare.rps)} req/s in the same rounds; per round ${roundRatios.map((r) => r.toFixed(2) + 'x').join(' ')}`,
          `latency     ${fmt.latency(m)}`,
          `server CPU  ${fmt.cpu(m)}; bare node:http2 ${fmt.cpu(pairedBare)}`,
          `stored      ${fmt.int(stored)} over ${poolSize} tokens: lost ${lost}`,
        ],
        runErrors,
      };
    } finally {
      await svc.stop();
      await paired.stop();
    }
  },
};
