// Large request bodies live in files under DATA_DIR/bodies/<token>/<request> instead of in the
// database row (SQLite), so that neither the capture that receives them nor the database's pages
// hold them whole. The row keeps an empty body and the real `size`: a row whose body is empty while
// its size is not is one whose body is in a file (nothing else stores such a row: size is always
// the stored body's length).
//
// A record whose body is in a file gets `body` as an accessor that reads the file on first use, so
// every reader (views, raw, exports, actions, forwarding, realtime) sees the same Buffer as before
// and only the readers that need the bytes pay for them.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, type Dir, type ReadStream, type WriteStream } from 'node:fs';
import { copyFile, mkdir, opendir, readdir, rename, rm, rmdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SpaceWatch } from '../space.js';
import type { BodyFiles, BodySink, RequestRecord, RequestRepo } from '../types.js';

export type { BodyFiles, BodySink } from '../types.js';

interface BodyFileState {
  path: string;
  value: Buffer | null;
  /** Something (redaction) assigned a new body: the file no longer holds it. */
  replaced: boolean;
}

const states = new WeakMap<RequestRecord, BodyFileState>();

/**
 * Makes `record.body` read `file` when first used (and keeps what is assigned to it); `read`: the
 * file's bytes, when the caller already has them.
 */
export function attachBodyFile(record: RequestRecord, file: string, read?: Buffer): void {
  const state: BodyFileState = { path: file, value: read ?? null, replaced: false };
  states.set(record, state);
  Object.defineProperty(record, 'body', {
    enumerable: true,
    configurable: true,
    get() {
      // A file swept away under a reader reads as the empty body the row holds.
      return (state.value ??= existsSync(state.path) ? readFileSync(state.path) : Buffer.alloc(0));
    },
    set(v: Buffer) {
      state.value = v;
      state.replaced = true;
    },
  });
}

/** The file holding the record's body, when it has one and nothing replaced it. */
export function bodyFileOf(record: RequestRecord): string | null {
  const s = states.get(record);
  return s && !s.replaced ? s.path : null;
}

/** A stream of the body's bytes when it is in a file (raw answers do not load it whole). */
export function bodyStream(record: RequestRecord): ReadStream | null {
  const file = bodyFileOf(record);
  return file && existsSync(file) ? createReadStream(file) : null;
}

export interface BodyFilesOptions {
  dir: string;
  /** Bodies larger than this many bytes go to a file. */
  threshold: number;
  /** How often the sweeper looks for files of deleted requests, in ms (0: only when called). */
  sweepEveryMs?: number;
  /** Told of failed writes, which it answers with InsufficientStorage when space ran out (core/store/space.ts). */
  space?: SpaceWatch;
}

/**
 * A body file whose request is not found is removed only once it is this old. It is placed before
 * its row is committed (so that a committed row always has its file), and placing it sets its time:
 * younger, its row may be on its way, in this process or another on the same folder. A commit ends
 * within the connection's busy_timeout (5 s), and a failed one removes its file itself.
 */
export const ORPHAN_AGE_MS = 60_000;
/** Files the start-up walk checks between two turns of the event loop. */
const STARTUP_PASS = 1000;

