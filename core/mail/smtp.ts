// The SMTP capture server: every token is the address `<uuid or alias>@EMAIL_DOMAIN`. Unknown
// recipients are refused at RCPT (550) so nothing is silently dropped; an accepted message is
// stored once per token as a request of type `email` through the capture pipeline.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { isIPv4 } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { captureLog } from '../capture/capture-log.js';
import { newRequestRecord, type CapturedResponse } from '../capture/pipeline.js';
import { listenOn } from '../net/listen.js';
import { readTlsFiles, type TlsFiles } from '../net/tls-files.js';
import type { ModuleContext } from '../service-module.js';
import type { FileMeta, RequestRecord, TokenRecord } from '../store/types.js';
import { isExpired } from '../tokens/expiry.js';
import { checkMessage, uncheckedResult, type DnsResolver, type MailChecks } from './checks.js';
import { headerMap, loopCount, MalformedMessage, parseMessage, type ParsedMessage } from './message.js';

/** Loops of mail servers are also cut off by hop count (RFC 5321 §6.3 suggests at least 100). */
const MAX_RECEIVED_HEADERS = 100;

export interface SmtpCapture {
  port: number;
  close(): Promise<void>;
}

type SmtpError = Error & { responseCode: number };

function smtpError(code: number, message: string): SmtpError {
  return Object.assign(new Error(message), { responseCode: code });
}

/** `::ffff:127.0.0.1` -> `127.0.0.1`. */
export function plainIp(address: string): string {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return isIPv4(v4) ? v4 : address;
}

/**
 * The token an address is for, or null: `<uuid or alias>@EMAIL_DOMAIN`, case-insensitive, with an
 * optional `+tag` after the token (`<uuid>+orders@...`).
 */
export async function tokenForAddress(ctx: ModuleContext, address: string): Promise<TokenRecord | null> {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  if (address.slice(at + 1).toLowerCase() !== ctx.config.EMAIL_DOMAIN.toLowerCase()) return null;
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  const candidates = [local, local.toLowerCase()];
  if (plus > 0) candidates.push(local.slice(0, plus), local.slice(0, plus).toLowerCase());
  const now = ctx.clock.now();
  for (const ref of new Set(candidates)) {
    const token = await ctx.store.tokens.resolve(ref);
    if (token && !isExpired(token, now)) return token;
  }
  return null;
}

export interface SmtpOptions {
  /** DNS for SPF/DKIM/DMARC; default the system resolver. */
  resolver: DnsResolver;
}

