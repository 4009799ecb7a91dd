import { describe, expect, it } from 'vitest';
import type { Measurement } from './harness.js';
import { CORPUS_SIZE, corpusEntry, designedShare, earlyRange, TIMED_QUERIES } from './search-corpus.js';
import { secondsUntilUnder } from './sections/memory.js';
import { bracketedRatio, readStallGoals } from './sections/readstall.js';
import { summarizeTimes } from './sections/search.js';

describe('bench search corpus', () => {
  it('gives every timed query a designed selectivity, from one in a thousand to half', () => {
    const shares = TIMED_QUERIES.map((q) => [q.form, designedShare(q)] as const);
    for (const [form, share] of shares) {
      if (share === null) continue;
      expect(share, form).toBeGreaterThan(0);
      expect(share, form).toBeLessThan(1);
    }
    const known = shares.map(([, s]) => s).filter((s): s is number => s !== null);
    expect(Math.min(...known)).toBeLessThanOrEqual(0.001);
    expect(Math.max(...known)).toBeGreaterThanOrEqual(0.5);
    expect(known.filter((s) => s <= 0.01).length).toBeGreaterThanOrEqual(4);
    expect(known.filter((s) => s >= 0.2).length).toBeGreaterThanOrEqual(4);
  });

  it('puts each capture in one of ten delete slices, and the phrase apart from its scattered words', () => {
    const slices = new Map<string, number>();
    let phrase = 0;
    let scattered = 0;
    for (let i = 0; i < CORPUS_SIZE; i++) {
      const body = corpusEntry(i).body ?? '';
      const slice = /slice\d/.exec(body)?.[0];
      if (slice) slices.set(slice, (slices.get(slice) ?? 0) + 1);
      if (body.includes('payment failed')) phrase++;
      else if (body.includes('payment') && body.includes('failed')) scattered++;
    }
    expect(slices.size).toBe(10);
    // GET captures carry no body, so a slice is a little under a tenth of the token.
    for (const n of slices.values()) expect(n).toBeGreaterThanOrEqual(CORPUS_SIZE / 10 - 20);
    expect(phrase).toBe(10);
    expect(scattered).toBe(10);
  });

  it('ranges over the first tenth of the seeding, counted back from now', () => {
    const seed = { startedAt: 1_000_000, finishedAt: 1_100_000 };
    expect(earlyRange(seed, 1_200_000)).toBe('created_at:[now-201s TO now-190s]');
    expect(earlyRange(seed, 1_000_500)).toBe('created_at:[now-2s TO now-0s]');
  });
});

describe('bench goal evaluation', () => {
  it('summarizes timings by nearest-rank median and p95', () => {
    expect(summarizeTimes([5, 1, 4, 2, 3, 10, 9, 8, 7, 6])).toEqual({ runs: 10, medianMs: 5, p95Ms: 10, maxMs: 10 });
    expect(summarizeTimes([]).medianMs).toBeNaN();
  });

  const m = (rps: number, p99: number) => ({ rps, latencyMs: { p50: 1, p90: 2, p99, p99_9: p99, avg: 1, max: p99 } }) as Measurement;

  it('passes readstall only when the loaded p99 and the throughput ratio both hold', () => {
    expect(readStallGoals(m(10_000, 5), m(9_200, 12), 0.92).map((g) => g.pass)).toEqual([true, true]);
    expect(readStallGoals(m(10_000, 5), m(8_900, 12), 0.89).map((g) => g.pass)).toEqual([true, false]);
    expect(readStallGoals(m(10_000, 5), m(9_500, 25), 0.95).map((g) => g.pass)).toEqual([false, true]);
    expect(readStallGoals(m(0, 5), m(0, 5), 0)[1]!.pass).toBe(false);
  });

  it('compares each loaded window with the alone windows on either side, weighed by its length', () => {
    const w = (rps: number, durationS = 20) => ({ rps, durationS });
    // The machine slowed from 20,000 to 16,000 captures/s alone across a loaded window at 16,200.
    expect(bracketedRatio([w(20_000), w(16_000)], [w(16_200, 100)])).toBeCloseTo(0.9, 5);
    // A long window weighs more: 100 s at 0.8x and 20 s at 1.0x.
    expect(bracketedRatio([w(10_000), w(10_000), w(10_000)], [w(8_000, 100), w(10_000, 20)])).toBeCloseTo((800_000 + 200_000) / 1_200_000, 5);
    expect(bracketedRatio([w(0), w(0)], [w(10, 10)])).toBe(0);
    expect(() => bracketedRatio([w(1)], [w(1)])).toThrow(/alone windows/);
  });

  it('finds when memory first went under a limit', () => {
    expect(
      secondsUntilUnder(
        [
          [0, 700],
          [1, 450],
          [2.1, 190],
          [3, 210],
        ],
        200,
      ),
    ).toBe(2.1);
    expect(
      secondsUntilUnder(
        [
          [0, 700],
          [60, 650],
        ],
        200,
      ),
    ).toBeNull();
  });
});
