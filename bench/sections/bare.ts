// Baseline: a bare node:http server on the same machine, same load. Other sections compare to it.
import { fmt, load, loadErrors, startBare, warmUp, type BenchContext, type Measurement, type Section, type SectionResult } from '../harness.js';

export interface BareMetrics {
  measurement: Measurement;
}

export const bareSection: Section = {
  name: 'bare',
  title: 'Baseline: bare node:http (read body, answer 200 "ok")',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const { settings } = ctx;
    const server = await startBare();
    try {
      const common = { url: server.url, path: '/', connections: settings.connections, body: settings.body };
      ctx.log(`bare: warm-up ${settings.warmupSeconds} s`);
      const runErrors = await warmUp('bare warm-up', { ...common, seconds: settings.warmupSeconds });
      ctx.log(`bare: measuring ${settings.seconds} s, ${settings.connections} connections`);
      const m = await load({ ...common, seconds: settings.seconds, serverPid: server.proc.pid });
      const metrics: BareMetrics = { measurement: m };
      return {
        metrics: metrics as unknown as Record<string, unknown>,
        goals: [],
        lines: [
          `throughput  ${fmt.int(m.rps)} req/s (${fmt.int(m.answered2xx)} answered 2xx in ${m.durationS} s)`,
          `latency     ${fmt.latency(m)}`,
          `server CPU  ${fmt.cpu(m)}; load average ${m.loadavg1m.toFixed(2)} at start`,
          `threads     ${fmt.threads(m)}`,
        ],
        runErrors: [...runErrors, ...loadErrors('bare', m)],
      };
    } finally {
      await server.stop();
    }
  },
};
