// A minimal capture server: the least a service can do and still keep every capture it answers.
// node:http and better-sqlite3 (WAL, synchronous=NORMAL, as the service), the captures of one
// event-loop turn committed in one transaction, each answered after its commit, storing the fields
// the service stores for a capture (id, token, method, URL, headers, body, sender, time, size).
// The capture section measures its CPU per capture beside the service's and bare node:http's: the
// service's distance to it is what its own work costs. Run as a child process (PORT, HOST, DATA_DIR
// from the environment); POST /{token} captures, nothing else is routed.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';
const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');

const db = new Database(path.join(dataDir, 'minimal.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS requests (
  uuid TEXT PRIMARY KEY, token TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
  headers TEXT NOT NULL, body BLOB, ip TEXT, created_at INTEGER NOT NULL, size INTEGER NOT NULL)`);
db.exec('CREATE INDEX IF NOT EXISTS requests_by_token ON requests (token, created_at)');
const insert = db.prepare('INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');

interface Pending {
  values: unknown[];
  res: http.ServerResponse;
}
let batch: Pending[] = [];
const commit = db.transaction((rows: Pending[]) => {
  for (const row of rows) insert.run(row.values);
});
function flush(): void {
  const rows = batch;
  batch = [];
  commit(rows);
  for (const row of rows) {
    row.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    row.res.end('ok');
  }
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    const token = url.slice(1).split(/[/?]/, 1)[0] ?? '';
    if (batch.length === 0) setImmediate(flush);
    batch.push({
      values: [randomUUID(), token, req.method ?? 'GET', url, JSON.stringify(req.rawHeaders), body, req.socket.remoteAddress ?? null, Date.now(), body.length],
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
