// A local HTTP server for the tests that plays a third-party API: each test file gives it a
// handler that checks what it received the way the real service would and answers like it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as text/plain. */
  text?: string;
}

export interface ApiServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function apiServer(handle: (req: Received) => Answer | Promise<Answer>): Promise<ApiServer> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const u = new URL(req.url ?? '/', 'http://local');
      const r: Received = { method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      let answer: Answer;
      try {
        answer = await handle(r);
      } catch (e) {
        answer = { status: 500, text: `test server failed: ${(e as Error).message}` };
      }
      const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? '');
      const type = answer.json !== undefined ? 'application/json' : 'text/plain; charset=utf-8';
      res.writeHead(answer.status ?? 200, { 'Content-Type': type, ...answer.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The body parsed as JSON, or undefined when it is not JSON. */
export function jsonOf(r: Received): any {
  try {
    return JSON.parse(r.body);
  } catch {
    return undefined;
  }
}
