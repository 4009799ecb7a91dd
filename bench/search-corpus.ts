// What the `search`, `readstall` and `memory` sections put into their big token, and the queries
// they time. Pure data: bench/search-corpus.test.ts checks the selectivity each query is designed
// for, so "some rare, some common" stays true when the corpus is edited.
//
// The corpus is CORPUS_SIZE captures; the seeder's connections cycle through it, so over a million
// captures every entry is sent about the same number of times and a term's share of the corpus is
// its share of the token. Moduli below all divide CORPUS_SIZE.

export const CORPUS_SIZE = 1000;

export interface CorpusEntry {
  method: 'POST' | 'PUT' | 'GET' | 'DELETE';
  /** Path and query string after `/{token}`. */
  pathSuffix: string;
  headers: Record<string, string>;
  /** Undefined for GET. */
  body?: string;
}

const EVENTS = ['order.created', 'order.paid', 'order.shipped', 'invoice.sent', 'customer.updated'];
const FILLER = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const AGENTS = ['curl/8.5.0', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0', 'GitHub-Hookshot/abc123', 'python-requests/2.31.0'];

/** The i-th capture of the corpus (0 <= i < CORPUS_SIZE). */
export function corpusEntry(i: number): CorpusEntry {
  const method = i % 20 === 0 ? 'PUT' : i % 100 === 1 ? 'DELETE' : i % 10 === 2 ? 'GET' : 'POST';
  const params: string[] = [];
  if (i % 3 === 0) params.push('action=create');
  else if (i % 7 === 1) params.push('action=update');
  if (i % 50 === 3) params.push('source=crm');
  const headers: Record<string, string> = { 'User-Agent': AGENTS[i % AGENTS.length]! };
  const pathSuffix = params.length ? `?${params.join('&')}` : '';
  if (method === 'GET') return { method, pathSuffix, headers };

  const words = [FILLER[i % FILLER.length]!, FILLER[(i * 7 + 3) % FILLER.length]!, `slice${Math.floor(i / 100) % 10}`];
  // One capture in a hundred says "payment failed"; another has both words, not as the phrase.
  if (i % 100 === 5) words.push('payment failed for card');
  if (i % 100 === 6) words.push('failed to notify payment service');
  // Rare: one in a thousand.
  if (i % 1000 === 7) words.push('refund requested');
  const body: Record<string, unknown> = {
    event: EVENTS[i % EVENTS.length],
    id: 100_000 + i,
    amount: (i % 997) + 0.99,
    currency: i % 4 === 0 ? 'USD' : 'EUR',
    customer: { id: `cus_${i % 250}` },
    note: words.join(' '),
  };
  // One in 500 is large (size:[2000 TO *]).
  if (i % 500 === 9) body.attachment = 'x'.repeat(2500);
  return { method, pathSuffix, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

export interface TimedQuery {
  /** Which documented form it exercises (docs/search.md). */
  form: string;
  /** The `query` parameter; a function when it depends on when the token was seeded. */
  query: string | ((seed: SeedWindow, now: number) => string);
  /**
   * Which corpus entries it is meant to match (null: depends on time, see earlyRange); the report
   * gives the expected count from it and the test checks the rare/common spread.
   */
  matches: ((e: CorpusEntry) => boolean) | null;
}

/** When the seeded captures were stored (epoch ms): date-math ranges select part of it. */
export interface SeedWindow {
  startedAt: number;
  finishedAt: number;
}

/** `created_at:[now-As TO now-Bs]` covering the first tenth of the seeding, as of `now`. */
export function earlyRange(seed: SeedWindow, now: number): string {
  const tenth = seed.startedAt + (seed.finishedAt - seed.startedAt) / 10;
  const from = Math.ceil((now - seed.startedAt) / 1000) + 1;
  const to = Math.max(0, Math.floor((now - tenth) / 1000));
  return `created_at:[now-${from}s TO now-${to}s]`;
}

/** The query forms timed by the `search` section and looped by `readstall`. */
const bodyHas = (word: string) => (e: CorpusEntry) => (e.body ?? '').includes(word);
const isMethod = (m: string) => (e: CorpusEntry) => e.method === m;

export const TIMED_QUERIES: TimedQuery[] = [
  { form: 'bare word, common', query: 'order', matches: bodyHas('order') },
  { form: 'bare word, rare', query: 'refund', matches: bodyHas('refund') },
  { form: 'phrase', query: '"payment failed"', matches: bodyHas('payment failed') },
  { form: 'field:value (method)', query: 'method:PUT', matches: isMethod('PUT') },
  { form: 'field:value (header)', query: 'headers.user-agent:curl', matches: (e) => e.headers['User-Agent']!.includes('curl') },
  { form: 'field:value (query string)', query: 'query.action:update', matches: (e) => e.pathSuffix.includes('action=update') },
  { form: 'wildcard, common', query: 'content:ord*', matches: bodyHas('ord') },
  { form: 'wildcard, rare', query: 'content:refu*', matches: bodyHas('refu') },
  { form: 'range with date math, and method', query: 'created_at:[now-1d/d TO *] AND method:PUT', matches: isMethod('PUT') },
  { form: 'range with date math, first tenth of the seeding', query: earlyRange, matches: null },
  { form: 'numeric range (size)', query: 'size:[2000 TO *]', matches: (e) => (e.body?.length ?? 0) >= 2000 },
  {
    form: 'AND/OR/NOT',
    query: 'method:POST AND (invoice OR refund) AND NOT query.action:create',
    matches: (e) => e.method === 'POST' && (bodyHas('invoice')(e) || bodyHas('refund')(e)) && !e.pathSuffix.includes('action=create'),
  },
  { form: '_exists_, common', query: '_exists_:query.action', matches: (e) => e.pathSuffix.includes('action=') },
  { form: '_exists_, rare', query: '_exists_:query.source', matches: (e) => e.pathSuffix.includes('source=') },
];

/** Share of the corpus a query is meant to match (null when it depends on time). */
export function designedShare(q: TimedQuery): number | null {
  if (!q.matches) return null;
  let n = 0;
  for (let i = 0; i < CORPUS_SIZE; i++) if (q.matches(corpusEntry(i))) n++;
  return n / CORPUS_SIZE;
}

/** The query that the readstall section deletes by: one slice, a tenth of the seeded captures. */
export function deleteQuery(slice: number): string {
  return `slice${slice}`;
}
