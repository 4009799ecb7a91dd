// Searching a token that holds a million requests (BENCH_SEARCH_ROWS, default 1,000,000),
// black-box through GET /token/{id}/requests on the compiled service (SQLite). Each documented
// query form of bench/search-corpus.ts, some matching one capture in a thousand and some over half,
// is timed one request at a time on an otherwise idle service (goal: median under 50 ms each), and
// so is deep paging, `sorting=newest&page=900` (goal: median under 20 ms).
import { bigToken, type BigToken } from '../big-token.js';
import { ADMIN_API_KEY, fmt, percentile, quiet, type BenchContext, type Goal, type Section, type SectionResult } from '../harness.js';
import { designedShare, TIMED_QUERIES, type TimedQuery } from '../search-corpus.js';

export const SEARCH_GOALS = { queryMedianMs: 50, pageMedianMs: 20 };
/** Timed runs per query, fewer when a query is so slow that 10 would take over QUERY_BUDGET_MS. */
const RUNS = 10;
const MIN_RUNS = 3;
const QUERY_BUDGET_MS = 10_000;

export interface TimingSummary {
  runs: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

export function summarizeTimes(ms: number[]): TimingSummary {
  const sorted = [...ms].sort((a, b) => a - b);
  return { runs: sorted.length, medianMs: percentile(sorted, 50), p95Ms: percentile(sorted, 95), maxMs: sorted.at(-1) ?? NaN };
}

export interface ListAnswer {
  ms: number;
  status: number;
  total: number | null;
  /** The service's "count stopped at its bound" flag, whatever it is named, when it sends one. */
  capped: boolean | null;
  items: number;
  error: string | null;
}

/** One GET /token/{id}/requests, timed from sending to the last byte of the answer. */
export async function listRequests(baseUrl: string, token: string, params: Record<string, string>): Promise<ListAnswer> {
  const url = `${baseUrl}/token/${token}/requests?${new URLSearchParams(params)}`;
  const started = performance.now();
  const res = await fetch(url, { headers: { Accept: 'application/json', 'Api-Key': ADMIN_API_KEY } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) return { ms, status: res.status, total: null, capped: null, items: 0, error: text.slice(0, 300) };
  const body = JSON.parse(text) as Record<string, unknown>;
  const flag = body.total_capped ?? body.totalCapped ?? body.total_is_lower_bound;
  return {
    ms,
    status: res.status,
    total: typeof body.total === 'number' ? body.total : null,
    capped: typeof flag === 'boolean' ? flag : null,
    items: Array.isArray(body.data) ? body.data.length : 0,
    error: null,
  };
}

/** The `query` parameter a timed query sends now. */
export function queryText(q: TimedQuery, fixture: BigToken): string {
  return typeof q.query === 'string' ? q.query : q.query(fixture.seed, Date.now());
}

interface Timed {
  label: string;
  params: Record<string, string>;
  summary: TimingSummary;
  first: ListAnswer;
  expected: number | null;
}

async function timeList(fixture: BigToken, label: string, params: () => Record<string, string>, runErrors: string[]): Promise<Timed> {
  const times: number[] = [];
  let first: ListAnswer | null = null;
  let spent = 0;
  let sent = params();
  while (times.length < RUNS && (times.length < MIN_RUNS || spent + spent / times.length <= QUERY_BUDGET_MS)) {
    sent = params();
    const a = await listRequests(fixture.service.url, fixture.token, sent);
    if (a.error) {
      runErrors.push(`search ${label}: ${a.status} ${a.error}`);
      break;
    }
    first ??= a;
    times.push(a.ms);
    spent += a.ms;
  }
  return { label, params: sent, summary: summarizeTimes(times), first: first ?? { ms: NaN, status: 0, total: null, capped: null, items: 0, error: 'no answer' }, expected: null };
}

export const searchSection: Section = {
  name: 'search',
  title: 'Search: GET /token/{id}/requests?query=... on one token holding BENCH_SEARCH_ROWS requests (SQLite)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const fixture = await bigToken(ctx);
    const runErrors = [...fixture.runErrors];
    const stored = await fixture.service.storedCount(fixture.token);
    await quiet(fixture.service.proc.pid!, 30_000, 500);
    ctx.log(`search: timing ${TIMED_QUERIES.length} query forms and page 900 on ${stored.toLocaleString('en-US')} requests`);

    const timed: Timed[] = [];
    for (const q of TIMED_QUERIES) {
      const t = await timeList(fixture, q.form, () => ({ query: queryText(q, fixture) }), runErrors);
      const share = designedShare(q);
      t.expected = share === null ? Math.round(stored / 10) : Math.round(share * stored);
      if (t.first.total === 0) runErrors.push(`search ${q.form}: ${JSON.stringify(t.params.query)} matched nothing (about ${t.expected} expected), its timing means nothing`);
      timed.push(t);
      ctx.log(`search: ${q.form}: median ${fmt.ms(t.summary.medianMs)}, p95 ${fmt.ms(t.summary.p95Ms)}, total ${t.first.total}`);
    }
    const page = await timeList(fixture, 'sorting=newest&page=900', () => ({ sorting: 'newest', page: '900' }), runErrors);
    if (stored >= 900 * 50 && page.first.items !== 50) runErrors.push(`search page 900: ${page.first.items} items, 50 expected with ${stored} stored`);
    fixture.sampleRss('after the search section', stored);

    const goals: Goal[] = [
      ...timed.map((t) => ({
        name: `search median: ${t.label}`,
        target: `< ${SEARCH_GOALS.queryMedianMs} ms`,
        actual: fmt.ms(t.summary.medianMs),
        pass: t.summary.medianMs < SEARCH_GOALS.queryMedianMs,
      })),
      { name: 'newest first, page 900 (median)', target: `< ${SEARCH_GOALS.pageMedianMs} ms`, actual: fmt.ms(page.summary.medianMs), pass: page.summary.medianMs < SEARCH_GOALS.pageMedianMs },
    ];
    const describe = (t: Timed) =>
      `${fmt.ms(t.summary.medianMs).padStart(7)} median, ${fmt.ms(t.summary.p95Ms).padStart(7)} p95 (${t.summary.runs} runs)  ${t.label}: ${t.params.query ?? new URLSearchParams(t.params).toString()}` +
      `  -> total ${t.first.total ?? '?'}${t.first.capped ? ' (capped)' : ''}` +
      (t.expected === null ? '' : `, ~${fmt.int(t.expected)} match`);
    const seedS = fixture.seedSeconds;
    return {
      metrics: {
        rows: fixture.rows,
        stored,
        seeding: {
          seconds: seedS,
          answered: fixture.seeding.answered2xx,
          rps: fixture.seeding.rps,
          latencyMs: fixture.seeding.latencyMs,
          serverCpuUsPerRequest: fixture.seeding.serverCpuUsPerRequest,
          loadavg1m: fixture.seeding.loadavg1m,
          settleMs: fixture.settleMs,
        },
        queries: timed.map((t) => ({ form: t.label, params: t.params, ...t.summary, total: t.first.total, capped: t.first.capped, expectedMatches: t.expected })),
        page900: { ...page.summary, items: page.first.items, total: page.first.total },
      },
      goals,
      lines: [
        `seeded ${fmt.int(stored)} requests over HTTP in ${seedS.toFixed(1)} s (${fmt.int(fixture.seeding.rps)} captures/s, 4 pipelined per connection; server ${fmt.cpu(fixture.seeding)}; ` +
          `load average ${fixture.seeding.loadavg1m.toFixed(1)}), settled ${(fixture.settleMs / 1000).toFixed(1)} s later`,
        ...timed.map(describe),
        describe(page),
      ],
      runErrors,
    };
  },
};
