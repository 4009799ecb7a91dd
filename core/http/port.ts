// The HTTP port: one listener speaking HTTP/1.1 and HTTP/2, every request ending in one request
// listener. In cleartext a connection whose first bytes are HTTP/2's preface goes to an http2
// session (h2c with prior knowledge), any other to node:http; with TLS_CERT/TLS_KEY the port is
// HTTPS and ALPN decides (`h2`, else HTTP/1.1). The listening server is a plain node:http (or
// https) server whose own connection listener is called for HTTP/1 connections, so its timeouts,
// connection tracking, `close*Connections` and socket.io's attachment work as without HTTP/2.
// HTTP/2 requests come through node:http2's compatibility API, which has the members the handlers
// use (method, url, rawHeaders, headers, socket, writeHead, end...); the handlers leave out what
// HTTP/2 forbids (connection-specific headers). A capture's usual answer skips the layer's
// writeHead and goes to the stream itself (core/capture/http-capture.ts).
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Config } from '../config.js';
import type { TlsFiles } from '../net/tls-files.js';
import { headerBlockBytes } from './header-block.js';
import { whenProtocolKnown } from './preface.js';
import { answerAsPlainRequest } from './upgrade.js';

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface HttpPort {
  /** What listens on PORT (an https.Server with TLS): HTTP/1.1 requests and upgrades are its events. */
  server: http.Server;
  /** Whether PORT speaks TLS. */
  secure: boolean;
  /**
   * From now on the upgrade listeners attached so far (socket.io's) get only the upgrade requests
   * whose URL `isChannel` accepts; every other one is answered as a plain request (upgrade.ts).
   */
  routeUpgrades(isChannel: (url: string) => boolean): void;
  /** Stops accepting; requests and streams in flight get `graceMs`, then their connections are cut. */
  close(graceMs: number): Promise<void>;
}

/** Headers a request may have, as node:http's default maxHeadersCount. */
const MAX_HEADER_PAIRS = 2000;
/** What HPACK counts per header beyond its name and value (RFC 7541 §4.1). */
const HPACK_ENTRY_OVERHEAD = 32;
/** An idle HTTP/1.1 connection (keep-alive) or HTTP/2 session with no stream open is closed after this. */
const IDLE_MS = 65_000;

