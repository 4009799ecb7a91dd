// Shared machinery of `npm run bench`: settings, child processes (bare server, the service),
// HTTP helpers and one load-generator call. Sections (bench/sections/*.ts) use only this module.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { missingServiceFlags } from '../core/lifecycle/node-flags.js';

/** The repository root (this file runs as dist/bench/harness.js). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Settings {
  /** Length of each measured run, seconds (BENCH_SECONDS, default 10). */
  seconds: number;
  /** Warm-up before each measured run, seconds (BENCH_WARMUP_SECONDS, default 2). */
  warmupSeconds: number;
  /** Concurrent connections of the load generator (BENCH_CONNECTIONS, default 32). */
  connections: number;
  /**
   * Paired rounds of the capture section (BENCH_ROUNDS, default 5): its measured run is split into
   * this many windows, each right after a window of the bare server, so both see the machine as
   * it was at that moment.
   */
  rounds: number;
  /** The request body: small JSON, about 100 bytes. */
  body: string;
  /** Extra node flags for the service child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (BENCH_SERVICE_NODE_ARGS). */
  serviceNodeArgs: string[];
  /**
   * A checkout of an earlier commit, built (`npm ci && npm run build` there), whose service the
   * capture section measures in the same rounds (BENCH_PREVIOUS_BUILD): "did this change cost
   * capture throughput" answered in one run rather than across two runs on a drifting machine.
   */
  previousBuild: string | null;
}

function num(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name}=${JSON.stringify(raw)}: expected a number >= ${min}`);
  return n;
}

function previousBuild(dir: string | undefined): string | null {
  if (!dir) return null;
  const root = path.resolve(dir);
  if (!fs.existsSync(path.join(root, 'dist/core/main.js'))) throw new Error(`BENCH_PREVIOUS_BUILD=${dir}: no dist/core/main.js there (run npm ci && npm run build in it)`);
  return root;
}

export function loadSettings(): Settings {
  return {
    seconds: num('BENCH_SECONDS', 10, 1),
    warmupSeconds: num('BENCH_WARMUP_SECONDS', 2, 0),
    connections: Math.floor(num('BENCH_CONNECTIONS', 32, 1)),
    rounds: Math.floor(num('BENCH_ROUNDS', 5, 1)),
    body: JSON.stringify({ event: 'order.created', id: 123456, amount: 19.99, currency: 'EUR', customer: { id: 'cus_42' } }),
    serviceNodeArgs: (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
    previousBuild: previousBuild(process.env.BENCH_PREVIOUS_BUILD),
  };
}

// ---------------------------------------------------------------------------------------------
// Report shape

export interface Goal {
  name: string;
  target: string;
  actual: string;
  pass: boolean;
}

export interface SectionResult {
  /** Numbers for the JSON report (free-form per section). */
  metrics: Record<string, unknown>;
  /** Timing and correctness goals; a missed goal is reported, not fatal. */
  goals: Goal[];
  /** Human-readable lines for the console report. */
  lines: string[];
  /** Problems that make the run itself invalid (non-2xx answers, socket errors...): exit code 1. */
  runErrors: string[];
}

export interface BenchContext {
  settings: Settings;
  /** Results of the sections that already ran, by section name (e.g. `bare` for the baseline). */
  results: Map<string, SectionResult>;
  /** Progress messages (stderr, so stdout stays the report). */
  log(msg: string): void;
}

/** A section of the report: adding one to the list in bench/capture.ts is all it takes. */
export interface Section {
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<SectionResult>;
}

// ---------------------------------------------------------------------------------------------
// Child processes

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface Child {
  url: string;
  proc: ChildProcess;
  /** The last lines the child wrote (stdout and stderr), for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

async function waitForHttp(url: string, proc: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`child exited (${proc.exitCode ?? proc.signalCode}) before answering ${url}\n${output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${timeoutMs} ms\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves once something accepts TCP connections on the port (a server that speaks no HTTP/1.1). */
async function waitForTcp(port: number, proc: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`child exited (${proc.exitCode ?? proc.signalCode}) before listening on ${port}\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} within ${timeoutMs} ms\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `readyPath`: the path that answers 2xx once the child is ready; null: ready once it accepts connections. */
export async function startChild(opts: { script: string; env: Record<string, string>; nodeArgs?: string[]; readyPath: string | null; port: number; cwd?: string }): Promise<Child> {
  if (!fs.existsSync(opts.script)) throw new Error(`${opts.script} does not exist: did the build run?`);
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd ?? ROOT });
  children.add(proc);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      children.delete(proc);
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${opts.port}`;
  const child: Child = {
    url,
    proc,
    output: () => tail,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      }
      return proc.exitCode;
    },
  };
  try {
    await (opts.readyPath === null ? waitForTcp(opts.port, proc, child.output) : waitForHttp(url + opts.readyPath, proc, child.output));
  } catch (e) {
    await child.stop();
    throw e;
  }
  return child;
}

