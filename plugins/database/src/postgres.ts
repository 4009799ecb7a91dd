// PostgreSQL through `pg`. TLS is tried first and dropped when the server has none (libpq's
// `sslmode=prefer`: encrypted when possible, certificate not verified); the host name goes as SNI.
// An endpoint ID goes as the `options=endpoint=<id>` startup option, as Neon expects.
import { isIP } from 'node:net';
import pg from 'pg';
import { postgresTypes } from '@capture/sdk/sql';
import { untilAborted } from '@capture/sdk/async';
import { MAX_ROWS, closeWithin, connectSocket, type Driver, type QueryResult, type Target } from './driver.js';

const NO_TLS = 'The server does not support SSL connections';
const CONNECT_TIMEOUT_MS = 10_000;

function config(t: Target, tls: boolean): pg.ClientConfig {
  return {
    host: t.address,
    port: t.port,
    user: t.username,
    password: t.password,
    database: t.database,
    options: t.endpoint ? `endpoint=${t.endpoint}` : undefined,
    client_encoding: t.charset,
    ssl: tls ? { rejectUnauthorized: false, ...(isIP(t.host) ? {} : { servername: t.host }) } : false,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS, // a backstop: the signal ends the wait first
    application_name: 'capture-database-action',
    types: postgresTypes(pg),
  };
}

async function open(t: Target, signal: AbortSignal, tls: boolean): Promise<pg.Client> {
  const client = new pg.Client(config(t, tls));
  client.on('error', () => {}); // a connection lost after the query is not the action's error
  try {
    await untilAborted(signal, client.connect(), () => void client.end().catch(() => {}));
    return client;
  } catch (err) {
    void client.end().catch(() => {});
    if (tls && err instanceof Error && err.message === NO_TLS) return open(t, signal, false);
    throw err;
  }
}

/** Asks the server to stop the running statement: a CancelRequest on a new connection. */
function cancel(t: Target, client: pg.Client): void {
  const { processID, secretKey } = client as unknown as { processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null) return;
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(80877102, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  connectSocket(t.address, t.port).then(
    (socket) => {
      socket.setTimeout(2_000, () => socket.destroy());
      socket.on('error', () => {});
      socket.end(packet);
    },
    () => {},
  );
}

export const postgres: Driver = async (t, sql, values, signal) => {
  const client = await open(t, signal, true);
  let aborted = false;
  try {
    const query = new pg.Query({ text: sql, values: values.length ? values : undefined });
    const rows: Array<Record<string, unknown>> = [];
    let seen = 0;
    let current: unknown;
    const done = new Promise<QueryResult>((resolve, reject) => {
      query.on('row', (row: Record<string, unknown>, result: unknown) => {
        if (result !== current) {
          // A new statement of a multi-statement text: only the last one's rows count.
          current = result;
          rows.length = 0;
          seen = 0;
        }
        seen++;
        if (rows.length < MAX_ROWS) rows.push(row);
      });
      query.on('error', reject);
      query.on('end', (res: pg.QueryResult | pg.QueryResult[]) => {
        const last = Array.isArray(res) ? res[res.length - 1] : res;
        const fields = last?.fields ?? [];
        const returnsRows = fields.length > 0;
        resolve({
          columns: fields.map((f) => f.name),
          rows: returnsRows && current === last ? rows : [],
          rowCount: returnsRows ? (current === last ? seen : 0) : (last?.rowCount ?? 0),
          returnsRows,
        });
      });
    });
    client.query(query);
    return await untilAborted(signal, done, () => {
      aborted = true;
      cancel(t, client);
    });
  } finally {
    const conn = client as unknown as { connection?: { stream?: { destroy(): void } } };
    const closing = closeWithin(
      aborted ? 2_000 : 5_000,
      () => client.end(),
      () => conn.connection?.stream?.destroy(),
    );
    if (!aborted) await closing;
  }
};
