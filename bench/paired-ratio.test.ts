import { describe, expect, it } from 'vitest';
import { compareRatios, fmtSpread, roundRatio, roundsInterval, spread } from './paired-ratio.js';

describe('paired-round ratios', () => {
  it('gives the median and range of what was measured, skipping rounds without a figure', () => {
    expect(spread([0.5, 0.3, NaN, 0.4])).toEqual({ median: 0.4, min: 0.3, max: 0.5, rounds: 3 });
    expect(spread([0.2, 0.6, 0.4, 0.3])).toEqual({ median: 0.35, min: 0.2, max: 0.6, rounds: 4 });
    expect(spread([]).rounds).toBe(0);
    expect(Number.isNaN(spread([NaN]).median)).toBe(true);
    expect(Number.isNaN(roundRatio(100, 0))).toBe(true);
    expect(roundRatio(100, 400)).toBe(0.25);
  });

  it('compares two protocols round by round, and the median round decides', () => {
    // Round 3 caught a load spike on the tested protocol's window only: it misses, the goal holds.
    const c = compareRatios([0.5, 0.45, 0.2, 0.44, 0.5], [0.4, 0.5, 0.4, 0.4, 0.5], 0.9);
    expect(c.quotient.median).toBeCloseTo(1.0);
    expect(c.quotient.min).toBeCloseTo(0.5);
    expect(c.quotient.max).toBeCloseTo(1.25);
    expect(c.roundsMet).toBe(4);
    expect(c.met).toBe(true);
    expect(compareRatios([0.3, 0.3, 0.5], [0.4, 0.4, 0.4], 0.9)).toMatchObject({ roundsMet: 1, met: false });
    // No reference figure in any round: nothing is met.
    expect(compareRatios([0.5], [NaN], 0.9).met).toBe(false);
    expect(() => compareRatios([0.5], [], 0.9)).toThrow(/1 rounds against 0/);
  });

  it('prints a median with its range', () => {
    expect(fmtSpread(spread([0.41, 0.6, 0.52]))).toBe('0.52x (0.41-0.60x)');
    expect(fmtSpread(spread([]))).toBe('n/a');
  });

  it('gives the interval another run of as many rounds could put a figure in', () => {
    const rounds = [10, 12, 9, 30, 11, 10, 13, 8, 12, 11];
    const mean = (picks: number[]) => picks.reduce((a, i) => a + rounds[i]!, 0) / picks.length;
    const interval = roundsInterval(rounds.length, mean)!;
    const all = mean(rounds.map((_, i) => i));
    expect(interval.low).toBeLessThan(all);
    expect(interval.high).toBeGreaterThan(all);
    // The outlying round widens it upwards; the same rounds give the same interval.
    expect(interval.high - all).toBeGreaterThan(all - interval.low);
    expect(roundsInterval(rounds.length, mean)).toEqual(interval);
    // Rounds that agree leave nothing to doubt.
    expect(roundsInterval(5, () => 1.5)).toEqual({ low: 1.5, high: 1.5 });
    expect(roundsInterval(2, mean)).toBeNull();
    expect(roundsInterval(5, () => NaN)).toBeNull();
  });
});
