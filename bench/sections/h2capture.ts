// Capture over cleartext HTTP/2 (h2c with prior knowledge, as a proxy sends upstream): POST
// /{uuid} on the service against a bare node:http2 server, in paired rounds (the method of the
// HTTP/1.1 capture section, capture.ts: each window of the service right after an equal window of
// its bare server, so both see the machine as it was).
//
// The generator is h2load for both protocols, and each round also measures HTTP/1.1 (h2load
// --h1: the service against the bare node:http server), so the two ratios come from the same
// generator in the same minutes. autocannon's ratio (the capture section) is not comparable: it
// spends a core's share of its own per request, which slows the bare server most. The goal: HTTP/2
// costs the service no more, relative to node:http2, than HTTP/1.1 costs it relative to node:http,
// judged round by round (paired-ratio.ts): at least MIN_ROUNDS rounds, the protocols' order
// alternating between rounds so that neither always runs while the machine is quieter, and the
// median round's HTTP/2 ratio / HTTP/1.1 ratio decides. The same check that every answered capture
// was stored.
import { firstAnswer, fmt, loadErrors, mergeMeasurements, quiet, startBare, startService, type BenchContext, type Child, type Goal, type Measurement, type Section, type SectionResult } from '../harness.js';
import { h2load, h2loadAvailable, type H2LoadOptions } from '../h2load.js';
import { compareRatios, fmtSpread, roundRatio, spread } from '../paired-ratio.js';
import { GOALS as HTTP1_GOALS } from './capture.js';

const REQUEST_LIMIT = 10_000;
const MAX_EXPECTED_RPS = 50_000;
/** HTTP/2 streams in flight on each connection, as a proxy multiplexes; BENCH_CONNECTIONS requests in flight in all. */
const STREAMS_PER_CONNECTION = 4;
/** HTTP/2's ratio may fall this far below HTTP/1.1's (the paired windows' own spread) and still pass. */
const RATIO_TOLERANCE = 0.9;
/** Rounds whatever BENCH_ROUNDS says: one run must give each ratio a median and a range. */
const MIN_ROUNDS = 10;
/**
 * Shortest window: under a load of 10-17 on 2 cores, 1 s windows gave per-round ratios from 0.08x
 * to 2.6x (a window of the bare server starved, the next not); 2 s ones stay within about 2x.
 */
const MIN_WINDOW_S = 2;

type Protocol = 'h1' | 'h2';
const PROTOCOLS: Protocol[] = ['h1', 'h2'];

