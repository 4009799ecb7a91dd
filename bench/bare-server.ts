// The baseline: a bare node:http server that reads the whole body and answers 200 "ok".
// Run as a child process by bench/capture.ts (PORT, HOST from the environment).
import http from 'node:http';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void Buffer.concat(chunks);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, host);

const stop = () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
