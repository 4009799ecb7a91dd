// @capture/client: the service's API for test suites and scripts, typed from its OpenAPI document
// (api-types.ts, generated). No dependencies beyond Node 20's fetch. The `capture` command line is
// built on it, so there is one HTTP client for the API.
//
//   const capture = new CaptureClient({ url: 'http://localhost:8084', apiKey: process.env.CAPTURE_API_KEY });
//   const token = await capture.createToken();
//   await fetch(capture.captureUrl(token) + '/hook', { method: 'POST', body: '{"ok":true}' });
//   const request = await capture.waitForRequest(token, 'method:POST', 10);
import type { Operations } from './api-types.js';

export type { Operations } from './api-types.js';
export type Token = Operations['GET /token/{token_id}']['response'];
export type TokenCreate = Operations['POST /token']['body'];
export type TokenUpdate = Operations['PUT /token/{token_id}']['body'];
export type CapturedRequest = Operations['GET /token/{token_id}/request/{request_id}']['response'];
export type RequestPage = Operations['GET /token/{token_id}/requests']['response'];
export type RequestListQuery = Operations['GET /token/{token_id}/requests']['query'];
export type ExportQuery = Operations['GET /token/{token_id}/requests/export']['query'];
export type ForwardResult = Operations['POST /token/{token_id}/request/{request_id}/forward']['response'];
export type SetResponse = Operations['PUT /token/{token_id}/request/{request_id}/response']['body'];
export type SampleCatalogue = Operations['GET /samples']['response'];
export type SampleSend = Operations['POST /samples/send']['body'];
export type SampleSent = Operations['POST /samples/send']['response'];

/** A token, or its UUID or alias. */
export type TokenRef = string | { uuid: string };
/** A request, or its UUID (or `latest`). */
export type RequestRef = string | { uuid: string };

export interface ClientOptions {
  /** The service's base URL, e.g. http://localhost:8084. */
  url: string;
  /** An API key (`Api-Key` header); tokens made without one are anonymous. */
  apiKey?: string;
}

/** The API's answer to a call that failed: its status and the JSON error it sent. */
export class CaptureError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Field -> messages, from the API's `errors` (validation failures). */
    readonly errors: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = 'CaptureError';
  }
}

/** No matching request arrived in time (`waitForRequest`). */
export class WaitTimeout extends CaptureError {
  constructor(readonly seconds: number) {
    super(408, `No matching request arrived within ${seconds} s`);
    this.name = 'WaitTimeout';
  }
}

/** One Server-Sent Event of GET /token/{id}/events. */
export type TokenEvent =
  | { event: 'request.created'; id: string | null; data: CapturedRequest }
  | { event: 'request.deleted'; id: string | null; data: { uuid?: string; all?: boolean; count?: number } }
  | { event: 'token.updated'; id: string | null; data: Token }
  | { event: 'token.deleted'; id: string | null; data: { uuid: string } };

/** The most the server waits in one call (MAX_WAIT_SECONDS); longer waits take several calls. */
const SERVER_MAX_WAIT_SECONDS = 60;

const refOf = (r: TokenRef | RequestRef) => encodeURIComponent(typeof r === 'string' ? r : r.uuid);

