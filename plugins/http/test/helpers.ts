// Test helpers: a local HTTP(S) server that records what it receives, and the service's real
// outbound client in the SDK's HttpClient shape (what the action gets in production).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createOutboundClient } from '../../../test/helpers/host.js';
import type { HttpClient } from '@capture/sdk';

export interface Received {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (req: Received, res: ServerResponse, n: number) => void | Promise<void>;

export interface TestHttpServer {
  /** `http://127.0.0.1:<port>` (or https). */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

const defaultHandler: Handler = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': 'yes' });
  res.end('{"ok":true}');
};

/** Starts a server on a free loopback port; every request is recorded, then answered by `handler`. */
export async function startServer(handler: Handler = defaultHandler, tls?: { key: string; cert: string }): Promise<TestHttpServer> {
  const received: Received[] = [];
  const listener = (req: http.IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(r);
      Promise.resolve(handler(r, res, received.length)).catch((e) => {
        res.writeHead(500);
        res.end(String(e));
      });
    });
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on. */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A self-signed certificate for 127.0.0.1, made with openssl for this run. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-plugin-cert-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The service's outbound client (loopback allowed), adapted to the SDK's HttpClient as core does. */
export function outboundHttp(policy: { loopback?: boolean } = {}): HttpClient & { sent: Array<Parameters<HttpClient['request']>[0]> } {
  const outbound = createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: policy.loopback ?? true, OUTBOUND_ALLOW_PRIVATE: true });
  const sent: Array<Parameters<HttpClient['request']>[0]> = [];
  const via = async (client: Pick<typeof outbound, 'request'>, req: Parameters<HttpClient['request']>[0]) => {
    sent.push(req);
    const r = await client.request(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) headers[k] = v.join(', ');
    return { status: r.status, headers, body: r.body, url: r.url, truncated: r.truncated };
  };
  return {
    sent,
    request: (req) => via(outbound, req),
    session() {
      const s = outbound.session();
      return { request: (req) => via(s, req), close: () => s.close() };
    },
  };
}
