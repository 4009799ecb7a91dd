// What both RabbitMQ actions share: the connection parameters, and a connection to the address the
// outbound policy approved (the host name goes as TLS server name and is what the certificate is
// checked against), closed whatever happens, with a time limit.
import { isIP } from 'node:net';
import type { ChannelModel } from 'amqplib';
import { type ActionContext, boolean, optionalPort, optionalText, secret, z } from '@capture/sdk';
import { lazyImport, untilAborted } from '@capture/sdk/async';

// The client is loaded by the first connection, not at start-up.
const loadAmqp = lazyImport(() => import('amqplib'));

/** Longest a connection and its work may take (less when the chain has less left). */
export const BROKER_TIMEOUT_MS = 10_000;
/** Time kept back from the chain's budget so a timeout is still reported by the action. */
const BUDGET_MARGIN_MS = 200;

export const brokerParameters = {
  host: z.string().trim().min(1, 'is required').max(253),
  port: optionalPort().describe('Default 5672, or 5671 with ssl'),
  username: z.string().min(1, 'is required'),
  password: secret(z.string().min(1, 'is required')),
  vhost: optionalText().describe('Default /'),
  queue: z.string().trim().min(1, 'is required').max(255),
  ssl: boolean().nullish().describe('Connect with TLS (amqps); the certificate must match the host name'),
};

export interface BrokerParams {
  host: string;
  port?: number | null;
  username: string;
  password: string;
  vhost?: string;
  queue: string;
  ssl?: boolean | null;
}

export interface Broker {
  conn: ChannelModel;
  /** `host:port` for messages. */
  where: string;
  vhost: string;
}

/** Connects, runs `work`, closes. Errors come back as one readable line (password removed). */
export async function withBroker<T>(ctx: ActionContext<unknown>, params: BrokerParams, work: (broker: Broker) => Promise<T>): Promise<T> {
  const host = params.host.replace(/^\[(.*)\]$/, '$1');
  const port = params.port ?? (params.ssl ? 5671 : 5672);
  const vhost = params.vhost?.trim() || '/';
  const where = `${host}:${port}`;
  const limitMs = Math.max(1, Math.min(BROKER_TIMEOUT_MS, ctx.timeLeftMs() - BUDGET_MARGIN_MS));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`No answer within ${limitMs / 1000} s`)), limitMs);
  const onChainAbort = () => controller.abort(new Error("The actions' time budget ran out"));
  ctx.signal.addEventListener('abort', onChainAbort, { once: true });
  let conn: ChannelModel | undefined;
  let aborted = false;
  controller.signal.addEventListener('abort', () => {
    aborted = true;
    conn?.close().catch(() => {});
  });
  try {
    const { address } = await untilAborted(controller.signal, ctx.services.net.resolve(host));
    const amqp = await untilAborted(controller.signal, loadAmqp());
    const connecting = amqp.connect(
      { protocol: params.ssl ? 'amqps' : 'amqp', hostname: address, port, username: params.username, password: params.password, vhost },
      { servername: isIP(host) ? undefined : host, timeout: limitMs + 500 }, // the socket timeout is a backstop: the signal ends the wait first
    );
    // A connection that opens after the time is up is closed at once.
    connecting.then(
      (c) => void (aborted && c.close().catch(() => {})),
      () => {},
    );
    conn = await untilAborted(controller.signal, connecting);
    conn.on('error', () => {}); // reported through the operation that failed
    return await untilAborted(controller.signal, work({ conn, where, vhost }));
  } catch (err) {
    throw new Error(`RabbitMQ at ${where}: ${describe(err, params)}`);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onChainAbort);
    if (conn && !aborted) await conn.close().catch(() => {});
  }
}

/** Whether the broker answered 404 NOT_FOUND (a queue or vhost that does not exist). */
export function isNotFound(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 404;
}

function describe(err: unknown, params: BrokerParams): string {
  const e = err as { message?: string; code?: unknown; errors?: Array<{ message?: string }> } | undefined;
  let message = e?.message || e?.errors?.map((x) => x.message).find(Boolean) || String(e?.code ?? err);
  if (params.password.length >= 3) message = message.split(params.password).join('***');
  const vhost = params.vhost?.trim() || '/';
  if (isNotFound(err) && /NOT_FOUND - no queue/.test(message)) message = `Queue "${params.queue}" does not exist on vhost "${vhost}"`;
  // amqplib drops the broker's reason when it refuses connection.open (530 NOT_ALLOWED).
  else if (/^Expected ConnectionOpenOk; got <ConnectionClose/.test(message)) message = `The broker refused to open vhost "${vhost}" (it does not exist, or ${params.username} has no access to it)`;
  return message;
}
