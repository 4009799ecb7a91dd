// Shared by the `chain` and `sandbox` sections: the time a token's action chain adds to one
// capture, measured as single sequential requests on one keep-alive connection (no concurrency,
// so the number is the chain's own latency, not queueing). The tokens are interleaved (one
// request to each per round, the order rotating every round) so drift of the machine (colleagues'
// jobs, GC, SQLite checkpoints) hits all of them alike; the added time is median(with actions)
// minus median(plain token).
import http from 'node:http';
import type { Goal, Service } from '../harness.js';

/** Requests measured per token (BENCH_OVERHEAD_REQUESTS, default 500). */
export function overheadRequests(): number {
  const n = Number(process.env.BENCH_OVERHEAD_REQUESTS ?? 500);
  return Number.isFinite(n) && n >= 20 ? Math.floor(n) : 500;
}

/** Warm-up requests per token, not measured (BENCH_OVERHEAD_WARMUP, default 100). */
export function overheadWarmup(): number {
  const n = Number(process.env.BENCH_OVERHEAD_WARMUP ?? 100);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : 100;
}

export interface Target {
  label: string;
  path: string;
}

export interface LatencyStats {
  requests: number;
  medianMs: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  minMs: number;
  maxMs: number;
}

export interface Comparison {
  label: string;
  /** median(label) - median(plain): the headline number. */
  addedMedianMs: number;
  /** p90(label) - p90(plain). */
  addedP90Ms: number;
  /** Median over rounds of (label - plain) in the same round: a cross-check less sensitive to drift. */
  pairedMedianMs: number;
}

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function stats(xs: number[]): LatencyStats {
  return {
    requests: xs.length,
    medianMs: median(xs),
    p90Ms: quantile(xs, 0.9),
    p99Ms: quantile(xs, 0.99),
    meanMs: xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length),
    minMs: Math.min(...xs),
    maxMs: Math.max(...xs),
  };
}

/** One POST on the agent's single connection; resolves with the status once the answer is read. */
function post(agent: http.Agent, url: URL, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface SequentialRun {
  stats: Record<string, LatencyStats>;
  /** Per-round samples in target order (for paired differences). */
  samples: Record<string, number[]>;
  problems: string[];
  seconds: number;
}

/**
 * `warmup` then `requests` rounds; each round sends one request to every target, one at a time,
 * on a single keep-alive connection, starting with a different target each round.
 */
export async function measureSequential(baseUrl: string, targets: Target[], opts: { requests: number; warmup: number; body: string; timeoutMs?: number }): Promise<SequentialRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const samples: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.label, []]));
  const bad: Record<string, Record<string, number>> = {};
  const started = performance.now();
  try {
    for (let round = 0; round < opts.warmup + opts.requests; round++) {
      const measured = round >= opts.warmup;
      for (let k = 0; k < targets.length; k++) {
        const t = targets[(round + k) % targets.length]!;
        const t0 = performance.now();
        const status = await post(agent, new URL(t.path, baseUrl), opts.body, timeoutMs);
        const ms = performance.now() - t0;
        if (status < 200 || status > 299) (bad[t.label] ??= {})[String(status)] = (bad[t.label]?.[String(status)] ?? 0) + 1;
        else if (measured) samples[t.label]!.push(ms);
      }
    }
  } finally {
    agent.destroy();
  }
  const problems = Object.entries(bad).map(([label, codes]) => `${label}: non-2xx answers ${JSON.stringify(codes)}`);
  return {
    stats: Object.fromEntries(targets.map((t) => [t.label, stats(samples[t.label]!)])),
    samples,
    problems,
    seconds: (performance.now() - started) / 1000,
  };
}