export async function startSmtpServer(ctx: ModuleContext, opts: SmtpOptions): Promise<SmtpCapture> {
  const { config, logger } = ctx;
  const log = captureLog(config, logger);
  const maxBytes = config.SMTP_MAX_MESSAGE_BYTES;
  // Checked now: a bad pair would otherwise fail only when a client asks for STARTTLS.
  const tls: TlsFiles | null = config.SMTP_TLS_CERT && config.SMTP_TLS_KEY ? readTlsFiles('SMTP_TLS_CERT', config.SMTP_TLS_CERT, 'SMTP_TLS_KEY', config.SMTP_TLS_KEY) : null;

  async function onRcptTo(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= config.SMTP_MAX_RECIPIENTS) {
      throw smtpError(452, `4.5.3 Too many recipients: at most ${config.SMTP_MAX_RECIPIENTS} per message`);
    }
    const token = await tokenForAddress(ctx, address.address);
    if (!token) {
      const domain = address.address.slice(address.address.lastIndexOf('@') + 1);
      if (domain.toLowerCase() !== config.EMAIL_DOMAIN.toLowerCase()) {
        throw smtpError(550, `5.7.1 <${address.address}>: relaying denied; this server accepts mail only for <token>@${config.EMAIL_DOMAIN}`);
      }
      throw smtpError(550, `5.1.1 <${address.address}>: no such token (or it has expired)`);
    }
  }

  function record(token: TokenRecord, raw: Buffer, msg: ParsedMessage, checks: MailChecks, session: SMTPServerSession, destinations: string[], files: Map<string, Buffer>): RequestRecord {
    const now = ctx.clock.now();
    const metas: FileMeta[] = msg.attachments.map((a) => {
      const id = randomUUID();
      files.set(id, a.content);
      return { id, name: a.filename, filename: a.filename, size: a.content.length, content_type: a.contentType };
    });
    const headers = headerMap(msg.headers);
    return newRequestRecord(
      {
        token_id: token.uuid,
        team_id: token.team_id ?? null,
        type: 'email',
        ip: plainIp(session.remoteAddress),
        hostname: config.EMAIL_DOMAIN,
        method: 'SMTP',
        user_agent: headers['x-mailer']?.[0] ?? headers['user-agent']?.[0] ?? '',
        url: `mailto:${destinations[0] ?? ''}`,
        content_type: 'message/rfc822',
        body: raw,
        headers,
        files: metas,
        sorting: ctx.sortingKey(),
        extra: {
          sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          message_id: msg.messageId,
          subject: msg.subject,
          destinations,
          text_content: msg.text,
          html_content: msg.html,
          checks: checks.checks,
          checks_detail: checks.detail,
          helo: session.hostNameAppearsAs ?? '',
          tls: session.secure,
        },
      },
      now,
    );
  }

  /** Stores the message for each token it is addressed to; returns the request ids. */
  async function capture(raw: Buffer, session: SMTPServerSession): Promise<string[]> {
    const started = performance.now();
    let msg: ParsedMessage;
    try {
      msg = await parseMessage(raw);
    } catch (err) {
      if (err instanceof MalformedMessage) throw smtpError(550, `5.6.0 Malformed message: ${err.message}`);
      throw smtpError(550, `5.6.0 The message could not be parsed: ${(err as Error).message}`);
    }
    const passes = loopCount(msg.headers);
    if (passes > config.SMTP_LOOP_LIMIT) {
      throw smtpError(554, `5.4.6 Mail loop detected: the message has passed through this service ${passes} times (limit ${config.SMTP_LOOP_LIMIT})`);
    }
    if (msg.headers.filter((h) => h.name === 'received').length > MAX_RECEIVED_HEADERS) {
      throw smtpError(554, `5.4.6 Mail loop detected: more than ${MAX_RECEIVED_HEADERS} Received headers`);
    }

    // Tokens in RCPT order, each once, with the addresses that named it.
    const byToken = new Map<string, { token: TokenRecord; addresses: string[] }>();
    for (const rcpt of session.envelope.rcptTo) {
      const token = await tokenForAddress(ctx, rcpt.address);
      if (!token) continue;
      const entry = byToken.get(token.uuid) ?? { token, addresses: [] };
      entry.addresses.push(rcpt.address);
      byToken.set(token.uuid, entry);
    }
    if (!byToken.size) throw smtpError(550, '5.1.1 None of the recipients exists any more');

    const checks = config.SMTP_AUTH_CHECKS
      ? await checkMessage(
          { raw, ip: plainIp(session.remoteAddress), helo: session.hostNameAppearsAs ?? '', sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', mta: config.EMAIL_DOMAIN },
          opts.resolver,
        )
      : uncheckedResult('not checked (SMTP_AUTH_CHECKS=false)');

    const ids: string[] = [];
    for (const { token, addresses } of byToken.values()) {
      const files = new Map<string, Buffer>();
      // Only the addresses of this token: the other recipients' tokens may belong to someone else.
      const r = record(token, raw, msg, checks, session, addresses, files);
      const response: CapturedResponse = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
      try {
        await ctx.pipeline.process(token, r, files, response, started);
        log?.({ request: r.uuid, token: token.uuid, method: 'EMAIL', size: r.size, ms: performance.now() - started });
      } catch (err) {
        logger.error('storing an e-mail failed', { err, token: token.uuid });
        throw smtpError(451, '4.3.0 Temporary failure while storing the message; try again later');
      }
      ids.push(r.uuid);
    }
    return ids;
  }

  /** Counts a refused recipient or message (metrics) and passes its SMTP error on. */
  function refused(err: Error): Error {
    ctx.metrics.captureRejected('email', (err as SmtpError).responseCode ?? 451);
    return err;
  }

  function onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.on('error', (err) => callback(err));
    stream.on('end', () => {
      if (stream.sizeExceeded || size > maxBytes) {
        return callback(refused(smtpError(552, `5.3.4 Message too big: ${size} bytes, this server accepts at most ${maxBytes} bytes (SMTP_MAX_MESSAGE_BYTES)`)));
      }
      capture(Buffer.concat(chunks, size), session).then(
        (ids) => callback(null, `Message captured as ${ids.join(', ')}`),
        (err: unknown) => {
          if (!(err as SmtpError).responseCode) {
            logger.error('e-mail capture failed', { err });
            return callback(refused(smtpError(451, '4.3.0 Temporary failure; try again later')));
          }
          callback(refused(err as Error));
        },
      );
    });
  }

  const server = new SMTPServer({
    name: config.EMAIL_DOMAIN,
    banner: 'request capture service',
    logger: false,
    size: maxBytes,
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ?? {}),
    disableReverseLookup: true,
    closeTimeout: 1000,
    socketTimeout: 60_000,
    onRcptTo(address, session, callback) {
      onRcptTo(address, session).then(
        () => callback(),
        (err: Error) => callback(refused(err)),
      );
    },
    onData,
  });
  // Client-side trouble (resets, TLS handshakes failing...) is reported here; never fatal.
  server.on('error', (err: NodeJS.ErrnoException) => logger.debug('SMTP connection error', { err: err.message }));

  await listenOn('SMTP_PORT', 'tcp', server.server, (done) => server.listen(config.SMTP_PORT, config.HOST, done));
  const port = (server.server.address() as AddressInfo).port;
  logger.info('SMTP server listening', { port, domain: config.EMAIL_DOMAIN, starttls: !!tls });

  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
