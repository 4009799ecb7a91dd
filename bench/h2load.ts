// Load with h2load (Debian's nghttp2-client; `.ci/run` installs it): cleartext HTTP/2 with prior
// knowledge, or HTTP/1.1 (`--h1`) for a comparison made with the same generator, read back into
// the same Measurement as autocannon's runs (bench/harness.ts: load). Latencies come from h2load's
// per-request log, so windows merge into exact percentiles.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LATENCY_BIN_MS, processCpuMs, withLatencyBins, type LatencyBins, type Measurement } from './harness.js';

const run = promisify(execFile);

export interface H2LoadOptions {
  /** `http://host:port`. */
  url: string;
  /** `h2` (default), or `h1`: HTTP/1.1, one request in flight per connection. */
  protocol?: 'h1' | 'h2';
  /** Paths requested round-robin by each connection (one per token, say). */
  paths: string[];
  seconds: number;
  /** TCP connections, and (HTTP/2) streams in flight on each. */
  connections: number;
  streams: number;
  /** POSTed with each request when given. */
  body?: string;
  headers?: Record<string, string>;
  serverPid?: number;
}

/** Whether h2load can be run here (`apt-get install nghttp2-client`). */
export async function h2loadAvailable(): Promise<boolean> {
  try {
    await run('h2load', ['--version']);
    return true;
  } catch {
    return false;
  }
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export async function h2load(opts: H2LoadOptions): Promise<Measurement> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-h2load-'));
  try {
    const log = path.join(dir, 'requests.log');
    const h1 = opts.protocol === 'h1';
    const args = [...(h1 ? ['--h1'] : []), '-c', String(opts.connections), '-m', String(h1 ? 1 : opts.streams), '-D', String(opts.seconds), `--log-file=${log}`];
    if (opts.body !== undefined) {
      const data = path.join(dir, 'body');
      fs.writeFileSync(data, opts.body);
      args.push('-d', data);
    }
    for (const [name, value] of Object.entries(opts.headers ?? {})) args.push('-H', `${name}: ${value}`);
    args.push(...opts.paths.map((p) => opts.url + p));

    const loadavg1m = os.loadavg()[0] ?? 0;
    const cpu0 = opts.serverPid ? processCpuMs(opts.serverPid) : null;
    const wall0 = performance.now();
    const { stdout } = await run('h2load', args, { maxBuffer: 16 * 1024 * 1024 });
    const wallMs = performance.now() - wall0;
    const cpu1 = opts.serverPid ? processCpuMs(opts.serverPid) : null;

    // requests: 100 total, 100 started, 100 done, 98 succeeded, 2 failed, 0 errored, 0 timeout
    const requests = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
    const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(stdout);
    const finished = /finished in ([\d.]+)s/.exec(stdout);
    if (!requests || !codes || !finished) throw new Error(`h2load printed no summary:\n${stdout.slice(-2000)}`);
    const [, , , done, , , errored, timeouts] = requests.map(Number);
    const [, c2, c3, c4, c5] = codes.map(Number);
    const durationS = Number(finished[1]);

    // One line per answered request: start time (µs), status, time to the answer (µs).
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    const latencies = new Float64Array(lines.length);
    const bins: LatencyBins = new Map();
    let n = 0;
    let sum = 0;
    for (const line of lines) {
      const fields = line.split('\t');
      if (fields.length < 3) continue;
      const ms = Number(fields[2]) / 1000;
      latencies[n++] = ms;
      sum += ms;
      const bin = Math.floor(ms / LATENCY_BIN_MS);
      bins.set(bin, (bins.get(bin) ?? 0) + 1);
    }
    const sorted = latencies.subarray(0, n).sort();
    const cpuMs = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
    const completed = done!;
    return withLatencyBins(
      {
        rps: durationS > 0 ? completed / durationS : 0,
        latencyMs: { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), p99_9: quantile(sorted, 0.999), avg: n ? sum / n : NaN, max: n ? sorted[n - 1]! : NaN },
        answered2xx: c2!,
        non2xx: c3! + c4! + c5!,
        errors: errored!,
        timeouts: timeouts!,
        completed,
        durationS,
        statusCodes: Object.fromEntries(Object.entries({ '2xx': c2!, '3xx': c3!, '4xx': c4!, '5xx': c5! }).filter(([, v]) => v > 0)),
        serverCpuUsPerRequest: cpuMs !== null && completed > 0 ? (cpuMs * 1000) / completed : null,
        serverCpuBusy: cpuMs !== null ? cpuMs / wallMs : null,
        serverThreads: null,
        // h2load is another process: its CPU time is not counted here.
        loadgenCpuUsPerRequest: 0,
        loadavg1m,
      },
      bins,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
