// Reading a Prometheus text exposition (GET /metrics, or the server's metrics.scrape()) in tests.

/** The values of the samples of `name` whose labels include `labels`, in the order written. */
export function samples(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) out.push(Number(m[3]));
  }
  return out;
}

/** The value of one sample (the first that matches; 0 when absent). */
export const sample = (text: string, name: string, labels: Record<string, string> = {}): number => samples(text, name, labels)[0] ?? 0;

/** The sum of every sample that matches (a counter over the labels left out). */
export const sampleSum = (text: string, name: string, labels: Record<string, string> = {}): number => samples(text, name, labels).reduce((a, b) => a + b, 0);