/** The baseline server of bench/bare-server.ts, or (`http2`) its cleartext HTTP/2 twin, bench/bare-h2-server.ts. */
export async function startBare(protocol: 'http1' | 'http2' = 'http1'): Promise<Child> {
  const port = await freePort();
  return startChild({
    script: path.join(ROOT, protocol === 'http2' ? 'dist/bench/bare-h2-server.js' : 'dist/bench/bare-server.js'),
    env: { PORT: String(port), HOST: '127.0.0.1' },
    readyPath: protocol === 'http2' ? null : '/',
    port,
  });
}

/** The minimal capture server (bench/minimal-capture-server.ts) on a fresh data directory, removed on stop. */
export async function startMinimal(): Promise<Child> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-bench-minimal-'));
  try {
    const child = await startChild({ script: path.join(ROOT, 'dist/bench/minimal-capture-server.js'), env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir }, readyPath: '/', port });
    return {
      ...child,
      async stop() {
        const code = await child.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
        return code;
      },
    };
  } catch (e) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

export const ADMIN_API_KEY = 'bench-admin-key-0123456789abcdef';

export interface Service extends Child {
  dataDir: string;
  /** JSON API call; throws unless the answer is 2xx. `admin` sends the Api-Key header. */
  api<T = Record<string, unknown>>(method: string, urlPath: string, body?: unknown, admin?: boolean): Promise<T>;
  /** Creates an anonymous token (as a webhook.site visitor would) and returns its UUID. */
  createToken(settings?: Record<string, unknown>): Promise<string>;
  /** How many requests the token holds now (`total` of the request list). */
  storedCount(uuid: string): Promise<number>;
  /** Stops the process and removes its data directory. */
  stop(): Promise<number | null>;
}

/** The environment the benchmark starts the service with: loopback, its own data folder, quiet. */
/**
 * Settings for every service the bench starts, from BENCH_SERVICE_ENV ("NAME=value NAME2=value"),
 * to compare configurations (SQLITE_WRITER=worker, say) in the same sections.
 */
export function serviceEnvOverrides(raw = process.env.BENCH_SERVICE_ENV ?? ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of raw.split(/\s+/).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`BENCH_SERVICE_ENV: expected NAME=value, got ${JSON.stringify(part)}`);
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

export function serviceEnv(port: number, dataDir: string, extraEnv: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY,
    LOG_LEVEL: 'warn',
    TOKEN_CREATE_PER_MIN_FREE: '1000000',
    TOKEN_CREATE_PER_MIN_PREMIUM: '1000000',
    // The embedded store is what we measure, whatever the caller's shell says.
    MONGODB_URI: '',
    BASE_URL: '',
    // Any free port for the e-mail and DNS servers, so a running service does not stop the bench.
    SMTP_PORT: '0',
    DNS_PORT: '0',
    ...serviceEnvOverrides(),
    ...extraEnv,
  };
}

/**
 * The real service (`node dist/core/main.js` of `root`, this checkout by default) on a fresh SQLite
 * data directory, with the node flags `npm start` gives it (those `nodeArgs` do not set otherwise).
 */
