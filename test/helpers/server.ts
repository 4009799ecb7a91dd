// Starts the whole service on a free loopback port with an in-memory SQLite store.
import { loadConfig, type RawConfig } from '../../core/config.js';
import { silentLogger } from '../../core/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../core/server.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestServer extends RunningServer {
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  user(premium: boolean): Promise<{ id: number; key: string }>;
  token(body?: Record<string, unknown>, key?: string): Promise<Record<string, any>>;
}

export interface CallOptions {
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
  key?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  buf: Buffer;
  text: string;
  data: any;
}

export async function startTestServer(env: Partial<Record<keyof RawConfig, string>> = {}, opts: ServerOptions = {}): Promise<TestServer> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: ':memory:',
    SMTP_PORT: '0',
    DNS_PORT: '0',
    ADMIN_API_KEY: ADMIN_KEY,
    TOKEN_CREATE_PER_MIN_FREE: '100000',
    TOKEN_CREATE_PER_MIN_PREMIUM: '100000',
    ...env,
  });
  const running = await startServer(config, { logger: silentLogger, ...opts });
  let n = 0;

  async function call(method: string, path: string, o: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { Accept: 'application/json', ...o.headers };
    if (o.key) headers['Api-Key'] = o.key;
    let body: string | Buffer | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(running.url + path, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
    const buf = Buffer.from(await res.arrayBuffer());
    let data: unknown = null;
    if ((res.headers.get('content-type') ?? '').includes('json') && buf.length) {
      try {
        data = JSON.parse(buf.toString('utf8'));
      } catch {
        data = null;
      }
    }
    return { status: res.status, headers: res.headers, buf, text: buf.toString('utf8'), data };
  }

  async function user(premium: boolean) {
    n++;
    const r = await call('POST', '/users', { key: ADMIN_KEY, json: { name: `u${n}`, email: `u${n}@example.test`, premium } });
    if (r.status !== 201) throw new Error(`POST /users: ${r.status} ${r.text}`);
    return { id: r.data.id as number, key: r.data.api_key as string };
  }

  async function token(body: Record<string, unknown> = {}, key?: string) {
    const r = await call('POST', '/token', { json: body, key });
    if (r.status !== 200) throw new Error(`POST /token: ${r.status} ${r.text}`);
    return r.data;
  }

  return { ...running, call, user, token };
}
