import { describe, expect, it } from 'vitest';
import { addHistograms, countAbove, describeHistogram, histogramDelta, parseCounter, parseHistogram } from './scrape.js';

const text = (n: number, fast: number, sum: number) => `# HELP h help
# TYPE h histogram
h_bucket{le="0.005"} ${fast}
h_bucket{le="0.015"} ${fast + 1}
h_bucket{le="+Inf"} ${n}
h_sum ${sum}
h_count ${n}
other_bucket{le="0.005"} 99
`;

describe('bench: histograms from /metrics', () => {
  it('reads buckets, sum and count of one histogram, and the difference between two scrapes', () => {
    const a = parseHistogram(text(10, 6, 0.1), 'h');
    expect(a).toEqual({
      count: 10,
      sum: 0.1,
      buckets: [
        [0.005, 6],
        [0.015, 7],
        [Infinity, 10],
      ],
    });
    const d = histogramDelta(a, parseHistogram(text(30, 20, 0.5), 'h'));
    expect(d.count).toBe(20);
    expect(d.sum).toBeCloseTo(0.4);
    expect(d.buckets).toEqual([
      [0.005, 14],
      [0.015, 14],
      [Infinity, 20],
    ]);
    expect(countAbove(d, 0.015)).toBe(6);
    expect(countAbove(d, 0.02)).toBeNull();
    expect(describeHistogram(d, 2, 0.015)).toBe('10.0/s, mean 20.0 ms, 20.0% of the time, 6 over 15 ms');
  });

  it('adds windows up, and says none for an empty or missing histogram', () => {
    const a = parseHistogram(text(4, 2, 0.02), 'h');
    const sum = addHistograms([a, a]);
    expect(sum.count).toBe(8);
    expect(sum.buckets).toEqual([
      [0.005, 4],
      [0.015, 6],
      [Infinity, 8],
    ]);
    expect(parseHistogram('', 'h')).toEqual({ count: 0, sum: 0, buckets: [] });
    expect(describeHistogram(parseHistogram('', 'h'), 5, 0.015)).toBe('none');
  });

  it('reads an unlabelled counter, 0 when it is absent', () => {
    const metrics = '# TYPE rows_total counter\nrows_total 1234\nrows_total_other 5\n';
    expect(parseCounter(metrics, 'rows_total')).toBe(1234);
    expect(parseCounter(metrics, 'missing_total')).toBe(0);
  });
});