export function compare(run: SequentialRun, label: string, plain: string): Comparison {
  const a = run.samples[label]!;
  const b = run.samples[plain]!;
  const n = Math.min(a.length, b.length);
  const diffs = Array.from({ length: n }, (_, i) => a[i]! - b[i]!);
  return {
    label,
    addedMedianMs: run.stats[label]!.medianMs - run.stats[plain]!.medianMs,
    addedP90Ms: run.stats[label]!.p90Ms - run.stats[plain]!.p90Ms,
    pairedMedianMs: median(diffs),
  };
}

export function addedGoal(name: string, c: Comparison, maxMs: number): Goal {
  return { name, target: `< ${maxMs} ms added (median)`, actual: `${c.addedMedianMs.toFixed(3)} ms`, pass: Number.isFinite(c.addedMedianMs) && c.addedMedianMs < maxMs };
}

export function statsLine(label: string, s: LatencyStats): string {
  return `${label.padEnd(22)} median ${s.medianMs.toFixed(3).padStart(7)} ms   p90 ${s.p90Ms.toFixed(3).padStart(7)} ms   p99 ${s.p99Ms.toFixed(2).padStart(6)} ms   (${s.requests} requests)`;
}

export function addedLine(c: Comparison): string {
  return `added by ${c.label.padEnd(13)} median ${c.addedMedianMs.toFixed(3).padStart(7)} ms   p90 ${c.addedP90Ms.toFixed(3).padStart(7)} ms   (paired per-round median ${c.pairedMedianMs.toFixed(3)} ms)`;
}

// ---------------------------------------------------------------------------------------------
// Service helpers

export interface ActionSpec {
  type: string;
  parameters: Record<string, unknown>;
}

interface ActionTypeInfo {
  type: string;
  schema?: { properties?: Record<string, unknown>; required?: string[] };
}

/**
 * Checks the types and parameter names against GET /action-types, creates the actions in order
 * through POST /token/{id}/actions, and checks GET /token/{id}/actions lists exactly them.
 */
export async function createChain(svc: Service, token: string, actions: ActionSpec[]): Promise<void> {
  const types = await svc.api<{ data: ActionTypeInfo[] }>('GET', '/action-types');
  const byType = new Map(types.data.map((t) => [t.type, t]));
  for (const a of actions) {
    const info = byType.get(a.type);
    if (!info) throw new Error(`GET /action-types has no "${a.type}" (types: ${[...byType.keys()].join(', ')})`);
    const props = info.schema?.properties;
    if (props) {
      const unknown = Object.keys(a.parameters).filter((k) => !(k in props));
      if (unknown.length) throw new Error(`${a.type}: parameters ${unknown.join(', ')} are not in its schema (${Object.keys(props).join(', ')})`);
      const missing = (info.schema?.required ?? []).filter((k) => !(k in a.parameters));
      if (missing.length) throw new Error(`${a.type}: required parameters ${missing.join(', ')} missing`);
    }
  }
  for (const [i, a] of actions.entries()) {
    await svc.api('POST', `/token/${token}/actions`, { type: a.type, order: i + 1, parameters: a.parameters }, true);
  }
  const listed = await svc.api<{ data: Array<{ type: string; order: number; disabled: boolean }> }>('GET', `/token/${token}/actions`, undefined, true);
  const got = listed.data.map((a) => `${a.order}:${a.type}${a.disabled ? ' (disabled)' : ''}`).join(', ');
  const want = actions.map((a, i) => `${i + 1}:${a.type}`).join(', ');
  if (got !== want) throw new Error(`GET /token/${token}/actions lists [${got}], expected [${want}]`);
}

export interface StoredRequest {
  uuid: string;
  custom_action_output: string[];
  custom_action_errors: unknown[];
}

/** The newest stored request of a token. */
export async function newestRequest(svc: Service, token: string): Promise<StoredRequest> {
  const page = await svc.api<{ data: StoredRequest[] }>('GET', `/token/${token}/requests?per_page=1&sorting=newest`, undefined, true);
  const r = page.data[0];
  if (!r) throw new Error(`token ${token} stored no request`);
  return r;
}
