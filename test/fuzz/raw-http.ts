// One HTTP/1.1 request written byte for byte on a fresh loopback socket, for the fuzzer: the
// request target, header values and body go out as given (`../`, `%00`, bytes that are no UTF-8,
// repeated headers), which fetch and node:http would normalise or refuse before sending.
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target as sent: path and query string, latin1 (each char one byte). */
  target: string;
  /** In order, repeats allowed; latin1. `Host`, `Connection` and `Content-Length` are added. */
  headers: Array<[string, string]>;
  body?: Buffer;
}

export type RawOutcome =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer; ms: number }
  /** No complete answer within the time allowed. */
  | { kind: 'hang'; ms: number; head: string }
  /** The connection ended (or could not open) without an answer. */
  | { kind: 'no-answer'; error: string }
  /**
   * The service closed the connection before it had read the whole request (an answer it sent first
   * is lost with the reset): a server may answer early (413, 431) and stop reading.
   */
  | { kind: 'cut-off'; error: string };

/** A request this large may be cut off by an early answer (a small one is read whole first). */
const LARGE_REQUEST_BYTES = 64 * 1024;

/** Bytes of an answer's body kept (the rest is read and dropped). */
const KEPT_BODY_BYTES = 8 * 1024 * 1024;

export function sendRaw(base: string, req: RawRequest, timeoutMs: number): Promise<RawOutcome> {
  const { hostname, port } = new URL(base);
  const started = performance.now();
  const lines = [`${req.method} ${req.target} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close', ...req.headers.map(([n, v]) => `${n}: ${v}`)];
  if (req.body && !req.headers.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n))) lines.push(`Content-Length: ${req.body.length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let settled = false;
    const socket = net.connect({ host: hostname, port: Number(port) });
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'hang', ms: timeoutMs, head: Buffer.concat(chunks).subarray(0, 300).toString('latin1') }), timeoutMs);
    const answer = (): RawOutcome | null => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const [statusLine = '', ...headerLines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      return { kind: 'answer', status, headers, body: all.subarray(end + 4), ms: performance.now() - started };
    };
    socket.on('data', (chunk: Buffer) => {
      if (kept < KEPT_BODY_BYTES) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      // A live stream never ends by itself: its head is the answer.
      const a = answer();
      if (a?.kind === 'answer' && a.status === 200 && (a.headers['content-type'] ?? '').startsWith('text/event-stream')) finish(a);
    });
    socket.on('end', () => finish(answer() ?? { kind: 'no-answer', error: chunks.length ? 'an incomplete answer' : 'the connection closed' }));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A large request may still be in flight (or unread in the service's buffer) when it closes.
      const cut = head.length + (req.body?.length ?? 0) > LARGE_REQUEST_BYTES && (err.code === 'EPIPE' || err.code === 'ECONNRESET');
      finish(answer() ?? (cut ? { kind: 'cut-off', error: err.message } : { kind: 'no-answer', error: err.message }));
    });
    socket.on('close', () => finish(answer() ?? { kind: 'no-answer', error: 'the connection closed' }));
    socket.write(head);
    if (req.body?.length) socket.write(req.body);
  });
}
