// A request with `Connection: Upgrade` is also a plain HTTP/1.1 request, and that is how the
// service answers it unless it is for the realtime channel (socket.io's WebSocket). node:http does
// not let a listener decide that per request: once any 'upgrade' listener exists it hands every
// such request there, with the head parsed and nothing of the body read. So the head is written
// back in front of what follows on the socket, byte for byte as node:http decoded it (latin1), and
// the socket handed to a node:http server without 'upgrade' listeners, which parses the request
// again and answers it like any other: body, Expect, keep-alive and pipelining included.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** The request line and header lines of `req` as they came, ending with the blank line. */
export function requestHead(req: IncomingMessage): string {
  let text = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return text + '\r\n';
}

/** Has `plain` (a node:http server with no 'upgrade' listener) parse and answer `req` as a plain request. */
export function answerAsPlainRequest(req: IncomingMessage, socket: Duplex, head: Buffer, plain: Server): void {
  socket.unshift(Buffer.concat([Buffer.from(requestHead(req), 'latin1'), head]));
  plain.emit('connection', socket);
}
