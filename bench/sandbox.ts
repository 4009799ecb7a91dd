// Cost of one javascript-action script run on the QuickJS worker pool, measured from the main
// thread (queue, message round trip, fresh runtime + context, prelude, script). `sandboxSection`
// is a bench section (append it to SECTIONS in bench/capture.ts); benchSandbox() returns the
// numbers; `tsx bench/sandbox.ts` prints them on its own (SANDBOX_BENCH_RUNS sets the runs per case).
import { pathToFileURL } from 'node:url';
import { createSandboxPool, type HostCalls, type SandboxJob } from '../core/sandbox/index.js';
import type { BenchContext, Section, SectionResult } from './harness.js';

const host: HostCalls = {
  fetch: async () => ({ status: 200, headers: {}, body: '' }),
  globalGet: async () => null,
  globalSet: async () => {},
};

/** A captured request of a realistic size (headers, query, a small JSON body). */
const request = {
  uuid: '9f1c3c1e-8a55-4d7e-9a7b-3f2f3a0b6c11',
  method: 'POST',
  url: 'http://localhost:8084/9f1c3c1e-8a55-4d7e-9a7b-3f2f3a0b6c11?n=21&tag=a',
  ip: '127.0.0.1',
  query: { n: '21', tag: 'a' },
  headers: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`x-header-${i}`, [`value-${i}`]])),
  content: JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}`, group: i % 3 })) }),
  files: [],
};

export interface SandboxCase {
  name: string;
  script: string;
  /** Runs measured (after warm-up); heavy cases use fewer. */
  runs?: number;
}

export const SANDBOX_CASES: SandboxCase[] = [
  { name: 'plain', script: `set('m', get('request.method')); echo('ok')` },
  { name: 'respond', script: `const n = Number(request.query.n); set('double', n * 2); respond('double is ' + (n * 2), 201, ['X-Js: on'])` },
  { name: 'lodash (_.last)', script: `const _ = require('lodash'); echo(_.last([1, 2, 3]))` },
  {
    name: 'lodash (get, map, groupBy)',
    script: `const _ = require('lodash'); const body = JSON.parse(request.content);
      echo(_.get(body, 'items[0].name'), _.map(body.items, 'id').length, Object.keys(_.groupBy(body.items, 'group')).length)`,
  },
  { name: 'lodash (chain: whole library)', script: `const _ = require('lodash'); echo(_([3, 1, 2]).sortBy().map((x) => x * 2).value())`, runs: 40 },
  { name: 'dayjs', script: `const dayjs = require('dayjs'); echo(dayjs('2024-01-02T03:04:05Z').add(1, 'day').toISOString())` },
  { name: 'moment', script: `const moment = require('moment'); echo(moment.utc('2024-01-02T03:04:05Z').format('YYYY-MM-DD'))`, runs: 60 },
  { name: 'jsonpath', script: `const jp = require('jsonpath'); echo(jp.query(JSON.parse(request.content), '$.items[?(@.group==1)].id').length)`, runs: 40 },
  { name: 'cheerio', script: `const cheerio = require('cheerio'); const $ = cheerio.load('<ul><li>a</li><li>b</li></ul>'); echo($('li').length)`, runs: 20 },
  { name: 'faker', script: `const { faker } = require('@faker-js/faker'); echo(typeof faker.person.fullName())`, runs: 20 },
];

export interface CaseTiming {
  name: string;
  runs: number;
  medianMs: number;
  p90Ms: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function benchSandboxCases(runs = 200, cases: SandboxCase[] = SANDBOX_CASES, log: (msg: string) => void = () => {}): Promise<CaseTiming[]> {
  const pool = createSandboxPool({ size: 1 });
  try {
    await pool.ready();
    const out: CaseTiming[] = [];
    for (const c of cases) {
      const job: SandboxJob = { script: c.script, variables: { 'request.method': 'POST' }, request, timeoutMs: 30_000 };
      const n = Math.min(runs, c.runs ?? runs);
      for (let i = 0; i < Math.max(3, Math.ceil(n / 10)); i++) {
        const r = await pool.run(job, host); // warm-up (the first one may generate a library bundle)
        if (r.error) throw new Error(`sandbox bench case ${c.name} failed: ${r.error}`);
      }
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        const r = await pool.run(job, host);
        ms.push(performance.now() - t);
        if (r.error) throw new Error(`sandbox bench case ${c.name} failed: ${r.error}`);
      }
      const timing = { name: c.name, runs: n, medianMs: median(ms), p90Ms: quantile(ms, 0.9) };
      log(`sandbox: ${c.name}: median ${timing.medianMs.toFixed(2)} ms over ${n} runs`);
      out.push(timing);
    }
    return out;
  } finally {
    await pool.close();
  }
}

/** The two headline numbers (kept for callers of the first version of this bench). */
export async function benchSandbox(iterations = 200): Promise<{ plainMs: number; lodashMs: number }> {
  const cases = SANDBOX_CASES.filter((c) => c.name === 'plain' || c.name === 'lodash (get, map, groupBy)');
  const [plain, lodash] = await benchSandboxCases(iterations, cases);
  return { plainMs: plain!.medianMs, lodashMs: lodash!.medianMs };
}

const GOALS: Array<{ name: string; caseName: string; maxMs: number }> = [
  { name: 'javascript action, no require (median)', caseName: 'plain', maxMs: 5 },
  { name: 'javascript action with lodash (median)', caseName: 'lodash (get, map, groupBy)', maxMs: 15 },
];

export const sandboxSection: Section = {
  name: 'sandbox',
  title: 'JavaScript sandbox: added time of one javascript action (QuickJS worker pool, fresh runtime per run)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const runs = Number(process.env.SANDBOX_BENCH_RUNS ?? 200) || 200;
    const timings = await benchSandboxCases(runs, SANDBOX_CASES, ctx.log);
    const byName = new Map(timings.map((t) => [t.name, t]));
    return {
      metrics: { runs, cases: timings },
      goals: GOALS.map((g) => {
        const t = byName.get(g.caseName);
        return { name: g.name, target: `< ${g.maxMs} ms`, actual: t ? `${t.medianMs.toFixed(2)} ms` : 'n/a', pass: !!t && t.medianMs < g.maxMs };
      }),
      lines: timings.map((t) => `${t.name.padEnd(32)} median ${t.medianMs.toFixed(2).padStart(7)} ms   p90 ${t.p90Ms.toFixed(2).padStart(7)} ms   (${t.runs} runs)`),
      runErrors: [],
    };
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const runs = Number(process.env.SANDBOX_BENCH_RUNS ?? 200) || 200;
  benchSandboxCases(runs).then(
    (timings) => {
      for (const t of timings) console.log(`${t.name.padEnd(32)} median ${t.medianMs.toFixed(2).padStart(7)} ms   p90 ${t.p90Ms.toFixed(2).padStart(7)} ms   (${t.runs} runs)`);
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
