// The HTTP/2 baseline: a bare node:http2 server (cleartext, prior knowledge) that reads the whole
// body and answers 200 "ok", like bench/bare-server.ts does over HTTP/1.1. Run as a child process
// by the h2capture section (PORT, HOST from the environment).
import http2 from 'node:http2';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';

const server = http2.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void Buffer.concat(chunks);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    res.end('ok');
  });
});
const sessions = new Set<http2.ServerHttp2Session>();
server.on('session', (s: http2.ServerHttp2Session) => {
  sessions.add(s);
  s.once('close', () => sessions.delete(s));
});
server.listen(port, host);

const stop = () => {
  server.close(() => process.exit(0));
  for (const s of sessions) s.close();
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
