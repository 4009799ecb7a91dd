// The service's Prometheus metrics: the one module that imports prom-client. Each part of the
// service reports through the narrow methods of ServiceMetrics (O(1) each: a counter or histogram
// update, no allocation worth naming) or, for numbers it already keeps (sandbox queue, realtime
// subscribers), hands over a function read at scrape time. Labels take only bounded values
// (channel, status class, action type), never a token or request id.
import client from 'prom-client';
import { FastHistogram } from './fast-histogram.js';

export type CaptureChannel = 'http' | 'email' | 'dns';

/** What a part of the service can report. One instance per started server (tests start several). */
export interface ServiceMetrics {
  /** A capture was stored (committed). */
  captureStored(channel: CaptureChannel): void;
  /** A capture was refused with this status (HTTP status, or SMTP reply code for e-mail). */
  captureRejected(channel: CaptureChannel, status: number): void;
  /** An HTTP capture was answered, `seconds` after its request began. */
  captureAnswered(seconds: number): void;
  /** One action of a chain ran; `failed` when it reported an error. `type` must be a registered type. */
  actionRun(type: string, failed: boolean): void;
  /** One JavaScript sandbox run took this long (from its worker taking it to its result). */
  sandboxRun(seconds: number): void;
  /** A schedule ran; `failed` on a request error, a failed check or a 5xx. */
  scheduleRun(failed: boolean): void;
  /** The store committed a batch of `captures` captures in `seconds`. */
  storeCommit(captures: number, seconds: number): void;
  /** A catch-up of stored captures (indexes, counters, trimming) took `rows` in `seconds`. */
  storeCatchUp(rows: number, seconds: number): void;
  /** Read at scrape time: what waits for a sandbox worker, and how many runs are going on. */
  sandboxSource(read: () => { queued: number; busy: number } | null): void;
  /** Read at scrape time: live realtime subscribers by transport. */
  realtimeSource(read: () => { sse: number; socketio: number; wait: number }): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

const PREFIX = 'capture_';

/** Process metrics (CPU, memory, event loop lag, GC) are the process's: registered once, shared by every server. */
let processRegistry: client.Registry | null = null;
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry, prefix: PREFIX });
  }
  return processRegistry;
}

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