export const h2captureSection: Section = {
  name: 'h2capture',
  title: 'Capture over HTTP/2 (h2c) vs bare node:http2, beside HTTP/1.1 vs bare node:http, all driven by h2load',
  async run(ctx: BenchContext): Promise<SectionResult> {
    if (!(await h2loadAvailable())) throw new Error('h2load is not installed: apt-get install nghttp2-client');
    const { settings } = ctx;
    const svc = await startService({}, settings.serviceNodeArgs);
    const bare: Record<Protocol, Child | null> = { h1: null, h2: null };
    const runErrors: string[] = [];
    try {
      bare.h1 = await startBare('http1');
      bare.h2 = await startBare('http2');
      const headers = { 'content-type': 'application/json' };
      const streams = Math.min(STREAMS_PER_CONNECTION, settings.connections);
      const shape: Record<Protocol, Pick<H2LoadOptions, 'protocol' | 'connections' | 'streams' | 'body' | 'headers'>> = {
        h1: { protocol: 'h1', connections: settings.connections, streams: 1, body: settings.body, headers },
        h2: { protocol: 'h2', connections: Math.max(1, Math.round(settings.connections / streams)), streams, body: settings.body, headers },
      };

      const warm = await svc.createToken({ request_limit: REQUEST_LIMIT });
      await firstAnswer(`${svc.url}/${warm}`, { method: 'POST', headers, body: settings.body });
      // A pool of tokens, each kept under half its request_limit, so stored == answered can be checked.
      const poolSize = Math.max(settings.connections, Math.ceil((2 * settings.seconds * MAX_EXPECTED_RPS) / (REQUEST_LIMIT / 2)));
      ctx.log(`h2capture: creating ${poolSize} tokens`);
      const tokens: string[] = [];
      for (let i = 0; i < poolSize; i++) tokens.push(await svc.createToken({ request_limit: REQUEST_LIMIT }));
      const paths = tokens.map((t) => `/${t}`);
      if (settings.warmupSeconds > 0) {
        for (const p of PROTOCOLS) {
          await h2load({ ...shape[p], url: svc.url, paths: [`/${warm}`], seconds: settings.warmupSeconds });
          await h2load({ ...shape[p], url: bare[p]!.url, paths: ['/'], seconds: settings.warmupSeconds });
        }
      }

      const rounds = Math.max(MIN_ROUNDS, settings.rounds);
      const windowS = Math.max(MIN_WINDOW_S, Math.round(settings.seconds / rounds));
      ctx.log(
        `h2capture: measuring ${rounds} rounds of 4 x ${windowS} s (bare node:http, service HTTP/1.1, bare node:http2, service HTTP/2; the protocols' order alternating); ` +
          `HTTP/1.1 ${shape.h1.connections} connections, HTTP/2 ${shape.h2.connections} connections x ${streams} streams`,
      );
      const runs: Record<Protocol, { capture: Measurement[]; bare: Measurement[] }> = { h1: { capture: [], bare: [] }, h2: { capture: [], bare: [] } };
      for (let round = 0; round < rounds; round++) {
        for (const p of round % 2 ? [...PROTOCOLS].reverse() : PROTOCOLS) {
          await quiet(svc.proc.pid!);
          runs[p].bare.push(await h2load({ ...shape[p], url: bare[p]!.url, paths: ['/'], seconds: windowS, serverPid: bare[p]!.proc.pid }));
          runs[p].capture.push(await h2load({ ...shape[p], url: svc.url, paths, seconds: windowS, serverPid: svc.proc.pid }));
        }
      }
      const merged = Object.fromEntries(PROTOCOLS.map((p) => [p, { capture: mergeMeasurements(runs[p].capture), bare: mergeMeasurements(runs[p].bare) }])) as Record<Protocol, { capture: Measurement; bare: Measurement }>;
      for (const p of PROTOCOLS) runErrors.push(...loadErrors(`${p} capture`, merged[p].capture), ...loadErrors(`${p} bare`, merged[p].bare));

      await new Promise((r) => setTimeout(r, 500));
      const counts = await Promise.all(tokens.map((t) => svc.storedCount(t)));
      const stored = counts.reduce((a, b) => a + b, 0);
      const maxPerToken = Math.max(...counts);
      if (maxPerToken >= REQUEST_LIMIT) runErrors.push(`h2capture: a token reached its request_limit (${maxPerToken}); the stored count is inconclusive`);
      const answered = merged.h1.capture.answered2xx + merged.h2.capture.answered2xx;
      const lost = Math.max(0, answered - stored);

      const code = await svc.stop();
      if (code !== 0) runErrors.push(`h2capture: the service exited with ${code} on SIGTERM\n${svc.output()}`);

      const ratio = (p: Protocol) => (merged[p].bare.rps > 0 ? merged[p].capture.rps / merged[p].bare.rps : null);
      const roundRatios = (p: Protocol) => runs[p].capture.map((c, i) => roundRatio(c.rps, runs[p].bare[i]!.rps));
      // CPU per request, bare / service: what the service spends beyond its bare server, less
      // moved by the machine's load than rates are.
      const cpuRatio = (p: Protocol) => {
        const { capture, bare: b } = merged[p];
        return capture.serverCpuUsPerRequest && b.serverCpuUsPerRequest !== null ? b.serverCpuUsPerRequest / capture.serverCpuUsPerRequest : null;
      };
      const roundCpuRatios = (p: Protocol) => runs[p].capture.map((c, i) => roundRatio(runs[p].bare[i]!.serverCpuUsPerRequest ?? NaN, c.serverCpuUsPerRequest ?? NaN));
      const byRound = compareRatios(roundRatios('h2'), roundRatios('h1'), RATIO_TOLERANCE);
      // The same comparison by CPU per request: not the goal, but what changes least with the load.
      const byRoundCpu = compareRatios(roundCpuRatios('h2'), roundCpuRatios('h1'), RATIO_TOLERANCE);
      const h1Ratio = ratio('h1');
      const h2Ratio = ratio('h2');
      const m = merged.h2.capture;
      const goals: Goal[] = [
        {
          name: 'HTTP/2 throughput vs bare node:http2, over HTTP/1.1 vs bare node:http, median of paired rounds (h2load)',
          target: `>= ${RATIO_TOLERANCE.toFixed(2)}`,
          actual: `${fmtSpread(byRound.quotient, '')}: HTTP/2 ${fmtSpread(byRound.tested)}, HTTP/1.1 ${fmtSpread(byRound.reference)}; met in ${byRound.roundsMet} of ${rounds} rounds`,
          pass: byRound.met,
        },
        { name: 'HTTP/2 capture latency p99', target: `< ${HTTP1_GOALS.maxP99Ms} ms`, actual: fmt.ms(m.latencyMs.p99), pass: m.latencyMs.p99 < HTTP1_GOALS.maxP99Ms },
        { name: 'answered but not stored (lost)', target: '0', actual: String(lost), pass: lost === 0 },
      ];
      const us = (x: number | null) => (x === null ? 'n/a' : Math.round(x) + ' µs');
      const line = (p: Protocol, label: string, bareLabel: string) => {
        const r = ratio(p);
        const cpu = cpuRatio(p);
        const { capture, bare: b } = merged[p];
        const pad = ' '.repeat(label.length);
        return [
          `${label} ${fmt.int(capture.rps)} req/s, ${r === null ? 'n/a' : r.toFixed(2) + 'x'} ${bareLabel} (${fmt.int(b.rps)} req/s); per round ${fmtSpread(spread(roundRatios(p)))}: ${roundRatios(p)
            .map((x) => x.toFixed(2))
            .join(' ')}`,
          `${pad} latency ${fmt.latency(capture)}`,
          `${pad} server CPU ${us(capture.serverCpuUsPerRequest)} per request, bare ${us(b.serverCpuUsPerRequest)}: ${cpu === null ? 'n/a' : cpu.toFixed(2) + 'x'} by CPU, per round ${fmtSpread(spread(roundCpuRatios(p)))}`,
        ];
      };
      const h1Cpu = cpuRatio('h1');
      const h2Cpu = cpuRatio('h2');
      return {
        metrics: {
          ratioToBare: h2Ratio,
          http1RatioToBare: h1Ratio,
          cpuRatioToBare: { http2: h2Cpu, http1: h1Cpu },
          byRound,
          byRoundCpu,
          http2: merged.h2,
          http1: merged.h1,
          rounds: PROTOCOLS.map((p) => ({ protocol: p, ratios: roundRatios(p) })),
          windowSeconds: windowS,
          tokens: poolSize,
          stored,
          lost,
        },
        goals,
        lines: [
          ...line('h2', 'HTTP/2  ', 'bare node:http2'),
          ...line('h1', 'HTTP/1.1', 'bare node:http'),
          `goal     HTTP/2 ratio / HTTP/1.1 ratio per round ${fmtSpread(byRound.quotient, '')} (median, range), >= ${RATIO_TOLERANCE} in ${byRound.roundsMet} of ${rounds} rounds: ` +
            `${byRound.met ? 'met' : 'NOT met'}; whole run ${h2Ratio === null || h1Ratio === null ? 'n/a' : (h2Ratio / h1Ratio).toFixed(2)}`,
          `         by CPU per request: per round ${fmtSpread(byRoundCpu.quotient, '')}, >= ${RATIO_TOLERANCE} in ${byRoundCpu.roundsMet} of ${rounds} rounds; whole run ${h2Cpu === null || h1Cpu === null ? 'n/a' : (h2Cpu / h1Cpu).toFixed(2)}`,
          `stored   ${fmt.int(stored)} over ${poolSize} tokens (max ${fmt.int(maxPerToken)} per token): lost ${lost}; load average ${m.loadavg1m.toFixed(2)} at start`,
        ],
        runErrors,
      };
    } finally {
      await svc.stop();
      await bare.h1?.stop();
      await bare.h2?.stop();
    }
  },
};
