// What the three database drivers share: where to connect and what a query gives back (how a wait
// ends when the query's time is up is the SDK's untilAborted).
import net from 'node:net';
import type { Network } from '@capture/sdk';
import type { SqlValue } from './placeholders.js';

/** Rows kept for variables; the row count still counts them all. */
export const MAX_ROWS = 1000;

export interface Target {
  /** The host name as configured (TLS server name, SQL Server's login). */
  host: string;
  /** The address the outbound policy approved: the only one connected to. */
  address: string;
  port: number;
  database: string;
  username: string;
  password: string;
  /** PostgreSQL endpoint ID (from `endpoint=<id>;<password>`). */
  endpoint?: string;
  charset?: string;
  /** For hosts a server redirects to (SQL Server routing). */
  net: Network;
}

export interface QueryResult {
  columns: string[];
  /** The first MAX_ROWS rows. */
  rows: Array<Record<string, unknown>>;
  /** Rows returned (a query) or affected (a change). */
  rowCount: number;
  /** Whether the statement returns rows (SELECT, RETURNING, OUTPUT...). */
  returnsRows: boolean;
}

/**
 * Runs one statement and closes the connection, whatever happens. When `signal` aborts (query time
 * limit or the chain's budget) it rejects at once with the signal's reason, stops the statement on
 * the server where the protocol allows it, and drops the connection.
 */
export type Driver = (target: Target, sql: string, values: SqlValue[], signal: AbortSignal) => Promise<QueryResult>;

/** A TCP connection to `address:port`. */
export function connectSocket(address: string, port: number, signal?: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      resolve(socket);
    });
    signal?.addEventListener('abort', () => fail(signal.reason instanceof Error ? signal.reason : new Error('Aborted')), { once: true });
  });
}

/** Runs `close`, giving up after `ms` (then `destroy`); never rejects. */
export async function closeWithin(ms: number, close: () => Promise<unknown>, destroy: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
    timer.unref();
  });
  try {
    if ((await Promise.race([close().catch(() => 'failed'), late])) === 'late') destroy();
  } catch {
    destroy();
  } finally {
    clearTimeout(timer);
  }
}
