// How long `npm start` takes, after `npm ci` built the service, until /healthz answers
// (goal < 3 s on this 2-core machine). Runs scripts/start.mjs, which is what `npm start` runs (npm
// itself adds its own start-up, a few hundred ms, on top), on a fresh data folder each time: the
// first start creates the database and runs every migration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, ROOT, serviceEnv, startChild, type BenchContext, type Section, type SectionResult } from '../harness.js';

const STARTS = 3;
const GOAL_MS = 3000;

export const startupSection: Section = {
  name: 'startup',
  title: 'Start-up: `npm start` (scripts/start.mjs) to the first 200 from /healthz, fresh data folder',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const times: number[] = [];
    const runErrors: string[] = [];
    for (let i = 0; i < STARTS; i++) {
      const port = await freePort();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-bench-start-'));
      const started = performance.now();
      try {
        const child = await startChild({ script: path.join(ROOT, 'scripts/start.mjs'), env: serviceEnv(port, dataDir), readyPath: '/healthz', port });
        times.push(performance.now() - started);
        if (/building/.test(child.output())) runErrors.push('startup: the service was rebuilt before starting (dist/ was stale): run `npm run build` first');
        await child.stop();
      } catch (e) {
        runErrors.push(`startup: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
      ctx.log(`startup: start ${i + 1} answered /healthz after ${Math.round(times.at(-1) ?? NaN)} ms`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    // Start-up before and after a change: the earlier median, given by hand.
    const baseline = Number(process.env.BENCH_STARTUP_BASELINE ?? '');
    const lines = [`${STARTS} starts: ${times.map((t) => Math.round(t)).join(', ')} ms (median ${Math.round(median)} ms)`];
    if (baseline > 0) lines.push(`before (BENCH_STARTUP_BASELINE): ${Math.round(baseline)} ms; now ${Math.round(median)} ms (${median >= baseline ? '+' : ''}${Math.round(((median - baseline) / baseline) * 100)}%)`);
    return {
      metrics: { starts_ms: times, median_ms: median, ...(baseline > 0 ? { baseline_ms: baseline } : {}) },
      goals: [{ name: 'start-up to /healthz (median)', target: `< ${GOAL_MS} ms`, actual: `${Math.round(median)} ms`, pass: median < GOAL_MS }],
      lines,
      runErrors,
    };
  },
};
