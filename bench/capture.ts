// `npm run bench`: capture throughput and latency against a bare node:http server on the same
// machine, in one run. Prints a report and writes the full JSON to bench/results/.
//
// The report is a list of sections; each is one object { name, title, run(ctx) } (see
// bench/harness.ts for Section and the helpers: startService, startBare, load). To add one
// (action-chain overhead, sandbox cost...), write bench/sections/<name>.ts and append it to
// SECTIONS below; a section can read earlier results through ctx.results.get(name).
//
// Exit code: 0 when the run worked, even if a goal was missed (it is a report); 1 when the run
// itself failed (a server did not start, a section threw, non-2xx answers or socket errors).
//
// Settings (environment): BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32),
// BENCH_ROUNDS (5: the capture run is measured in that many windows, each paired with a bare one;
// h2capture takes at least 10, so that its ratios come with a range),
// BENCH_SERVICE_NODE_ARGS (extra node flags for the service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p"),
// BENCH_SERVICE_ENV (settings for every service started, e.g. "SQLITE_WRITER=worker SQLITE_WRITER_NICE=0"),
// BENCH_ONLY (comma-separated section names to run, e.g. "capture,h2capture"; the capture section pairs
// its own bare server, and only its ratio to the standalone baseline is then n/a). The chain and sandbox sections send single sequential
// requests instead: BENCH_OVERHEAD_REQUESTS (500) measured and BENCH_OVERHEAD_WARMUP (100) per token.
// BENCH_SEARCH_ROWS (1000000): requests in the big token of the search, readstall and memory
// sections (e.g. 50000 while developing). BENCH_STARTUP_BASELINE (ms): a previous start-up median,
// printed beside today's. BENCH_READSTALL_LOAD (searches,delete): what the readstall section's
// loaded windows run, to tell the two costs apart.
import { loadSettings, type BenchContext, type Section, type SectionResult } from './harness.js';
import { addSection, newReport, renderText, writeJson } from './report.js';
import { bareSection } from './sections/bare.js';
import { captureSection } from './sections/capture.js';
import { h2captureSection } from './sections/h2capture.js';
import { chainSection } from './sections/chain.js';
import { sandboxSection } from './sections/sandbox.js';
import { startupSection } from './sections/startup.js';
import { waitSection } from './sections/wait.js';
import { searchSection } from './sections/search.js';
import { readstallSection } from './sections/readstall.js';
import { memorySection } from './sections/memory.js';
import { closeBigToken } from './big-token.js';

const SECTIONS: Section[] = [
  bareSection, // must come first: the others compare with it
  captureSection,
  h2captureSection, // the same over cleartext HTTP/2 with h2load, against a bare node:http2 server
  chainSection, // added latency of a 5-action text/logic chain vs a plain token
  sandboxSection, // added latency of one javascript action, plain and with lodash
  startupSection, // npm start to /healthz after install
  waitSection, // 1,000 concurrent waiters on one token woken by one capture
  // On one service whose token holds BENCH_SEARCH_ROWS requests (bench/big-token.ts),
  // seeded once by the first of the three that runs and stopped by memory (or at the end).
  searchSection, // each documented query form and page 900, timed
  readstallSection, // capture p99 and throughput alone vs under searches and a 100k-row delete
  memorySection, // RSS idle, after 50 x 10 MB uploads, with the big token; largest WAL
];

async function main(): Promise<number> {
  const settings = loadSettings();
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const ctx: BenchContext = {
    settings,
    results: new Map<string, SectionResult>(),
    log: (msg) => process.stderr.write(`[bench] ${msg}\n`),
  };
  const report = newReport(settings);
  for (const section of SECTIONS) {
    if (only.length && !only.includes(section.name)) continue;
    const started = performance.now();
    let result: SectionResult | null = null;
    let error: unknown = null;
    try {
      result = await section.run(ctx);
      ctx.results.set(section.name, result);
    } catch (e) {
      error = e;
      ctx.log(`${section.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    addSection(report, section, (performance.now() - started) / 1000, result, error);
  }
  await closeBigToken();
  report.finishedAt = new Date().toISOString();
  process.stdout.write(renderText(report));
  const file = writeJson(report);
  process.stdout.write(`Full report: ${file}\n`);
  return report.runOk ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