export function createBodyFiles(opts: BodyFilesOptions): BodyFiles {
  const { dir, threshold, space } = opts;
  const tmpDir = path.join(dir, '.incoming');
  mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  // Uploads in .incoming older than this, and not this store's (named with `own`), were left by a
  // process that stopped (startUp). The name tells this store's own apart: file times are only as
  // fine as the kernel's clock tick, so one written just after opening may look older.
  const opened = Date.now();
  const own = `${process.pid}-${randomBytes(4).toString('hex')}-`;
  let incoming = 0;
  const incomingFile = () => path.join(tmpDir, `${own}${++incoming}`);
  const fileOf = (tokenId: string, uuid: string) => path.join(dir, tokenId, uuid);
  let inner: RequestRepo | null = null;
  /** The error to answer a failed write with (InsufficientStorage for lack of space). */
  const refusal = (err: unknown): Promise<unknown> => (space ? space.failed(err) : Promise.resolve(err));

  function sink(): BodySink {
    const chunks: Buffer[] = [];
    let size = 0;
    let file: string | null = null;
    let out: WriteStream | null = null;
    /** Writing failed: the error to answer with, once the partial file is removed. */
    let failure: Promise<unknown> | null = null;
    let onFailure: ((err: unknown) => void) | null = null;
    function fail(err: unknown): void {
      if (failure) return;
      out!.destroy();
      failure = rm(file!, { force: true })
        .catch(() => undefined)
        .then(() => refusal(err));
      void failure.then((e) => onFailure?.(e));
    }
    return {
      write(chunk) {
        size += chunk.length;
        // Failed: the capture is being refused, the rest of its body is not kept.
        if (failure) return true;
        if (out) return out.write(chunk);
        chunks.push(chunk);
        if (size <= threshold) return true;
        file = incomingFile();
        out = createWriteStream(file, { mode: 0o600 });
        out.on('error', fail);
        let ok = true;
        for (const c of chunks) ok = out.write(c);
        chunks.length = 0;
        return ok;
      },
      drained(then) {
        // A stream that failed never drains.
        if (out && !failure) out.once('drain', then);
        else then();
      },
      failed(then) {
        onFailure = then;
      },
      async end() {
        if (!out) return { buffer: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) };
        const stream = out;
        if (!failure) {
          await new Promise<void>((resolve) => {
            stream.once('error', () => resolve());
            stream.end(resolve);
          });
        }
        if (failure) throw await failure;
        return { file: file!, size };
      },
      discard() {
        if (!out || failure) return;
        const target = file!;
        out.destroy();
        out.once('close', () => void rm(target, { force: true }));
      },
    };
  }

  const storedFileOf = (row: RequestRecord) => (row.size > 0 && row.body.length === 0 ? fileOf(row.token_id, row.uuid) : null);

  /** Row -> record: a filed body becomes the lazy accessor. */
  function hydrate<T extends RequestRecord | null>(r: T): T {
    const file = r && storedFileOf(r);
    if (file) attachBodyFile(r, file);
    return r;
  }

  /**
   * Puts a large body in its file; returns the record to give the database (body emptied). Most
   * captures keep a small body in memory: then the record itself, at once (no path, no async step).
   */
  function file(r: RequestRecord): RequestRecord | Promise<RequestRecord> {
    const received = bodyFileOf(r);
    return received || r.body.length > threshold ? fileBody(r, received) : r;
  }

  async function fileBody(r: RequestRecord, received: string | null): Promise<RequestRecord> {
    const target = fileOf(r.token_id, r.uuid);
    try {
      await mkdir(path.dirname(target), { recursive: true });
      if (received) {
        // Its time says when it was placed, not when its bytes came (ORPHAN_AGE_MS).
        const now = new Date();
        await utimes(received, now, now);
        await rename(received, target);
        states.get(r)!.path = target;
      } else {
        await writeFile(target, r.body);
        const temp = states.get(r);
        if (temp) void rm(temp.path, { force: true }); // replaced (redacted): the received bytes go
      }
    } catch (err) {
      // Whatever part of it was written (a received file not moved is the capture's to remove).
      await rm(target, { force: true }).catch(() => undefined);
      throw await refusal(err);
    }
    // Copy without reading the accessor: the database gets the empty body, the caller keeps r.
    const { body: _unused, ...rest } = Object.getOwnPropertyDescriptors(r);
    return Object.defineProperties({ body: Buffer.alloc(0) }, rest) as RequestRecord;
  }

  /** Stores a row whose body was just placed in its file; the file goes when the row is not stored. */
  async function insertFiled(repo: RequestRepo, row: RequestRecord, limit: number, files?: ReadonlyMap<string, Buffer>): Promise<void> {
    try {
      await repo.insert(row, limit, files);
    } catch (err) {
      // Unless the row is there after all (a writer thread that stopped after its commit), or
      // that cannot be told: then the sweeper decides.
      const stored = await repo.get(row.token_id, row.uuid).then(Boolean, () => true);
      if (!stored) await rm(fileOf(row.token_id, row.uuid), { force: true }).catch(() => undefined);
      throw err;
    }
  }

  // The sweeper walks DATA_DIR/bodies one entry at a time (a cursor over open directory handles
  // kept between passes), so a pass costs its `limit` whatever the number of files; a walk that
  // ends in a pass ends the pass, and the next pass starts a new one.
  const walk: { tokens: Dir | null; token: string; files: Dir | null; seen: number } = { tokens: null, token: '', files: null, seen: 0 };

  /** The next body file of the walk as [token, request]; null when the walk is complete. */
  async function nextFile(): Promise<[string, string] | null> {
    for (;;) {
      if (walk.files) {
        const entry = await walk.files.read();
        if (entry) {
          walk.seen++;
          if (entry.isFile()) return [walk.token, entry.name];
          continue;
        }
        await walk.files.close();
        walk.files = null;
        if (!walk.seen) await rmdir(path.join(dir, walk.token)).catch(() => undefined);
      }
      walk.tokens ??= await opendir(dir).catch(() => null);
      const t = await walk.tokens?.read();
      if (!t) {
        await walk.tokens?.close();
        walk.tokens = null;
        return null;
      }
      if (!t.isDirectory() || t.name === '.incoming') continue;
      walk.token = t.name;
      walk.seen = 0;
      walk.files = await opendir(path.join(dir, t.name)).catch(() => null);
    }
  }

  /** Removes the files in .incoming last written before `before` (ms), with `mine` those of this store too; returns how many. */
  async function clearIncoming(before: number, mine: boolean): Promise<number> {
    let removed = 0;
    for (const f of await readdir(tmpDir).catch(() => [] as string[])) {
      if (!mine && f.startsWith(own)) continue;
      const file = path.join(tmpDir, f);
      const info = await stat(file).catch(() => null);
      if (info && info.mtimeMs < before && (await rm(file, { force: true }).then(() => true))) removed++;
    }
    return removed;
  }

  /**
   * Checks the walk's next `limit` files, removing those of no request (ORPHAN_AGE_MS); returns how
   * many it removed, and whether the walk ended.
   */
  async function checkFiles(repo: RequestRepo, limit: number): Promise<{ removed: number; ended: boolean }> {
    let removed = 0;
    for (let checked = 0; checked < limit; checked++) {
      const next = await nextFile();
      if (!next) return { removed, ended: true };
      const [tokenId, uuid] = next;
      if (await repo.get(tokenId, uuid)) continue;
      const file = fileOf(tokenId, uuid);
      const info = await stat(file).catch(() => null);
      if (!info || Date.now() - info.mtimeMs < ORPHAN_AGE_MS) continue;
      await unlink(file).catch(() => undefined);
      removed++;
    }
    return { removed, ended: false };
  }

  async function sweepOnce(limit: number): Promise<number> {
    if (!inner) return 0;
    // Bodies of captures a crash interrupted: nothing receives for an hour. (Only captures in
    // flight are here, so the listing is short.)
    const removed = await clearIncoming(Date.now() - 3_600_000, true);
    return removed + (await checkFiles(inner, limit)).removed;
  }

  /**
   * What a process that stopped left: uploads in .incoming last written before this opening, not
   * this store's (one of another instance on the folder that wrote nothing since would fail, never
   * an acknowledged one, whose file leaves .incoming before its row is committed), then a whole
   * walk for bodies of no request, a pass at a time.
   */
  async function startUp(repo: RequestRepo): Promise<void> {
    await clearIncoming(opened, false);
    while (!closing && !(await checkFiles(repo, STARTUP_PASS)).ended) await new Promise((resolve) => setImmediate(resolve));
  }

  let closing = false;
  // One pass at a time: the timer's and a caller's would share the walk's handles.
  let sweeping: Promise<unknown> = Promise.resolve();
  function sweep(limit = 1000): Promise<number> {
    const pass = sweeping.then(() => sweepOnce(limit));
    sweeping = pass.catch(() => undefined);
    return pass;
  }
  const timer = opts.sweepEveryMs ? setInterval(() => void sweep().catch(() => undefined), opts.sweepEveryMs) : null;
  timer?.unref();

  async function place(row: RequestRecord, body: Buffer | string): Promise<void> {
    const target = fileOf(row.token_id, row.uuid);
    // Written beside, renamed into place: an interrupted copy never leaves part of a body.
    const temp = incomingFile();
    let copied = false;
    try {
      if (typeof body === 'string') await copyFile(body, temp);
      else await writeFile(temp, body, { mode: 0o600 });
      copied = true;
      await mkdir(path.dirname(target), { recursive: true });
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true }).catch(() => undefined);
      if (!copied && (err as NodeJS.ErrnoException).code === 'ENOENT' && typeof body === 'string') return;
      throw await refusal(err);
    }
  }

  return {
    dir,
    threshold,
    sink,
    sweep,
    place,
    storedFileOf,
    wrap(repo) {
      inner = repo;
      const started = sweeping.then(() => startUp(repo));
      sweeping = started.catch(() => undefined);
      return {
        ...repo,
        insert(r, limit, files) {
          const row = file(r);
          return row instanceof Promise ? row.then((filed) => insertFiled(repo, filed, limit, files)) : repo.insert(row, limit, files);
        },
        get: async (t, u) => hydrate(await repo.get(t, u)),
        latest: async (t) => hydrate(await repo.latest(t)),
        async list(t, o) {
          const page = await repo.list(t, o);
          page.items.forEach(hydrate);
          return page;
        },
        async listAfter(t, o) {
          const step = await repo.listAfter(t, o);
          step.items.forEach(hydrate);
          return step;
        },
        update: async (t, u, p) => hydrate(await repo.update(t, u, p)),
        async delete(t, u) {
          const gone = await repo.delete(t, u);
          if (gone) await rm(fileOf(t, u), { force: true });
          return gone;
        },
      };
    },
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      await sweeping;
      await walk.files?.close().catch(() => undefined);
      await walk.tokens?.close().catch(() => undefined);
    },
  };
}
