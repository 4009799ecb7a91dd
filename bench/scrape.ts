// The service's own histograms, read from /metrics around a measured window: how many catch-ups
// (or commits) ran in it, how much of the window they took, how many were long. The readstall
// section reports them beside the captures' latency, whose p99 they set.

/** A Prometheus histogram as scraped: its count, its sum, and its cumulative buckets by upper bound. */
export interface Histogram {
  count: number;
  sum: number;
  buckets: Array<[le: number, cumulative: number]>;
}

/** The unlabelled histogram `name` in a /metrics text (empty when absent). */
export function parseHistogram(text: string, name: string): Histogram {
  const value = (suffix: string) => {
    const m = new RegExp(`^${name}_${suffix} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const buckets: Array<[number, number]> = [];
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))) {
    buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  }
  return { count: value('count'), sum: value('sum'), buckets };
}

/** What was observed between two scrapes of one histogram. */
export function histogramDelta(before: Histogram, after: Histogram): Histogram {
  const was = new Map(before.buckets);
  return {
    count: after.count - before.count,
    sum: after.sum - before.sum,
    buckets: after.buckets.map(([le, n]) => [le, n - (was.get(le) ?? 0)]),
  };
}

/** Several windows' deltas as one. */
export function addHistograms(hs: Histogram[]): Histogram {
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const h of hs) {
    count += h.count;
    sum += h.sum;
    for (const [le, n] of h.buckets) buckets.set(le, (buckets.get(le) ?? 0) + n);
  }
  return { count, sum, buckets: [...buckets.entries()].sort((x, y) => x[0] - y[0]) };
}

/** How many observations took longer than `seconds` (a bucket bound; null when the histogram has none there). */
export function countAbove(h: Histogram, seconds: number): number | null {
  const at = h.buckets.find(([le]) => Math.abs(le - seconds) < 1e-9);
  return at ? h.count - at[1] : null;
}

/** One line: per second, share of the window, the slow ones. */
export function describeHistogram(h: Histogram, windowS: number, slowS: number): string {
  if (!h.count || windowS <= 0) return 'none';
  const slow = countAbove(h, slowS);
  return `${(h.count / windowS).toFixed(1)}/s, mean ${((h.sum / h.count) * 1000).toFixed(1)} ms, ${((h.sum / windowS) * 100).toFixed(1)}% of the time` + (slow === null ? '' : `, ${slow} over ${slowS * 1000} ms`);
}

/** The unlabelled counter `name` in a /metrics text (0 when absent). */
export function parseCounter(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** Scrapes /metrics and returns the named histograms. */
export async function scrapeHistograms(url: string, names: string[]): Promise<Record<string, Histogram>> {
  const text = await scrapeText(url);
  return Object.fromEntries(names.map((n) => [n, parseHistogram(text, n)]));
}

/** The service's /metrics text. */
export async function scrapeText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}
