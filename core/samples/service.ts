// Sends one sample delivery, built and signed by its provider (catalogue.ts) with a fresh timestamp:
// into one of the caller's tokens directly through the capture pipeline (so it works whatever the
// outbound policy, TLS or proxy in front, and the URL Twilio signs is the token's public URL), or
// to a URL through the one outbound client and its policy. Either way the answer says what was
// sent and what came back.
import { isUtf8 } from 'node:buffer';
import { parseForm } from '../capture/form.js';
import { newRequestRecord, type CapturedResponse, type CapturePipeline } from '../capture/pipeline.js';
import { queryOf } from '../capture/query.js';
import { PayloadTooLarge, ValidationError } from '../errors.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';
import { SAMPLE_CATALOGUE } from './catalogue.js';
import type { Delivery, SampleFormat, SampleProviderId } from './types.js';

export interface SampleRequest {
  provider: SampleProviderId;
  event: string;
  secret?: string;
  /** The body's form, where the provider offers two (GitHub: json or form); its default otherwise. */
  format?: SampleFormat;
  overrides?: Record<string, unknown>;
}

/** What came back: the target's answer, or the token's. */
export interface SampleAnswer {
  status: number;
  headers: Record<string, string[]>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
  /** Seconds. */
  time: number;
}

export interface SampleResult {
  url: string;
  format: SampleFormat;
  delivery: Delivery;
  answer: SampleAnswer;
  /** The stored capture, when sent to a token that kept it. */
  requestId: string | null;
}

export interface SampleServiceDeps {
  clock: Pick<Clock, 'now'>;
  pipeline: Pick<CapturePipeline, 'actions' | 'captured' | 'process'>;
  sortingKey: () => number;
  /** A token's captures are refused past this size (MAX_BODY_BYTES), as over HTTP. */
  maxBodyBytes: number;
  /** Sends a request to a URL through the outbound policy (core/http/requests/forward.ts). */
  forward(record: RequestRecord, url: string): Promise<SampleAnswer>;
}

const bodyText = (b: Buffer): Pick<SampleAnswer, 'body' | 'body_encoding'> => (isUtf8(b) ? { body: b.toString('utf8'), body_encoding: 'utf8' } : { body: b.toString('base64'), body_encoding: 'base64' });

export class SampleService {
  constructor(private readonly deps: SampleServiceDeps) {}

  /** The delivery of `req` to `url`, signed now; 422 for an event, format or secret the provider cannot use. */
  build(req: SampleRequest, url: string): { delivery: Delivery; format: SampleFormat } {
    const provider = SAMPLE_CATALOGUE[req.provider];
    const event = provider.events().find((e) => e.event === req.event);
    if (!event) throw new ValidationError(`${provider.name} has no sample event ${req.event} (GET /samples lists them)`, { event: [`is not one of ${provider.name}'s sample events`] });
    const format = req.format ?? event.formats[0]!;
    if (!event.formats.includes(format)) throw new ValidationError(`${provider.name} sends ${req.event} as ${event.formats.join(' or ')}`, { format: [`must be ${event.formats.join(' or ')}`] });
    if (req.secret === undefined && provider.secretRequired) throw new ValidationError(`${provider.name} signs every delivery: give its secret`, { secret: ['is required'] });
    const problem = req.secret !== undefined ? provider.secretProblem?.(req.secret) : null;
    if (problem) throw new ValidationError(`secret ${problem}`, { secret: [problem] });
    const delivery = provider.deliver({ event: req.event, secret: req.secret, url, now: this.deps.clock.now(), format, overrides: req.overrides });
    if (!delivery) throw new ValidationError(`${provider.name} has no sample event ${req.event}`, { event: ['is not a sample event'] });
    return { delivery, format };
  }

  /** Captures the delivery in `token` as if it arrived at `url` (its capture URL) from `ip`. */
  async sendToToken(token: TokenRecord, req: SampleRequest, url: string, ip: string): Promise<SampleResult> {
    const { delivery, format } = this.build(req, url);
    if (delivery.body.length > this.deps.maxBodyBytes) throw new PayloadTooLarge(`Body larger than ${this.deps.maxBodyBytes} bytes`);
    const started = performance.now();
    const record = this.record(delivery, url, ip, token.uuid);
    record.team_id = token.team_id ?? null;
    const form = await parseForm(record.content_type, record.body);
    record.form = form.fields;
    record.files = form.files;
    const initial: CapturedResponse = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
    const { response, stored } = await this.deps.pipeline.process(token, record, form.data ?? new Map(), initial, started);
    const content = Buffer.isBuffer(response.content) ? response.content : Buffer.from(response.content, 'utf8');
    const headers: Record<string, string[]> = { 'content-type': [response.contentType] };
    for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = [value];
    const answer: SampleAnswer = { status: response.status, headers, ...bodyText(content), size: content.length, truncated: false, time: record.time };
    return { url, format, delivery, answer, requestId: stored ? record.uuid : null };
  }

  /** Sends the delivery to `url` through the outbound policy. */
  async sendToUrl(req: SampleRequest, url: string): Promise<SampleResult> {
    const { delivery, format } = this.build(req, url);
    const answer = await this.deps.forward(this.record(delivery, url, '', ''), url);
    return { url, format, delivery, answer, requestId: null };
  }

  /** The delivery as a capture record: the headers a server receives (Host and Content-Length too). */
  private record(delivery: Delivery, url: string, ip: string, tokenId: string): RequestRecord {
    const target = new URL(url);
    const headers: Record<string, string[]> = { host: [target.host] };
    for (const [name, value] of Object.entries(delivery.headers)) headers[name.toLowerCase()] = [value];
    headers['content-length'] = [String(delivery.body.length)];
    const now = this.deps.clock.now();
    const extra: Record<string, unknown> = {};
    return newRequestRecord(
      {
        token_id: tokenId,
        type: 'web',
        ip,
        hostname: target.hostname,
        method: delivery.method,
        url,
        sorting: this.deps.sortingKey(),
        body: delivery.body,
        content_type: headers['content-type']?.[0] ?? null,
        user_agent: headers['user-agent']?.[0] ?? '',
        headers,
        query: queryOf(target.search.slice(1), extra),
        extra,
      },
      now,
    );
  }
}
