import { describe, expect, it } from 'vitest';
import { binnedQuantile, LATENCY_BIN_MS, latencyBins, mergeMeasurements, quiet, serviceEnv, serviceEnvOverrides, withLatencyBins, type LatencyBins, type Measurement } from './harness.js';

function window(over: Partial<Measurement>): Measurement {
  return {
    rps: 0,
    latencyMs: { p50: 1, p90: 2, p99: 3, p99_9: 4, avg: 1, max: 5 },
    answered2xx: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    completed: 0,
    durationS: 1,
    statusCodes: {},
    serverCpuUsPerRequest: null,
    serverCpuBusy: null,
    serverThreads: null,
    loadgenCpuUsPerRequest: 0,
    loadavg1m: 0.5,
    ...over,
  };
}

describe('bench harness: paired windows merged into one measurement', () => {
  it('adds counts up, weighs rates and CPU by what each window measured, keeps the worst tail', () => {
    const a = window({
      completed: 1000,
      answered2xx: 1000,
      durationS: 2,
      statusCodes: { 200: 1000 },
      latencyMs: { p50: 1, p90: 2, p99: 10, p99_9: 12, avg: 1, max: 20 },
      serverCpuUsPerRequest: 40,
      serverCpuBusy: 0.2,
      serverThreads: [{ tid: 1, usPerRequest: 30, busy: 0.15 }],
      loadgenCpuUsPerRequest: 10,
      loadavg1m: 1.5,
    });
    const b = window({
      completed: 3000,
      answered2xx: 2990,
      non2xx: 10,
      durationS: 2,
      statusCodes: { 200: 2990, 500: 10 },
      latencyMs: { p50: 3, p90: 4, p99: 6, p99_9: 30, avg: 3, max: 40 },
      serverCpuUsPerRequest: 20,
      serverCpuBusy: 0.3,
      serverThreads: [
        { tid: 1, usPerRequest: 10, busy: 0.1 },
        { tid: 2, usPerRequest: 5, busy: 0.05, diskReadMBps: 3 },
      ],
      loadgenCpuUsPerRequest: 20,
    });
    const m = mergeMeasurements([a, b]);
    expect(m.completed).toBe(4000);
    expect(m.durationS).toBe(4);
    expect(m.rps).toBe(1000);
    expect(m.answered2xx).toBe(3990);
    expect(m.non2xx).toBe(10);
    expect(m.statusCodes).toEqual({ 200: 3990, 500: 10 });
    expect(m.latencyMs.p50).toBe(2.5);
    expect(m.latencyMs.p99).toBe(10);
    expect(m.latencyMs.p99_9).toBe(30);
    expect(m.latencyMs.max).toBe(40);
    expect(m.serverCpuUsPerRequest).toBe(25);
    expect(m.serverCpuBusy).toBeCloseTo(0.25);
    expect(m.serverThreads).toEqual([
      { tid: 1, usPerRequest: 15, busy: 0.125 },
      // Its disk reads over both windows' time (it read 3 MB/s in the second only).
      { tid: 2, usPerRequest: 3.75, busy: 0.025, diskReadMBps: 1.5 },
    ]);
    expect(m.loadgenCpuUsPerRequest).toBe(17.5);
    expect(m.loadavg1m).toBe(1.5);
  });

  it('merges windows that counted their latencies into the percentiles of every response, keeping the worst window p99 beside', () => {
    const bins = (pairs: Array<[ms: number, n: number]>): LatencyBins => new Map(pairs.map(([ms, n]) => [Math.floor(ms / LATENCY_BIN_MS), n]));
    // 1,000 quick responses in each of 99 windows; one window where 200 of 1,000 waited 500 ms.
    const quick = () => withLatencyBins(window({ completed: 1000, latencyMs: { p50: 1, p90: 1, p99: 1, p99_9: 1, avg: 1, max: 1 } }), bins([[0.95, 1000]]));
    const slow = withLatencyBins(
      window({ completed: 1000, latencyMs: { p50: 1, p90: 1, p99: 500, p99_9: 500, avg: 26, max: 500 } }),
      bins([
        [0.95, 800],
        [500, 200],
      ]),
    );
    const m = mergeMeasurements([...Array.from({ length: 99 }, quick), slow]);
    // 200 of 100,000 responses are slow: p99 is a quick one's, p99.9 a slow one's.
    expect(m.latencyMs.p99).toBe(1);
    expect(m.latencyMs.p99_9).toBe(500.1);
    expect(m.latencyMs.p99WorstWindow).toBe(500);
    expect(m.latencyMs.max).toBe(500);
    expect(latencyBins(m)!.get(Math.floor(500 / LATENCY_BIN_MS))).toBe(200);
    // Bins are left out of the JSON report.
    expect(JSON.stringify(m)).not.toContain('5000');
    expect(
      binnedQuantile(
        bins([
          [1, 1],
          [2, 1],
          [3, 2],
        ]),
        0.5,
      ),
    ).toBe(2.1);
    // A window without bins: the worst-of-windows figures, as before.
    expect(mergeMeasurements([slow, window({ completed: 10, latencyMs: { p50: 1, p90: 2, p99: 7, p99_9: 8, avg: 1, max: 9 } })]).latencyMs.p99).toBe(500);
  });

  it('gives one window back as it is, and no CPU figures when a window has none', () => {
    const a = window({ completed: 10, durationS: 1, serverCpuUsPerRequest: 5, serverCpuBusy: 0.1 });
    expect(mergeMeasurements([a])).toBe(a);
    const m = mergeMeasurements([a, window({ completed: 10, durationS: 1 })]);
    expect(m.serverCpuUsPerRequest).toBeNull();
    expect(m.serverThreads).toBeNull();
  });

  it('waits for a process to go quiet, and not at all for one it cannot see', async () => {
    // This process, idle while it awaits: quiet after one or two 100 ms samples.
    const waited = await quiet(process.pid, 2000);
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(1500);
    expect(await quiet(2 ** 30, 2000)).toBeLessThan(50);
  });
});

describe('bench harness: settings for the services started (BENCH_SERVICE_ENV)', () => {
  it('reads NAME=value pairs, values with = kept whole, and puts them under what a section asks for', () => {
    expect(serviceEnvOverrides('')).toEqual({});
    expect(serviceEnvOverrides(' SQLITE_WRITER=worker  X=a=b ')).toEqual({ SQLITE_WRITER: 'worker', X: 'a=b' });
    const env = serviceEnv(1234, '/tmp/d', { MAX_REQUEST_LIMIT: '5' });
    expect(env.PORT).toBe('1234');
    expect(env.MAX_REQUEST_LIMIT).toBe('5');
  });

  it('refuses a pair without a name', () => {
    expect(() => serviceEnvOverrides('worker')).toThrow(/NAME=value/);
    expect(() => serviceEnvOverrides('=x')).toThrow(/NAME=value/);
  });
});
