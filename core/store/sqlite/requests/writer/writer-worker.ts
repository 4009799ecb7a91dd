// The capture writer thread: its own connection to the store's file, and the same group commit as
// the in-thread writer (batch-writer.ts). Everything received while the thread was busy is
// committed in one transaction once its message queue drains (setImmediate), and only then
// acknowledged: an acknowledged capture is durable. The catch-up (indexes, counters, trimming)
// runs in bulk: CATCH_UP_MS after the first capture it has not taken, sooner past CATCH_UP_ROWS,
// and at once when the main thread asks (sync, before token-scoped reads).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { decodeBatch } from './batch-codec.js';
import { nice } from '../threads.js';
import { createBatchWriter, type WriteItem, type WriteOutcome } from './batch-writer.js';
import { catchUpSchedule } from './catch-up-schedule.js';
import type { ToWriter, WireOutcome, WriterData } from './writer-protocol.js';

const data = workerData as WriterData;
const port = parentPort!;

const db = new Database(data.file);
db.pragma(`synchronous = ${data.synchronous}`);
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
db.pragma(`journal_size_limit = ${data.walLimitBytes}`);
// The checkpointer thread copies the WAL back; this connection must not do it inside its commits.
if (data.noAutocheckpoint) db.pragma('wal_autocheckpoint = 0');
const writer = createBatchWriter(db, { activity: data.activity });

let ids: number[] = [];
let items: WriteItem[] = [];
let scheduled = false;
/** The newest batch id committed. */
let committedId = 0;
const catchUp = catchUpSchedule(writer, {
  caught: () => port.postMessage({ t: 'caught', upTo: committedId }),
  observe: (rows, seconds) => port.postMessage({ t: 'catchup', rows, seconds }),
});

function wire(o: NonNullable<WriteOutcome>): WireOutcome {
  if (o.gone) return o;
  const e = o.error as { message?: string; code?: string };
  return { gone: false, message: e?.message ?? String(o.error), code: e?.code };
}

function commit(): void {
  scheduled = false;
  if (!items.length) return;
  const batchIds = ids;
  const batch = items;
  ids = [];
  items = [];
  const t0 = performance.now();
  const outcomes = writer.commit(batch);
  const seconds = (performance.now() - t0) / 1000;
  let failed: Array<[number, WireOutcome]> | null = null;
  for (let i = 0; i < outcomes.length; i++) if (outcomes[i] !== null) (failed ??= []).push([i, wire(outcomes[i]!)]);
  committedId = batchIds[batchIds.length - 1]!;
  port.postMessage({ t: 'ack', ids: batchIds, failed, seconds });
  catchUp.committed(batch.length);
}

/**
 * Requests a trim step deletes at most (trimTo): a token lowered from a million requests is trimmed
 * in transactions of this size, with the batches that came in meanwhile committed between them.
 */
const TRIM_STEP_ROWS = 5_000;
/** Trims in steps until none is due, then catches up (which tells the reads waiting: `caught`). */
function trimStep(): void {
  if (!writer.open) return;
  if (!writer.trimsDue) return catchUp.now();
  try {
    writer.trim(true, TRIM_STEP_ROWS);
  } catch {
    // Left due: the catch-up trims what is left (or tries again on its schedule).
    return catchUp.now();
  }
  setImmediate(trimStep);
}

port.on('message', (m: ToWriter) => {
  if (m.t === 'w') {
    ids.push(m.id);
    // Bodies and files arrive as Buffers, which better-sqlite3 binds as BLOBs.
    for (const it of decodeBatch(m.batch)) items.push(it);
    if (!scheduled) {
      scheduled = true;
      setImmediate(commit);
    }
  } else if (m.t === 'sync') {
    commit();
    catchUp.now();
  } else if (m.t === 'fill') {
    catchUp.fill();
  } else if (m.t === 'trim') {
    commit();
    writer.trimTo(m.tokenId, m.limit);
    committedId = Math.max(committedId, m.id);
    trimStep();
  } else if (m.t === 'stop') {
    commit();
    catchUp.now();
    db.close();
    port.postMessage({ t: 'stopped' });
  } else if (m.t === 'autocheckpoint') {
    db.pragma(`wal_autocheckpoint = ${m.pages}`);
  } else if (m.t === 'crash') {
    // Tests: die like a thread that hit a fatal error, with whatever was received uncommitted.
    process.exit(1);
  }
});
// Rows an earlier process stored and did not catch up (it was killed in between).
catchUp.now();
port.postMessage({ t: 'ready', nice: nice(data.nice) });
