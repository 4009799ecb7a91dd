// Measures the compiled service's memory: RSS when idle after start-up, right after 50
// concurrent 10 MB uploads, and 60 s later. A measurement for a person to read, not a test.
// Usage: npm run build && node scripts/measure-memory.mjs   (NODE_FLAGS="..." adds node options;
// UPLOADS / UPLOAD_MB / SETTLE_S change the load; extra env such as BODY_FILE_THRESHOLD passes through).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const uploads = Number(process.env.UPLOADS ?? 50);
const uploadBytes = Number(process.env.UPLOAD_MB ?? 10) * 1_000_000;
const settleSeconds = Number(process.env.SETTLE_S ?? 60);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'capture-mem-'));

const rssMb = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line.split(/\s+/)[1]) / 102.4) / 10;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const child = spawn(process.execPath, [...(process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean), path.join(root, 'dist/core/main.js')], {
  env: { ...process.env, PORT: '0', SMTP_PORT: '0', DNS_PORT: '0', DATA_DIR: dataDir, LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise((resolve, reject) => {
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const ready = buffered.split('\n').find((l) => l.includes('"ready"'));
    if (ready) resolve(JSON.parse(ready).api);
  });
  child.on('exit', (code) => reject(new Error(`service exited with ${code}`)));
});
try {
  await sleep(5000); // start-up work settles (first GC, lazily started threads)
  const idle = rssMb(child.pid);
  const token = await (await fetch(`${base}/token`, { method: 'POST' })).json();
  const body = Buffer.alloc(uploadBytes, 'x');
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: uploads }, () => fetch(`${base}/${token.uuid}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } }).then((r) => r.status)));
  const afterUploads = rssMb(child.pid);
  const uploadSeconds = (Date.now() - started) / 1000;
  let peakLater = afterUploads;
  for (let s = 0; s < settleSeconds; s += 5) {
    await sleep(5000);
    peakLater = Math.max(peakLater, rssMb(child.pid));
  }
  const later = rssMb(child.pid);
  console.log(
    JSON.stringify(
      {
        node_flags: process.env.NODE_FLAGS ?? '',
        idle_rss_mb: idle,
        uploads: `${uploads} x ${uploadBytes / 1e6} MB`,
        statuses: [...new Set(answers)],
        upload_seconds: uploadSeconds,
        rss_after_uploads_mb: afterUploads,
        [`rss_after_${settleSeconds}s_mb`]: later,
      },
      null,
      1,
    ),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