export function createMetrics(): ServiceMetrics {
  const registry = new client.Registry();
  const registers = [registry];

  // The capture path counts in plain numbers; prom-client reads them at scrape time (its own
  // inc() and observe() hash labels on every call).
  const stored: Record<CaptureChannel, number> = { http: 0, email: 0, dns: 0 };
  const rejected = new Map<string, { channel: CaptureChannel; status: string; n: number }>();
  new client.Counter({
    name: `${PREFIX}captures_total`,
    help: 'Captures by channel (http, email, dns) and outcome (stored, rejected); status is the status class of a rejection',
    labelNames: ['channel', 'outcome', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const channel of ['http', 'email', 'dns'] as const) this.inc({ channel, outcome: 'stored', status: '' }, stored[channel]);
      for (const r of rejected.values()) this.inc({ channel: r.channel, outcome: 'rejected', status: r.status }, r.n);
    },
  });
  const latency = new FastHistogram(
    `${PREFIX}http_capture_duration_seconds`,
    'HTTP captures: time from the request to its answer (actions and listen waits included)',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  // Every action of every chain run counts: in plain numbers too, read at scrape time.
  const actions = new Map<string, { runs: number; failures: number }>();
  new client.Counter({
    name: `${PREFIX}action_runs_total`,
    help: 'Actions run, by action type',
    labelNames: ['type'] as const,
    registers,
    collect() {
      this.reset();
      for (const [type, a] of actions) this.inc({ type }, a.runs);
    },
  });
  new client.Counter({
    name: `${PREFIX}action_failures_total`,
    help: 'Actions that reported an error, by action type',
    labelNames: ['type'] as const,
    registers,
    collect() {
      this.reset();
      for (const [type, a] of actions) if (a.failures) this.inc({ type }, a.failures);
    },
  });
  const sandboxRuns = new client.Histogram({
    name: `${PREFIX}sandbox_run_duration_seconds`,
    help: 'JavaScript sandbox runs: time on a worker',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  let readSandbox: () => { queued: number; busy: number } | null = () => null;
  new client.Gauge({
    name: `${PREFIX}sandbox_queue_depth`,
    help: 'JavaScript runs waiting for a sandbox worker',
    registers,
    collect() {
      this.set(readSandbox()?.queued ?? 0);
    },
  });
  new client.Gauge({
    name: `${PREFIX}sandbox_busy_workers`,
    help: 'Sandbox workers running a script now',
    registers,
    collect() {
      this.set(readSandbox()?.busy ?? 0);
    },
  });
  const scheduleRuns = new client.Counter({ name: `${PREFIX}schedule_runs_total`, help: 'Schedule runs', registers });
  const scheduleFailures = new client.Counter({ name: `${PREFIX}schedule_failures_total`, help: 'Schedule runs that failed (request error, failed check, 5xx)', registers });
  let readRealtime = () => ({ sse: 0, socketio: 0, wait: 0 });
  new client.Gauge({
    name: `${PREFIX}realtime_subscribers`,
    help: 'Live realtime connections by transport (sse, socketio, wait: callers of GET /token/{id}/requests/wait)',
    labelNames: ['transport'] as const,
    registers,
    collect() {
      const r = readRealtime();
      this.set({ transport: 'sse' }, r.sse);
      this.set({ transport: 'socketio' }, r.socketio);
      this.set({ transport: 'wait' }, r.wait);
    },
  });
  // Observed once per group commit, which under load is every few captures: the capture path's kind.
  const batchSize = new FastHistogram(`${PREFIX}store_write_batch_size`, 'Captures committed per store write batch (SQLite group commit)', [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500]);
  const commitTime = new FastHistogram(`${PREFIX}store_commit_duration_seconds`, 'Time to commit one store write batch', [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]);

  const catchUpTime = new client.Histogram({
    name: `${PREFIX}store_catchup_duration_seconds`,
    help: 'Time of one catch-up transaction (indexes, counters and trimming of stored captures, in bulk); on the event loop unless SQLITE_WRITER=worker',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.015, 0.02, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  const catchUpRows = new client.Counter({
    name: `${PREFIX}store_catchup_rows_total`,
    help: 'Stored captures caught up (indexed, counted, trimmed)',
    registers,
  });

  return {
    captureStored(channel) {
      stored[channel]++;
    },
    captureRejected(channel, status) {
      const cls = statusClass(status);
      const key = `${channel} ${cls}`;
      const r = rejected.get(key);
      if (r) r.n++;
      else rejected.set(key, { channel, status: cls, n: 1 });
    },
    captureAnswered: (seconds) => latency.observe(seconds),
    actionRun(type, failed) {
      const a = actions.get(type);
      if (a) {
        a.runs++;
        if (failed) a.failures++;
      } else actions.set(type, { runs: 1, failures: failed ? 1 : 0 });
    },
    sandboxRun: (seconds) => sandboxRuns.observe(seconds),
    scheduleRun(failed) {
      scheduleRuns.inc();
      if (failed) scheduleFailures.inc();
    },
    storeCommit(captures, seconds) {
      batchSize.observe(captures);
      commitTime.observe(seconds);
    },
    storeCatchUp(rows, seconds) {
      catchUpTime.observe(seconds);
      if (rows) catchUpRows.inc(rows);
    },
    sandboxSource: (read) => void (readSandbox = read),
    realtimeSource: (read) => void (readRealtime = read),
    async scrape() {
      const body = (await registry.metrics()) + '\n' + latency.expose() + '\n' + batchSize.expose() + '\n' + commitTime.expose() + '\n' + (await processMetrics().metrics());
      return { contentType: registry.contentType, body };
    },
  };
}

/** The metrics channel of a stored request's type. */
export function channelOf(type: 'web' | 'email' | 'dns'): CaptureChannel {
  return type === 'web' ? 'http' : type;
}