export async function startService(extraEnv: Record<string, string> = {}, nodeArgs: string[] = [], root = ROOT): Promise<Service> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-bench-'));
  const env = serviceEnv(port, dataDir, extraEnv);
  let child: Child;
  try {
    child = await startChild({ script: path.join(root, 'dist/core/main.js'), env, nodeArgs: [...missingServiceFlags(nodeArgs, ''), ...nodeArgs], readyPath: '/healthz', port, cwd: root });
  } catch (e) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }

  async function api<T>(method: string, urlPath: string, body?: unknown, admin = false): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (admin) headers['Api-Key'] = ADMIN_API_KEY;
    const res = await fetch(child.url + urlPath, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${urlPath} answered ${res.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  return {
    ...child,
    dataDir,
    api,
    async createToken(settings = {}) {
      const t = await api<{ uuid: string }>('POST', '/token', settings);
      if (typeof t.uuid !== 'string') throw new Error(`POST /token gave no uuid: ${JSON.stringify(t)}`);
      return t.uuid;
    },
    async storedCount(uuid) {
      const page = await api<{ total: number }>('GET', `/token/${uuid}/requests?per_page=1`, undefined, true);
      if (typeof page.total !== 'number') throw new Error(`GET /token/${uuid}/requests gave no total: ${JSON.stringify(page)}`);
      return page.total;
    },
    async stop() {
      const code = await child.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Load

export interface LoadOptions {
  url: string;
  /** Length of the run; ignored when `amount` is given. With `until`, the longest it runs. */
  seconds: number;
  /**
   * Ends the run once this settles (at autocannon's next one-second sample), so that a window can
   * last as long as some other work without restarting the load generator: a run of one-second
   * runs reconnects every second, and each reported 1-5% more time than it loaded.
   */
  until?: Promise<unknown>;
  /** Send exactly this many requests instead of running for `seconds`. */
  amount?: number;
  /** Requests in flight per connection (1 unless given). */
  pipelining?: number;
  connections: number;
  method?: string;
  /** Used when `requests` is not given. */
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Each connection cycles through this list (e.g. one path per token). */
  requests?: autocannon.Request[];
  /** The server's process: its CPU time over the run is reported (Linux /proc only). */
  serverPid?: number;
  /**
   * Counts in the server's CPU time the work the run's requests left for later (the service's
   * catch-up, trims and WAL checkpoints, deferred up to CATCH_UP_MS): after the run, waits
   * SETTLE_MS, then until the server is quiet, and reads its CPU time there. Without it a window
   * leaves up to its last 200 ms of catch-ups out, or to whichever window comes next.
   */
  settle?: boolean;
}

/** Longer than the service's catch-up delay (200 ms): its deferred work has started by then. */
const SETTLE_MS = 400;

export interface Measurement {
  /** Completed responses per second over the run. */
  rps: number;
  latencyMs: {
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
    avg: number;
    max: number;
    /** Merged windows only: the worst p99 of one window (what p99 was before windows were merged exactly). */
    p99WorstWindow?: number;
  };
  /** Answers by class: `answered2xx` is what autocannon counted as 2xx. */
  answered2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  completed: number;
  durationS: number;
  statusCodes: Record<string, number>;
  /**
   * CPU time the server process spent per completed request, in µs (user + system), and its busy
   * share of one core. Less sensitive to other jobs on the machine than req/s. Null without /proc.
   */
  serverCpuUsPerRequest: number | null;
  serverCpuBusy: number | null;
  /**
   * The same per thread of the server that used more than 1% of a core, busiest first (the event
   * loop, the capture writer...): where the time goes, and whether a thread waits on another.
   */
  serverThreads: Array<{ tid: number; usPerRequest: number; busy: number; diskReadMBps?: number }> | null;
  /** The load generator's own CPU time per completed request, in µs (this process). */
  loadgenCpuUsPerRequest: number;
  /** 1-minute load average when the run started: context for noisy numbers. */
  loadavg1m: number;
}

/**
 * Every response's latency, counted in bins of LATENCY_BIN_MS (bin index -> responses), so that
 * windows merge into exact percentiles. Kept on a Measurement as a non-enumerable property: the
 * JSON report leaves it out.
 */
export const LATENCY_BIN_MS = 0.1;
export type LatencyBins = Map<number, number>;
const BINS = Symbol('latency bins');
type Binned = Measurement & { [BINS]?: LatencyBins };
/** A measurement's latency bins, if its run counted them. */
export const latencyBins = (m: Measurement): LatencyBins | undefined => (m as Binned)[BINS];
export function withLatencyBins(m: Measurement, bins: LatencyBins): Measurement {
  Object.defineProperty(m, BINS, { value: bins, enumerable: false });
  return m;
}
/** The q-quantile (0-1) of binned latencies: the upper edge of the bin where q of the responses are reached. */
export function binnedQuantile(bins: LatencyBins, q: number): number {
  const keys = [...bins.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const k of keys) total += bins.get(k)!;
  if (!total) return NaN;
  const need = Math.ceil(q * total);
  let seen = 0;
  for (const k of keys) {
    seen += bins.get(k)!;
    if (seen >= need) return Math.round((k + 1) * LATENCY_BIN_MS * 10) / 10;
  }
  return Math.round((keys.at(-1)! + 1) * LATENCY_BIN_MS * 10) / 10;
}

let clockTicks: number | null = null;
/** user + system CPU milliseconds in a /proc stat file (a process's or a thread's); null where unavailable. */
function statCpuMs(statFile: string): number | null {
  try {
    const stat = fs.readFileSync(statFile, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state) of proc(5); utime and stime are fields 14 and 15.
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (clockTicks === null) {
      try {
        clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
      } catch {
        clockTicks = 100;
      }
    }
    return Number.isFinite(ticks) ? (ticks * 1000) / clockTicks : null;
  } catch {
    return null;
  }
}

/** user + system CPU milliseconds of a process, from /proc/<pid>/stat; null where unavailable. */
export function processCpuMs(pid: number): number | null {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** Bytes a thread had read from the disk (not the OS cache), from /proc/<pid>/task/<tid>/io; 0 where unreadable. */
function readBytes(file: string): number {
  try {
    return Number(/^read_bytes: (\d+)$/m.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU milliseconds and bytes read from the disk of each thread of a process, by thread id; null where unavailable. */
function threadCpuMs(pid: number): Map<number, { ms: number; read: number }> | null {
  try {
    const out = new Map<number, { ms: number; read: number }>();
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const ms = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
      if (ms !== null) out.set(Number(tid), { ms, read: readBytes(`/proc/${pid}/task/${tid}/io`) });
    }
    return out;
  } catch {
    return null;
  }
}

/** autocannon's request timeout (its default, 10 s): no latency is longer. */
const LATENCY_LIMIT_MS = 10_000;

export async function load(opts: LoadOptions): Promise<Measurement> {
  const loadavg1m = os.loadavg()[0] ?? 0;
  const cpu0 = opts.serverPid ? processCpuMs(opts.serverPid) : null;
  const threads0 = opts.serverPid ? threadCpuMs(opts.serverPid) : null;
  const self0 = process.cpuUsage();
  const wall0 = performance.now();
  // Each response's latency in bins (an array while it runs: one increment per response).
  const counts = new Uint32Array(Math.ceil(LATENCY_LIMIT_MS / LATENCY_BIN_MS) + 1);
  const run = autocannon({
    url: opts.requests ? opts.url : opts.url + (opts.path ?? ''),
    connections: opts.connections,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.seconds }),
    ...(opts.pipelining ? { pipelining: opts.pipelining } : {}),
    method: opts.method ?? 'POST',
    headers: opts.headers ?? { 'Content-Type': 'application/json' },
    body: opts.body,
    ...(opts.requests ? { requests: opts.requests } : {}),
  });
  run.on('response', (_client, _status, _bytes, ms) => counts[Math.min(counts.length - 1, Math.floor(ms / LATENCY_BIN_MS))]!++);
  const stop = () => run.stop();
  opts.until?.then(stop, stop);
  const r = await run;
  const bins: LatencyBins = new Map();
  for (let i = 0; i < counts.length; i++) if (counts[i]) bins.set(i, counts[i]!);
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = s.count;
  const completed = r.requests.total;
  const self = process.cpuUsage(self0);
  const wallMs = performance.now() - wall0;
  if (opts.settle && opts.serverPid) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await quiet(opts.serverPid, 5000, 200);
  }
  const cpu1 = opts.serverPid ? processCpuMs(opts.serverPid) : null;
  const threads1 = opts.serverPid ? threadCpuMs(opts.serverPid) : null;
  const cpuMs = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
  let serverThreads: Measurement['serverThreads'] = null;
  if (threads0 && threads1 && completed > 0) {
    serverThreads = [...threads1]
      .map(([tid, t1]) => {
        const t0 = threads0.get(tid) ?? t1;
        return { tid, ms: t1.ms - t0.ms, read: t1.read - t0.read };
      })
      .filter((t) => t.ms / wallMs > 0.01)
      .sort((a, b) => b.ms - a.ms)
      .map((t) => ({ tid: t.tid, usPerRequest: (t.ms * 1000) / completed, busy: t.ms / wallMs, ...(t.read > 0 ? { diskReadMBps: t.read / 1e3 / wallMs } : {}) }));
  }
  return withLatencyBins(
    {
      rps: r.duration > 0 ? completed / r.duration : 0,
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, p99_9: r.latency.p99_9, avg: r.latency.average, max: r.latency.max },
      answered2xx: r['2xx'],
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      completed,
      durationS: r.duration,
      statusCodes,
      serverCpuUsPerRequest: cpuMs !== null && completed > 0 ? (cpuMs * 1000) / completed : null,
      serverCpuBusy: cpuMs !== null ? cpuMs / wallMs : null,
      serverThreads,
      loadgenCpuUsPerRequest: completed > 0 ? (self.user + self.system) / completed : 0,
      loadavg1m,
    },
    bins,
  );
}

/**
 * Several measurements as one: counts and durations add up; rates and CPU per request are weighted
 * by what each measured. Percentiles are those of every response of every window when each window
 * counted its latencies (load() does); otherwise medians are weighted and p99, p99.9 and max are
 * the worst of the windows, which does not flatter them but grows with the number of windows (a
 * loaded window of 150 one-second runs then reported its worst second). `p99WorstWindow` keeps that
 * figure beside the exact one.
 */
export function mergeMeasurements(ms: Measurement[]): Measurement {
  if (ms.length === 1) return ms[0]!;
  const completed = ms.reduce((a, m) => a + m.completed, 0);
  const durationS = ms.reduce((a, m) => a + m.durationS, 0);
  const byRequests = (f: (m: Measurement) => number) => (completed > 0 ? ms.reduce((a, m) => a + f(m) * m.completed, 0) / completed : 0);
  const byTime = (f: (m: Measurement) => number) => (durationS > 0 ? ms.reduce((a, m) => a + f(m) * m.durationS, 0) / durationS : 0);
  const worst = (f: (m: Measurement) => number) => Math.max(...ms.map(f));
  const statusCodes: Record<string, number> = {};
  for (const m of ms) for (const [code, n] of Object.entries(m.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const withCpu = ms.every((m) => m.serverCpuUsPerRequest !== null && m.serverCpuBusy !== null);
  let serverThreads: Measurement['serverThreads'] = null;
  if (ms.every((m) => m.serverThreads)) {
    const tids = new Map<number, { us: number; busy: number; mb: number }>();
    for (const m of ms) {
      for (const t of m.serverThreads!) {
        const e = tids.get(t.tid) ?? { us: 0, busy: 0, mb: 0 };
        e.us += t.usPerRequest * m.completed;
        e.busy += t.busy * m.durationS;
        e.mb += (t.diskReadMBps ?? 0) * m.durationS;
        tids.set(t.tid, e);
      }
    }
    serverThreads = [...tids]
      .map(([tid, e]) => ({
        tid,
        usPerRequest: completed > 0 ? e.us / completed : 0,
        busy: durationS > 0 ? e.busy / durationS : 0,
        ...(e.mb > 0 && durationS > 0 ? { diskReadMBps: e.mb / durationS } : {}),
      }))
      .filter((t) => t.busy > 0.01)
      .sort((a, b) => b.usPerRequest - a.usPerRequest);
  }
  let merged: LatencyBins | null = new Map();
  for (const m of ms) {
    const b = latencyBins(m);
    if (!b || !merged) {
      merged = null;
      break;
    }
    for (const [k, n] of b) merged.set(k, (merged.get(k) ?? 0) + n);
  }
  const exact = merged && merged.size ? merged : null;
  const result: Measurement = {
    rps: durationS > 0 ? completed / durationS : 0,
    latencyMs: {
      p50: exact ? binnedQuantile(exact, 0.5) : byRequests((m) => m.latencyMs.p50),
      p90: exact ? binnedQuantile(exact, 0.9) : byRequests((m) => m.latencyMs.p90),
      p99: exact ? binnedQuantile(exact, 0.99) : worst((m) => m.latencyMs.p99),
      p99_9: exact ? binnedQuantile(exact, 0.999) : worst((m) => m.latencyMs.p99_9),
      avg: byRequests((m) => m.latencyMs.avg),
      max: worst((m) => m.latencyMs.max),
      p99WorstWindow: worst((m) => m.latencyMs.p99WorstWindow ?? m.latencyMs.p99),
    },
    answered2xx: ms.reduce((a, m) => a + m.answered2xx, 0),
    non2xx: ms.reduce((a, m) => a + m.non2xx, 0),
    errors: ms.reduce((a, m) => a + m.errors, 0),
    timeouts: ms.reduce((a, m) => a + m.timeouts, 0),
    completed,
    durationS: Math.round(durationS * 100) / 100,
    statusCodes,
    serverCpuUsPerRequest: withCpu ? byRequests((m) => m.serverCpuUsPerRequest!) : null,
    serverCpuBusy: withCpu ? byTime((m) => m.serverCpuBusy!) : null,
    serverThreads,
    loadgenCpuUsPerRequest: byRequests((m) => m.loadgenCpuUsPerRequest),
    loadavg1m: ms[0]!.loadavg1m,
  };
  return exact ? withLatencyBins(result, exact) : result;
}

/**
 * Waits until a process has been nearly idle (under 5% of a core) for `idleMs` (100 ms), at most
 * `maxMs`: between paired windows, so that work one server deferred (the service's catch-up and
 * WAL checkpoint) does not run during the other's window. Returns how long it waited.
 */
export async function quiet(pid: number, maxMs = 3000, idleMs = 100): Promise<number> {
  const started = performance.now();
  let last = processCpuMs(pid);
  let idleSince = performance.now();
  while (last !== null && performance.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 100));
    const now = processCpuMs(pid);
    if (now === null) break;
    if (now - last >= 5) idleSince = performance.now();
    else if (performance.now() - idleSince >= idleMs) break;
    last = now;
  }
  return performance.now() - started;
}

/** A line of /proc/<pid>/status in MiB (`VmRSS` resident now, `VmHWM` its peak); NaN without /proc. */
export function procMemMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The p-th percentile (0-100, nearest rank) of ascending numbers; NaN for none. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/**
 * Warm-up load (JIT, caches, lazily started parts of the service). Only wrong answers count as
 * problems: a cold server may answer nothing at all within a short warm-up.
 */
export async function warmUp(label: string, opts: LoadOptions): Promise<string[]> {
  if (opts.seconds <= 0) return [];
  const m = await load(opts);
  const out: string[] = [];
  if (m.non2xx > 0) out.push(`${label}: ${m.non2xx} non-2xx answers (${JSON.stringify(m.statusCodes)})`);
  if (m.errors > 0) out.push(`${label}: ${m.errors} socket errors`);
  return out;
}

/** Sends one request and waits for a 2xx answer (first answers of a fresh process can be slow). */
export async function firstAnswer(url: string, init: RequestInit, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return performance.now() - started;
}

/** Run-level problems of a measurement (anything but clean 2xx answers). */
export function loadErrors(label: string, m: Measurement): string[] {
  const out: string[] = [];
  if (m.answered2xx === 0) out.push(`${label}: no 2xx answers at all`);
  if (m.non2xx > 0) out.push(`${label}: ${m.non2xx} non-2xx answers (${JSON.stringify(m.statusCodes)})`);
  if (m.errors > 0) out.push(`${label}: ${m.errors} socket errors`);
  if (m.timeouts > 0) out.push(`${label}: ${m.timeouts} timeouts`);
  return out;
}

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`,
  cpu: (m: Measurement) => (m.serverCpuUsPerRequest === null ? 'n/a' : `${Math.round(m.serverCpuUsPerRequest)} µs per request (server busy ${Math.round((m.serverCpuBusy ?? 0) * 100)}% of a core)`),
  /** Per-thread split of the server's CPU, and the load generator's own cost. */
  threads: (m: Measurement) =>
    (m.serverThreads?.length ? m.serverThreads.map((t) => `${Math.round(t.usPerRequest)} µs (${Math.round(t.busy * 100)}%)`).join(' + ') + ' by thread, busiest first; ' : '') +
    `load generator ${Math.round(m.loadgenCpuUsPerRequest)} µs per request`,
  latency: (m: Measurement) => `p50 ${fmt.ms(m.latencyMs.p50)}, p90 ${fmt.ms(m.latencyMs.p90)}, p99 ${fmt.ms(m.latencyMs.p99)} (max ${fmt.ms(m.latencyMs.max)})`,
};
