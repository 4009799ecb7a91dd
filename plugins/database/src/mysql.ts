// MySQL and MariaDB through `mysql2`. The socket goes to the approved address while the driver
// keeps the host name (TLS SNI). TLS is tried first and dropped when the server has none
// (certificate not verified, like libpq's `prefer`). Statements with parameters are prepared on
// the server (which, unlike a client-side formatter, knows a `?` inside a string is text).
import mysql from 'mysql2';
import net from 'node:net';
import { untilAborted } from '@capture/sdk/async';
import { MAX_ROWS, closeWithin, type Driver, type QueryResult, type Target } from './driver.js';
import type { SqlValue } from './placeholders.js';

const CONNECT_TIMEOUT_MS = 10_000; // a backstop: the signal ends the wait first

function options(t: Target, tls: boolean): mysql.ConnectionOptions {
  return {
    host: t.host,
    port: t.port,
    user: t.username,
    password: t.password,
    database: t.database,
    charset: t.charset,
    stream: () => net.connect({ host: t.address, port: t.port }),
    ssl: tls ? { rejectUnauthorized: false } : undefined,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Dates as the server writes them; big integers as text when a number would lose digits.
    dateStrings: true,
    supportBigNumbers: true,
    multipleStatements: false,
  };
}

async function open(t: Target, signal: AbortSignal, tls: boolean): Promise<mysql.Connection> {
  const conn = mysql.createConnection(options(t, tls));
  conn.on('error', () => {}); // reported through connect() or the query
  try {
    await untilAborted(signal, new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve()))), () => conn.destroy());
    return conn;
  } catch (err) {
    conn.destroy();
    if (tls && (err as { code?: string }).code === 'HANDSHAKE_NO_SSL_SUPPORT') return open(t, signal, false);
    throw err;
  }
}

/** Stops the statement on the server (`KILL QUERY` from a second connection); best effort. */
function killQuery(t: Target, threadId: number | null, tls: boolean): void {
  if (!threadId) return;
  const killer = mysql.createConnection({ ...options(t, tls), connectTimeout: 2_000 });
  killer.on('error', () => {});
  killer.query(`KILL QUERY ${Number(threadId)}`, () => killer.destroy());
}

export const mysqlDriver: Driver = async (t, sql, values, signal) => {
  const conn = await open(t, signal, true);
  const tls = !!(conn.config as { ssl?: unknown }).ssl;
  let aborted = false;
  try {
    const rows: Array<Record<string, unknown>> = [];
    let columns: string[] | undefined;
    let seen = 0;
    let affected = 0;
    const done = new Promise<QueryResult>((resolve, reject) => {
      const cmd = values.length ? conn.execute({ sql, values: values as SqlValue[] }) : conn.query({ sql });
      cmd.on('fields', (fields: Array<{ name: string }> | undefined) => {
        if (fields) columns = fields.map((f) => f.name);
      });
      cmd.on('result', (row: Record<string, unknown>) => {
        if (columns) {
          seen++;
          if (rows.length < MAX_ROWS) rows.push(row);
        } else {
          affected = Number((row as { affectedRows?: number }).affectedRows ?? 0);
        }
      });
      cmd.on('error', reject);
      cmd.on('end', () => resolve({ columns: columns ?? [], rows, rowCount: columns ? seen : affected, returnsRows: !!columns }));
    });
    return await untilAborted(signal, done, () => {
      aborted = true;
      killQuery(t, conn.threadId, tls);
    });
  } finally {
    if (aborted) conn.destroy();
    else
      await closeWithin(
        5_000,
        () => new Promise<void>((resolve) => conn.end(() => resolve())),
        () => conn.destroy(),
      );
  }
};
