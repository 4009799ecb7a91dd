import { describe, expect, it } from 'vitest';
import { FastHistogram } from './fast-histogram.js';

describe('FastHistogram', () => {
  it('exposes cumulative buckets, +Inf, sum and count in the Prometheus text format', () => {
    const h = new FastHistogram('x_seconds', 'Test', [0.1, 1]);
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe(v);
    expect(h.expose()).toBe(
      ['# HELP x_seconds Test', '# TYPE x_seconds histogram', 'x_seconds_bucket{le="0.1"} 2', 'x_seconds_bucket{le="1"} 3', 'x_seconds_bucket{le="+Inf"} 4', 'x_seconds_sum 3.65', 'x_seconds_count 4', ''].join('\n'),
    );
  });
});
