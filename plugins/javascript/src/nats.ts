// The host side of a script's `require('nats')`: real NATS connections (the `nats` package) that a
// script drives through the sandbox's host calls. Every server is resolved through the outbound
// policy (ctx.services.net) and the connection goes to the address the policy checked. A run's
// connections and subscriptions end with the run (close()), and are bounded in number; messages a
// subscription received and the script has not read yet are capped too.
import type { Msg, MsgHdrs, NatsConnection, Subscription } from 'nats';
import { lazyImport } from '@capture/sdk/async';
import type { Network } from '@capture/sdk';
import type { SandboxNatsCall } from '@capture/sdk/sandbox';

// The client is loaded by a script's first connect, not at start-up.
const loadNats = lazyImport(() => import('nats'));
type Nats = Awaited<ReturnType<typeof loadNats>>;

const MAX_CONNECTIONS = 4;
// Each subscription read with a callback keeps one host call pending, out of the run's 32 (maxPendingHostCalls).
const MAX_SUBSCRIPTIONS = 16;
/** Messages kept per subscription until the script reads them; later ones are dropped. */
const MAX_BUFFERED = 1000;
const MAX_PAYLOAD_BYTES = 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

interface WireMessage {
  subject: string;
  reply: string;
  sid: number;
  data: string;
  headers?: Record<string, string[]>;
}

interface Sub {
  sub: Subscription;
  queue: WireMessage[];
  waiters: Array<(m: WireMessage | null) => void>;
  ended: boolean;
  dropped: number;
}

export interface NatsSessionOptions {
  net: Network;
  /** Milliseconds the run has left (bounds connect and request timeouts). */
  timeLeftMs(): number;
  /** Told about messages dropped because the script did not read them. */
  warn?(line: string): void;
}

function wire(m: Msg): WireMessage {
  const out: WireMessage = { subject: m.subject, reply: m.reply ?? '', sid: m.sid, data: Buffer.from(m.data).toString('base64') };
  if (m.headers) {
    const h: Record<string, string[]> = {};
    for (const k of m.headers.keys()) h[k] = m.headers.values(k);
    out.headers = h;
  }
  return out;
}

function text(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw new Error(`${what} must be a non-empty string`);
  return v;
}

function payload(v: unknown): Uint8Array {
  const b = Buffer.from(typeof v === 'string' ? v : '', 'base64');
  if (b.length > MAX_PAYLOAD_BYTES) throw new Error(`A NATS message may hold at most ${MAX_PAYLOAD_BYTES} bytes`);
  return b;
}

function hdrs(nats: Nats | undefined, v: unknown): MsgHdrs | undefined {
  if (!nats || !v || typeof v !== 'object') return undefined;
  const h = nats.headers();
  for (const [k, values] of Object.entries(v as Record<string, unknown>)) for (const x of Array.isArray(values) ? values : [values]) h.append(k, String(x));
  return h;
}

/** `host:port`, `nats://host:port`, `[v6]:port` or a bare host (port 4222). */
export function parseServer(server: string): { host: string; port: number } {
  const s = server
    .trim()
    .replace(/^(nats|tcp):\/\//i, '')
    .replace(/\/.*$/, '')
    .replace(/^[^@]*@/, '');
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) throw new Error(`Invalid NATS server "${server}"`);
  const port = m[2] === undefined ? 4222 : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`Invalid NATS server port in "${server}"`);
  return { host: m[1]!, port };
}

/** One run's NATS connections. */
export class NatsSessions {
  private readonly conns = new Map<number, NatsConnection>();
  private readonly subs = new Map<number, Sub>();
  private nextId = 1;
  private closed = false;
  private connecting = 0;
  /** The client package, loaded by the first connect (every other operation needs a connection). */
  private nats: Nats | undefined;

  constructor(private readonly opts: NatsSessionOptions) {}

  private conn(id: unknown): NatsConnection {
    const c = this.conns.get(Number(id));
    if (!c || c.isClosed()) throw new Error('CONNECTION_CLOSED: the NATS connection is closed');
    return c;
  }

