// Cleartext HTTP/2 with prior knowledge (h2c, as proxies such as Envoy or Caddy send it upstream)
// opens the connection with a fixed preface (RFC 9113 §3.4) that no HTTP/1 request starts with:
// node:http itself refuses a `PRI` request. One look at a connection's first bytes tells the two
// apart; what follows on the connection is never looked at again.
import type { Socket } from 'node:net';

export const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** `true`: `bytes` are the whole preface (and maybe more); `false`: they differ from it; `null`: a prefix of it so far. */
export function startsWithPreface(bytes: Buffer): boolean | null {
  const n = Math.min(bytes.length, HTTP2_PREFACE.length);
  if (HTTP2_PREFACE.compare(bytes, 0, n, 0, n) !== 0) return false;
  return n === HTTP2_PREFACE.length ? true : null;
}

/**
 * Reads `socket` until its first bytes tell whether it speaks HTTP/2 with prior knowledge, puts
 * them back unread, pauses it and calls `then` once. A connection that closes, fails or sends
 * nothing for `timeoutMs` first is destroyed instead (as node:http closes one that sends no
 * request within its headersTimeout).
 */
export function whenProtocolKnown(socket: Socket, timeoutMs: number, then: (http2: boolean) => void, gone: () => void): void {
  let seen: Buffer | null = null;
  const stop = () => {
    socket.removeListener('data', onData);
    socket.removeListener('error', drop);
    socket.removeListener('end', drop);
    socket.removeListener('timeout', drop);
    socket.setTimeout(0);
  };
  function drop() {
    stop();
    socket.destroy();
    gone();
  }
  function onData(chunk: Buffer) {
    seen = seen ? Buffer.concat([seen, chunk]) : chunk;
    const http2 = startsWithPreface(seen);
    if (http2 === null) return;
    stop();
    socket.pause();
    socket.unshift(seen);
    then(http2);
  }
  socket.on('data', onData);
  socket.on('error', drop);
  socket.on('end', drop);
  socket.on('timeout', drop);
  socket.setTimeout(timeoutMs);
}
