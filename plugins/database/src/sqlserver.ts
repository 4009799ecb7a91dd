// Microsoft SQL Server through `tedious`. The driver keeps the host name (login, TLS server name)
// while its connector opens the socket to the approved address; a host the server redirects to
// (Azure SQL routing) is resolved through the same outbound policy. The connection is encrypted
// without verifying the certificate (SQL Server's usual self-signed one).
import type { Connection } from 'tedious';
import { lazyImport, untilAborted } from '@capture/sdk/async';
import { MAX_ROWS, connectSocket, type Driver, type QueryResult, type Target } from './driver.js';
import type { SqlValue } from './placeholders.js';

const CONNECT_TIMEOUT_MS = 10_000; // a backstop: the signal ends the wait first

type Tedious = typeof import('tedious');
// tedious takes a third of a second to import: loaded on the first SQL Server query, not at start-up.
const tedious = lazyImport(() => import('tedious'));

function typeOf({ TYPES }: Tedious, value: SqlValue) {
  if (typeof value === 'boolean') return TYPES.Bit;
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) <= 2 ** 31 - 1 ? TYPES.Int : TYPES.Float;
  return TYPES.NVarChar;
}

function open({ Connection }: Tedious, t: Target, signal: AbortSignal): Promise<Connection> {
  const conn = new Connection({
    server: t.host,
    authentication: { type: 'default', options: { userName: t.username, password: t.password } },
    options: {
      port: t.port,
      database: t.database,
      encrypt: true,
      trustServerCertificate: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: 0, // the signal ends a statement
      useColumnNames: false,
      rowCollectionOnDone: false,
      rowCollectionOnRequestCompletion: false,
      connector: async (to?: { host: string; port: number }) => {
        const host = to?.host ?? t.host;
        const address = host === t.host ? t.address : (await t.net.resolve(host)).address;
        return connectSocket(address, to?.port ?? t.port, signal);
      },
    },
  });
  conn.on('error', () => {}); // a connection lost after the query is not the action's error
  return untilAborted(signal, new Promise<Connection>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve(conn)))), () => conn.close()).catch((err) => {
    conn.close();
    throw err;
  });
}

export const sqlServer: Driver = async (t, sql, values, signal) => {
  const td = await tedious();
  const { Request } = td;
  const conn = await open(td, t, signal);
  try {
    const done = new Promise<QueryResult>((resolve, reject) => {
      let columns: string[] | undefined;
      let rows: Array<Record<string, unknown>> = [];
      let seen = 0;
      const request = new Request(sql, (err, rowCount) => {
        if (err) return reject(err);
        resolve({ columns: columns ?? [], rows, rowCount: columns ? seen : (rowCount ?? 0), returnsRows: !!columns });
      });
      values.forEach((value, i) => request.addParameter(`p${i + 1}`, typeOf(td, value), value));
      request.on('columnMetadata', (meta) => {
        // A new result set: only the last one's rows count.
        columns = (Array.isArray(meta) ? meta : Object.values(meta)).map((c) => c.colName);
        rows = [];
        seen = 0;
      });
      request.on('row', (cols: Array<{ value: unknown; metadata: { colName: string } }>) => {
        seen++;
        if (rows.length < MAX_ROWS) rows.push(Object.fromEntries(cols.map((c) => [c.metadata.colName, c.value])));
      });
      if (values.length) conn.execSql(request);
      else conn.execSqlBatch(request);
    });
    return await untilAborted(signal, done, () => conn.cancel());
  } finally {
    conn.close();
  }
};
