// What 1,000 callers of GET /token/{id}/requests/wait on one token cost. They all wait on
// one bus subscription; one matching capture must answer every one of them (goal: p99 wake-up
// under 1 s), and the service's memory is read before, while and after they wait.
import { fmt, percentile, procMemMiB, startService, type BenchContext, type Section, type SectionResult } from '../harness.js';

const WAITERS = 1000;
const GOAL_P99_MS = 1000;

/** The service's own count of waiting callers, from /metrics. */
async function waiting(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^capture_realtime_subscribers\{transport="wait"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

export const waitSection: Section = {
  name: 'wait',
  title: `Wait for a match: ${WAITERS} concurrent GET /token/{id}/requests/wait on one token, woken by one capture`,
  async run(ctx: BenchContext): Promise<SectionResult> {
    const runErrors: string[] = [];
    const service = await startService();
    try {
      const token = await service.createToken();
      const pid = service.proc.pid;
      const rssBefore = procMemMiB(pid);
      const query = encodeURIComponent('method:POST AND content:wake');
      let woken = 0;
      const answeredAt: number[] = [];
      const calls = Array.from({ length: WAITERS }, async () => {
        const res = await fetch(`${service.url}/token/${token}/requests/wait?query=${query}&timeout=60`);
        await res.arrayBuffer();
        answeredAt.push(performance.now());
        if (res.status === 200) woken++;
        return res.status;
      });
      const deadline = Date.now() + 30_000;
      while ((await waiting(service.url)) < WAITERS) {
        if (Date.now() > deadline) throw new Error(`only ${await waiting(service.url)} of ${WAITERS} callers were waiting after 30 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const rssWhile = procMemMiB(pid);
      ctx.log(`wait: ${WAITERS} callers waiting, RSS ${rssWhile.toFixed(0)} MiB`);

      const sent = performance.now();
      const capture = await fetch(`${service.url}/${token}`, { method: 'POST', body: 'wake' });
      await capture.arrayBuffer();
      const statuses = await Promise.all(calls);
      await new Promise((r) => setTimeout(r, 500));
      const rssAfter = procMemMiB(pid);

      const latencies = answeredAt.map((t) => t - sent).sort((a, b) => a - b);
      const median = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      const max = latencies.at(-1) ?? NaN;
      const first = latencies[0] ?? NaN;
      const others = statuses.filter((s) => s !== 200);
      if (others.length) runErrors.push(`wait: ${others.length} callers answered other than 200 (${[...new Set(others)].join(', ')})`);
      return {
        metrics: { waiters: WAITERS, woken, first_ms: first, median_ms: median, p99_ms: p99, max_ms: max, rss_mib: { before: rssBefore, while: rssWhile, after: rssAfter } },
        goals: [
          { name: `all ${WAITERS} waiters answered by one capture`, target: `${WAITERS}`, actual: `${woken}`, pass: woken === WAITERS },
          { name: 'wake-up latency p99', target: `< ${GOAL_P99_MS} ms`, actual: fmt.ms(p99), pass: p99 < GOAL_P99_MS },
        ],
        lines: [
          `${woken} of ${WAITERS} woken; wake-up latency first ${fmt.ms(first)}, median ${fmt.ms(median)}, p99 ${fmt.ms(p99)}, max ${fmt.ms(max)}`,
          `service RSS: ${rssBefore.toFixed(0)} MiB before, ${rssWhile.toFixed(0)} MiB with ${WAITERS} waiting (${(((rssWhile - rssBefore) * 1024) / WAITERS).toFixed(1)} KiB each), ${rssAfter.toFixed(0)} MiB after`,
        ],
        runErrors,
      };
    } finally {
      await service.stop();
    }
  },
};
