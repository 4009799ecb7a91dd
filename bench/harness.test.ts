import { describe, expect, it } from 'vitest';
import { mergeMeasurements, quiet, type Measurement } from './harness.js';

function window(over: Partial<Measurement>): Measurement {
  return {
    rps: 0, latencyMs: { p50: 1, p90: 2, p99: 3, p99_9: 4, avg: 1, max: 5 }, answered2xx: 0, non2xx: 0, errors: 0, timeouts: 0,
    completed: 0, durationS: 1, statusCodes: {}, serverCpuUsPerRequest: null, serverCpuBusy: null, serverThreads: null,
    loadgenCpuUsPerRequest: 0, loadavg1m: 0.5, ...over,
  };
}

describe('bench harness: paired windows merged into one measurement', () => {
  it('adds counts up, weighs rates and CPU by what each window measured, keeps the worst tail', () => {
    const a = window({
      completed: 1000, answered2xx: 1000, durationS: 2, statusCodes: { 200: 1000 }, latencyMs: { p50: 1, p90: 2, p99: 10, p99_9: 12, avg: 1, max: 20 },
      serverCpuUsPerRequest: 40, serverCpuBusy: 0.2, serverThreads: [{ tid: 1, usPerRequest: 30, busy: 0.15 }], loadgenCpuUsPerRequest: 10, loadavg1m: 1.5,
    });
    const b = window({
      completed: 3000, answered2xx: 2990, non2xx: 10, durationS: 2, statusCodes: { 200: 2990, 500: 10 }, latencyMs: { p50: 3, p90: 4, p99: 6, p99_9: 30, avg: 3, max: 40 },
      serverCpuUsPerRequest: 20, serverCpuBusy: 0.3, serverThreads: [{ tid: 1, usPerRequest: 10, busy: 0.1 }, { tid: 2, usPerRequest: 5, busy: 0.05 }], loadgenCpuUsPerRequest: 20,
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
      { tid: 2, usPerRequest: 3.75, busy: 0.025 },
    ]);
    expect(m.loadgenCpuUsPerRequest).toBe(17.5);
    expect(m.loadavg1m).toBe(1.5);
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