function queryString(q: Record<string, string | number | boolean | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

export class CaptureClient {
  readonly url: string;
  readonly #apiKey: string | undefined;

  constructor(options: ClientOptions) {
    if (!URL.canParse(options.url) || !/^https?:$/.test(new URL(options.url).protocol)) throw new TypeError(`not an http(s) URL: ${options.url}`);
    this.url = options.url.replace(/\/+$/, '');
    this.#apiKey = options.apiKey || undefined;
  }

  /** Sends one API call; answers the Response of a 2xx, throws CaptureError otherwise. */
  async call(method: string, path: string, init: { json?: unknown; body?: string; contentType?: string; accept?: string; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { Accept: init.accept ?? 'application/json', ...init.headers };
    if (this.#apiKey) headers['Api-Key'] = this.#apiKey;
    let body: string | undefined = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['Content-Type'] = 'application/json';
    } else if (init.contentType) headers['Content-Type'] = init.contentType;
    let res: Response;
    try {
      res = await fetch(this.url + path, { method, headers, body, signal: init.signal, redirect: 'manual' });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CaptureError(0, `cannot reach ${this.url} (${cause?.code ?? cause?.message ?? (e as Error).message})`);
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => '');
    let message = `${method} ${path}: HTTP ${res.status}`;
    let errors: Record<string, string[]> = {};
    try {
      const parsed = JSON.parse(text) as { message?: unknown; errors?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
      if (parsed.errors && typeof parsed.errors === 'object') errors = parsed.errors as Record<string, string[]>;
    } catch {
      if (text) message += `: ${text.slice(0, 200)}`;
    }
    throw new CaptureError(res.status, message, errors);
  }

  async #json<T>(method: string, path: string, json?: unknown): Promise<T> {
    return (await (await this.call(method, path, { json })).json()) as T;
  }

  /** The address that captures for `token` (its UUID; the alias works too). */
  captureUrl(token: TokenRef): string {
    return `${this.url}/${refOf(token)}`;
  }

  createToken(body: TokenCreate = {}): Promise<Token> {
    return this.#json('POST', '/token', body);
  }

  getToken(token: TokenRef): Promise<Token> {
    return this.#json('GET', `/token/${refOf(token)}`);
  }

  updateToken(token: TokenRef, body: TokenUpdate): Promise<Token> {
    return this.#json('PUT', `/token/${refOf(token)}`, body);
  }

  async deleteToken(token: TokenRef): Promise<void> {
    await this.call('DELETE', `/token/${refOf(token)}`);
  }

  /** One page of the token's requests (search language in `query`). */
  requests(token: TokenRef, query: RequestListQuery = {}): Promise<RequestPage> {
    return this.#json('GET', `/token/${refOf(token)}/requests${queryString(query)}`);
  }

  /** Every matching request, page after page (oldest first unless `sorting: 'newest'`). */
  async *allRequests(token: TokenRef, query: Omit<RequestListQuery, 'page'> = {}): AsyncGenerator<CapturedRequest, void, undefined> {
    for (let page = 1; ; page++) {
      const p = await this.requests(token, { per_page: 100, ...query, page });
      yield* p.data;
      if (p.is_last_page || !p.data.length) return;
    }
  }

  getRequest(token: TokenRef, request: RequestRef): Promise<CapturedRequest> {
    return this.#json('GET', `/token/${refOf(token)}/request/${refOf(request)}`);
  }

  /** The newest request of the token, or null when it has none. */
  async latest(token: TokenRef): Promise<CapturedRequest | null> {
    try {
      return await this.getRequest(token, 'latest');
    } catch (e) {
      if (e instanceof CaptureError && e.status === 404 && /request/i.test(e.message)) return null;
      throw e;
    }
  }

  /** The exact bytes of a request's body. */
  async raw(token: TokenRef, request: RequestRef): Promise<Buffer> {
    const res = await this.call('GET', `/token/${refOf(token)}/request/${refOf(request)}/raw`, { accept: '*/*' });
    return Buffer.from(await res.arrayBuffer());
  }

  /**
   * The newest request matching `query` (the search language; empty: any), stored or arriving,
   * newer than `after` (a request or its sorting key) when given. Throws WaitTimeout after
   * `timeout` seconds (default 30; waits longer than the server's 60 s take several calls).
   */
  async waitForRequest(token: TokenRef, query = '', timeout = 30, options: { after?: RequestRef | number; signal?: AbortSignal } = {}): Promise<CapturedRequest> {
    const after = options.after === undefined ? undefined : typeof options.after === 'number' ? String(options.after) : typeof options.after === 'string' ? options.after : options.after.uuid;
    const deadline = Date.now() + timeout * 1000;
    for (;;) {
      const left = Math.max(0, Math.min(SERVER_MAX_WAIT_SECONDS, (deadline - Date.now()) / 1000));
      try {
        const res = await this.call('GET', `/token/${refOf(token)}/requests/wait${queryString({ query, after, timeout: Math.round(left * 1000) / 1000 })}`, { signal: options.signal });
        return (await res.json()) as CapturedRequest;
      } catch (e) {
        if (!(e instanceof CaptureError && e.status === 408)) throw e;
        if (Date.now() >= deadline - 5) throw new WaitTimeout(timeout);
      }
    }
  }

  /** Deletes the token's requests (those matching `query` when given). */
  async deleteAll(token: TokenRef, query?: string): Promise<void> {
    await this.call('DELETE', `/token/${refOf(token)}/requests${queryString({ query })}`);
  }

  /** The matching requests as CSV or a HAR 1.2 archive, as the server sends it (a stream). */
  async export(token: TokenRef, query: ExportQuery = {}): Promise<Response> {
    return this.call('GET', `/token/${refOf(token)}/requests/export${queryString(query)}`, { accept: '*/*' });
  }

  /** Sends a stored request to `url` (through the server's outbound policy); the target's answer. */
  forward(token: TokenRef, request: RequestRef, url: string, method?: string): Promise<ForwardResult> {
    return this.#json('POST', `/token/${refOf(token)}/request/${refOf(request)}/forward`, { url, ...(method ? { method } : {}) });
  }

  /** The sample deliveries: providers, their events, sources and licences. */
  samples(): Promise<SampleCatalogue> {
    return this.#json('GET', '/samples');
  }

  /** Sends one signed sample delivery to a token (captured there) or a URL; what was sent and what came back. */
  sendSample(body: SampleSend): Promise<SampleSent> {
    return this.#json('POST', '/samples/send', body);
  }

  /** Runs the token's Custom Actions again on a stored request. */
  execute(token: TokenRef, request: RequestRef): Promise<Record<string, unknown>> {
    return this.#json('POST', `/token/${refOf(token)}/request/${refOf(request)}/execute`, {});
  }

  /** Answers a capture that waits (the token's `listen`): status, base64 content, headers. */
  async respond(token: TokenRef, request: RequestRef, response: SetResponse): Promise<void> {
    await this.call('PUT', `/token/${refOf(token)}/request/${refOf(request)}/response`, { json: response });
  }

  /** The token's action chain as a workflow document (YAML text, or JSON). */
  async workflow(token: TokenRef, format: 'yaml' | 'json' = 'yaml'): Promise<string> {
    const res = await this.call('GET', `/token/${refOf(token)}/workflow?format=${format}`, { accept: format === 'json' ? 'application/json' : 'application/yaml' });
    return res.text();
  }

  /** Replaces the token's action chain with a workflow document (an object, or YAML/JSON text). */
  async applyWorkflow(token: TokenRef, document: string | object): Promise<Record<string, unknown>> {
    const init = typeof document === 'string' ? { body: document, contentType: 'application/yaml' } : { json: document };
    const res = await this.call('PUT', `/token/${refOf(token)}/workflow`, { ...init, accept: 'application/json', headers: {} });
    const text = await res.text();
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { document: text };
    }
  }

  /**
   * The token's live events (Server-Sent Events), until `signal` aborts or the server ends the
   * stream. `lastEventId` (a request's sorting key) first replays the requests stored after it;
   * `onOpen` is called once the server has accepted the subscription.
   */
  async *events(token: TokenRef, options: { signal?: AbortSignal; lastEventId?: string; onOpen?: () => void } = {}): AsyncGenerator<TokenEvent, void, undefined> {
    const headers: Record<string, string> = {};
    if (options.lastEventId) headers['Last-Event-ID'] = options.lastEventId;
    const res = await this.call('GET', `/token/${refOf(token)}/events`, { accept: 'text/event-stream', signal: options.signal, headers });
    options.onOpen?.();
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    let event = 'message';
    let id: string | null = null;
    let data: string[] = [];
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (data.length) {
              const parsed = JSON.parse(data.join('\n')) as never;
              yield { event, id, data: parsed } as TokenEvent;
            }
            event = 'message';
            id = null;
            data = [];
          } else if (!line.startsWith(':')) {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event = value;
            else if (field === 'data') data.push(value);
            else if (field === 'id') id = value;
          }
        }
      }
    } catch (e) {
      if ((e as Error).name !== 'AbortError' && !options.signal?.aborted) throw e;
    }
  }
}