  async call(call: SandboxNatsCall): Promise<unknown> {
    if (this.closed) throw new Error('The run has ended');
    switch (call.op) {
      case 'connect':
        return this.connect(call);
      case 'publish': {
        // Synchronous up to the client's write buffer: calls are sent in the order they came.
        const c = this.conn(call.conn);
        c.publish(text(call.subject, 'The subject'), payload(call.data), {
          ...(typeof call.reply === 'string' && call.reply ? { reply: call.reply } : {}),
          ...(hdrs(this.nats, call.headers) ? { headers: hdrs(this.nats, call.headers) } : {}),
        });
        return null;
      }
      case 'request': {
        const c = this.conn(call.conn);
        const timeout = Math.max(1, Math.min(Number(call.timeout) || 1000, this.opts.timeLeftMs()));
        const h = hdrs(this.nats, call.headers);
        const m = await c.request(text(call.subject, 'The subject'), payload(call.data), { timeout, ...(h ? { headers: h } : {}) });
        return wire(m);
      }
      case 'subscribe':
        return this.subscribe(call);
      case 'next': {
        const s = this.subs.get(Number(call.sub));
        if (!s) throw new Error('Unknown NATS subscription');
        const m = s.queue.shift();
        if (m) return m;
        if (s.ended) return null;
        return new Promise<WireMessage | null>((resolve) => s.waiters.push(resolve));
      }
      case 'unsubscribe': {
        const s = this.subs.get(Number(call.sub));
        if (!s) return null;
        const max = call.max === null || call.max === undefined ? undefined : Number(call.max);
        s.sub.unsubscribe(max);
        if (max === undefined) this.end(s);
        return null;
      }
      case 'flush':
        await this.conn(call.conn).flush();
        return null;
      case 'close': {
        const id = Number(call.conn);
        const c = this.conns.get(id);
        if (!c) return null;
        this.conns.delete(id);
        await (call.drain ? c.drain() : c.close()).catch(() => c.close());
        return null;
      }
      default:
        throw new Error(`Unknown NATS operation ${String(call.op)}`);
    }
  }

  private async connect(call: SandboxNatsCall): Promise<{ id: number; server: string }> {
    if (this.conns.size + this.connecting >= MAX_CONNECTIONS) throw new Error(`A script may open at most ${MAX_CONNECTIONS} NATS connections`);
    const servers = (Array.isArray(call.servers) ? call.servers : [call.servers]).map(String).slice(0, 8);
    if (!servers.length) throw new Error('No NATS server given');
    this.connecting++;
    try {
      // Every server through the outbound policy; the client connects to the checked addresses.
      const checked: string[] = [];
      let refusal: unknown;
      for (const s of servers) {
        const { host, port } = parseServer(s);
        try {
          const { address, family } = await this.opts.net.resolve(host);
          checked.push(family === 6 ? `[${address}]:${port}` : `${address}:${port}`);
        } catch (e) {
          refusal = e;
        }
      }
      if (!checked.length) throw refusal instanceof Error ? refusal : new Error('No NATS server is allowed');
      const timeout = Math.max(1, Math.min(Number(call.timeout) || DEFAULT_CONNECT_TIMEOUT_MS, this.opts.timeLeftMs()));
      this.nats ??= await loadNats();
      const nc = await this.nats.connect({
        servers: checked,
        timeout,
        reconnect: false,
        maxReconnectAttempts: 0,
        waitOnFirstConnect: false,
        ...(typeof call.user === 'string' ? { user: call.user } : {}),
        ...(typeof call.pass === 'string' ? { pass: call.pass } : {}),
        ...(typeof call.token === 'string' ? { token: call.token } : {}),
        name: typeof call.name === 'string' ? call.name : 'capture-sandbox',
      });
      if (this.closed) {
        await nc.close();
        throw new Error('The run has ended');
      }
      const id = this.nextId++;
      this.conns.set(id, nc);
      return { id, server: nc.getServer() };
    } finally {
      this.connecting--;
    }
  }

  private subscribe(call: SandboxNatsCall): number {
    const c = this.conn(call.conn);
    if (this.subs.size >= MAX_SUBSCRIPTIONS) throw new Error(`A script may hold at most ${MAX_SUBSCRIPTIONS} NATS subscriptions`);
    const id = this.nextId++;
    const s: Sub = { sub: undefined as unknown as Subscription, queue: [], waiters: [], ended: false, dropped: 0 };
    const max = Number(call.max) > 0 ? Number(call.max) : undefined;
    s.sub = c.subscribe(text(call.subject, 'The subject'), {
      ...(typeof call.queue === 'string' && call.queue ? { queue: call.queue } : {}),
      ...(max ? { max } : {}),
      callback: (err, m) => {
        if (err) return this.end(s);
        const w = s.waiters.shift();
        if (w) w(wire(m));
        else if (s.queue.length < MAX_BUFFERED) s.queue.push(wire(m));
        else if (s.dropped++ === 0) this.opts.warn?.(`NATS: more than ${MAX_BUFFERED} unread messages on ${s.sub.getSubject()}; later ones were dropped`);
        if (max && s.sub.getProcessed() >= max) this.end(s);
      },
    });
    void s.sub.closed.then(
      () => this.end(s),
      () => this.end(s),
    );
    this.subs.set(id, s);
    return id;
  }

  private end(s: Sub): void {
    if (s.ended) return;
    s.ended = true;
    for (const w of s.waiters.splice(0)) w(null);
  }

  /** Ends every subscription and closes every connection of the run (pending publishes are flushed first). */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.subs.values()) this.end(s);
    this.subs.clear();
    const conns = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(
      conns.map(async (c) => {
        const flushed = c.flush().catch(() => undefined);
        await Promise.race([flushed, new Promise((r) => setTimeout(r, 1000).unref())]);
        await c.close().catch(() => undefined);
      }),
    );
  }
}
