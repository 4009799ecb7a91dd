// A minimal capture server: the least a service can do and still keep every capture it answers.
// node:http and better-sqlite3 (WAL, synchronous=NORMAL, as the service), the captures of one
// event-loop turn committed in one transaction, each answered after its commit. It is the floor the
// service's CPU per capture is compared with (the capture section), so it must do what the
// service's capture must do and nothing more, in the service's layout:
// - the same row: the fields the service stores for a plain web capture (UUIDv7, token, sender,
//   host, method, user agent, URL, content type, body, size, query, headers as `{name: [values]}`
//   JSON, time, sorting key, timestamps), the rarely set ones left to their SQL defaults;
// - the same key layout: an integer primary key (the service's `seq`), the UUID unindexed, no
//   other index (the service indexes in bulk, off the answer's path);
// - the same answer: the token's default response (200, empty, text/html) with the request's and
//   the token's ids in headers, sent after the commit.
// Tokens are not looked up (any first path segment is one) and nothing is counted or trimmed: what
// the service spends beyond this is the cost of its own work per capture. Run as a child process
// (PORT, HOST, DATA_DIR from the environment); POST /{token} captures, nothing else is routed.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createSortingKeys } from '../core/util/time.js';
import { uuidv7 } from '../core/util/uuid.js';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';
const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');

const db = new Database(path.join(dataDir, 'minimal.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS requests (
  seq INTEGER PRIMARY KEY, uuid TEXT NOT NULL, token_id TEXT NOT NULL, type TEXT NOT NULL,
  ip TEXT, hostname TEXT, method TEXT, user_agent TEXT, url TEXT, content_type TEXT,
  body BLOB NOT NULL, size INTEGER NOT NULL, query TEXT, headers TEXT NOT NULL,
  time REAL NOT NULL, sorting INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  team_id INTEGER, form TEXT, files TEXT NOT NULL DEFAULT '[]', output TEXT NOT NULL DEFAULT '[]',
  errors TEXT NOT NULL DEFAULT '[]', note TEXT, extra TEXT NOT NULL DEFAULT '{}', http_version TEXT)`);
const insert = db.prepare(
  `INSERT INTO requests (uuid, token_id, type, ip, hostname, method, user_agent, url, content_type, body, size, query, headers, time, sorting, created_at, updated_at)
   VALUES (?, ?, 'web', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);

/** Headers by lower-case name, values in the order sent (the service's stored form). */
function headersOf(raw: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return out;
}

/** The query string as the service stores it: JSON of its parameters, NULL without one. */
function queryOf(search: string): string | null {
  if (!search) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) out[k] = v;
  return JSON.stringify(out);
}

interface Pending {
  values: unknown[];
  uuid: string;
  token: string;
  res: http.ServerResponse;
}
let batch: Pending[] = [];
const sortingKey = createSortingKeys();
const commit = db.transaction((rows: Pending[]) => {
  for (const row of rows) insert.run(row.values);
});
function flush(): void {
  const rows = batch;
  batch = [];
  commit(rows);
  for (const row of rows) {
    row.res.writeHead(200, { 'Content-Type': 'text/html', 'X-Request-Id': row.uuid, 'X-Token-Id': row.token, 'Content-Length': '0' });
    row.res.end('');
  }
}

const server = http.createServer((req, res) => {
  const started = performance.now();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const slash = pathname.indexOf('/', 1);
    const token = slash < 0 ? pathname.slice(1) : pathname.slice(1, slash);
    const headers = headersOf(req.rawHeaders);
    const hostHeader = headers.host?.[0] ?? '';
    const now = Date.now();
    const uuid = uuidv7(now);
    if (batch.length === 0) setImmediate(flush);
    batch.push({
      values: [
        uuid,
        token,
        req.socket.remoteAddress ?? '',
        hostHeader.replace(/:\d+$/, ''),
        req.method ?? 'GET',
        headers['user-agent']?.[0] ?? '',
        `http://${hostHeader}${url}`,
        headers['content-type']?.[0] ?? null,
        body,
        body.length,
        queryOf(q < 0 ? '' : url.slice(q + 1)),
        JSON.stringify(headers),
        (performance.now() - started) / 1000,
        sortingKey(),
        now,
        now,
      ],
      uuid,
      token,
      res,
    });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, host);

const stop = () => {
  server.close(() => {
    db.close();
    process.exit(0);
  });
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