export function createHttpPort(config: Config, tls: TlsFiles | null, handle: RequestHandler): HttpPort {
  const tooLarge = `Request headers larger than ${config.MAX_HEADER_BYTES} bytes`;
  const onRequest: RequestHandler = (req, res) => {
    // Before any route or capture: the whole header block, measured as sent (see header-block.ts).
    if (headerBlockBytes(req) > config.MAX_HEADER_BYTES) {
      const body = JSON.stringify({ message: tooLarge });
      const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
      // HTTP/2 has no Connection header: the stream ends with its answer, the session stays.
      if (req.httpVersionMajor < 2) headers.Connection = 'close';
      res.writeHead(431, headers).end(body);
      return;
    }
    handle(req, res);
  };
  // Oversized headers and malformed requests get a JSON error instead of a bare socket reset.
  const onClientError = (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const message = status === 431 ? tooLarge : 'Malformed HTTP request';
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
  const http1Options = { maxHeaderSize: config.MAX_HEADER_BYTES };
  const http1 = (server: http.Server) => {
    server.keepAliveTimeout = IDLE_MS;
    server.on('clientError', onClientError);
    return server;
  };
  // An https.Server is node:http's server over TLS: the same events and methods (socket.io takes either).
  const server = http1(tls ? (https.createServer({ ...http1Options, ...tls, ALPNProtocols: ['h2', 'http/1.1'] }, onRequest) as unknown as http.Server) : http.createServer(http1Options, onRequest));
  // Upgrade requests that are not the realtime channel's, parsed again as plain requests.
  const plain = http1(http.createServer(http1Options, onRequest));
  // It never listens: its connection tracking (idle and header timeouts) starts with the port's.
  server.once('listening', () => plain.emit('listening'));

  const h2 = http2.createServer({
    // The exact limit is MAX_HEADER_BYTES, answered 431 by onRequest: HPACK's count must not come first.
    maxHeaderListPairs: MAX_HEADER_PAIRS,
    settings: { maxHeaderListSize: config.MAX_HEADER_BYTES + HPACK_ENTRY_OVERHEAD * MAX_HEADER_PAIRS },
  });
  h2.on('request', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    // HTTP/2 says `:authority` where HTTP/1.1 says Host; an HTTP/1.1 intermediary makes one of the
    // other (RFC 9113 §8.3.1), and so does this port for the handlers.
    if (req.headers.host === undefined && req.authority) req.headers.host = req.authority;
    // Through the HTTP/1 server's listeners: socket.io's polling transport wraps them.
    server.emit('request', req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Idle sessions are closed like kept-alive HTTP/1.1 connections: one that started no stream
  // since the last look gets a GOAWAY, which lets streams in flight (a capture waiting on listen
  // or a timeout, an event stream) finish. A sweep rather than node:http2's session timeout,
  // which re-arms a timer on every frame.
  const lastStream = new WeakMap<http2.ServerHttp2Session, number>();
  const sweep = setInterval(() => {
    for (const session of sessions) {
      const last = session.state.lastProcStreamID ?? 0;
      if (lastStream.get(session) === last) session.close();
      else lastStream.set(session, last);
    }
  }, IDLE_MS);
  sweep.unref();

  // node:http's own connection listener, called once a connection shows itself HTTP/1.
  const event = tls ? 'secureConnection' : 'connection';
  const http1Listeners = server.listeners(event) as Array<(socket: Socket) => void>;
  server.removeAllListeners(event);
  const toHttp1 = (socket: Socket) => {
    for (const f of http1Listeners) f.call(server, socket);
  };
  const sniffing = new Set<Socket>();
  if (tls) {
    server.on('secureConnection', (socket: TLSSocket) => (socket.alpnProtocol === 'h2' ? h2.emit('connection', socket) : toHttp1(socket)));
  } else {
    server.on('connection', (socket: Socket) => {
      sniffing.add(socket);
      whenProtocolKnown(
        socket,
        server.headersTimeout,
        (isHttp2) => {
          sniffing.delete(socket);
          if (isHttp2) return void h2.emit('connection', socket);
          toHttp1(socket);
          socket.resume();
        },
        () => sniffing.delete(socket),
      );
    });
  }

  return {
    server,
    secure: tls !== null,
    routeUpgrades(isChannel) {
      const channel = server.listeners('upgrade') as Array<(req: http.IncomingMessage, socket: Duplex, head: Buffer) => void>;
      // None: node:http answers upgrade requests as plain requests by itself.
      if (channel.length === 0) return;
      server.removeAllListeners('upgrade');
      server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
        if (isChannel(req.url ?? '/')) for (const f of channel) f.call(server, req, socket, head);
        else answerAsPlainRequest(req, socket, head, plain);
      });
    },
    close(graceMs) {
      clearInterval(sweep);
      // A connection that has not sent a byte has no request to finish.
      for (const socket of sniffing) socket.destroy();
      // GOAWAY: streams in flight finish, no new ones start.
      for (const session of sessions) session.close();
      return new Promise<void>((resolve) => {
        // A kept-alive connection goes as soon as its request is answered; what still runs after
        // the grace period is cut off.
        const idle = setInterval(() => {
          server.closeIdleConnections();
          plain.closeIdleConnections();
        }, 50);
        const cut = setTimeout(() => {
          server.closeAllConnections();
          plain.closeAllConnections();
          for (const session of sessions) session.destroy();
        }, graceMs);
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          resolve();
        });
        // It never listened: this only stops its connection checks (ERR_SERVER_NOT_RUNNING expected).
        plain.close(() => {});
        server.closeIdleConnections();
      });
    },
  };
}
