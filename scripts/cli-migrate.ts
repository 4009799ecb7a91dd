// `npm run cli -- migrate --from <where> --to <where> [--force]`: copies a whole store, SQLite to
// MongoDB or back (or SQLite to another SQLite file), with core/store/migrate.ts. A place is a
// MongoDB URI, a SQLite file or a DATA_DIR (the folder holding capture.sqlite). Progress goes to
// stderr, the count per kind to stdout; the exit code is 0 only when every count matches.
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, redactUrl } from '../core/config.js';
import { copyStore, Interrupted, TargetNotEmpty, type KindCount } from '../core/store/migrate.js';
import { sqliteFile } from '../core/store/index.js';
import { createSqliteStore } from '../core/store/sqlite/index.js';
import type { Store } from '../core/store/types.js';
import { progress } from './progress.js';

const say = (text: string) => process.stderr.write(text + '\n');

export type Place = { kind: 'mongo'; uri: string } | { kind: 'sqlite'; file: string };

/** A MongoDB URI, an existing folder (DATA_DIR), a file, or a new path: a file when it has an extension, else a DATA_DIR. */
export function parsePlace(arg: string): Place {
  if (/^mongodb(\+srv)?:\/\//i.test(arg)) return { kind: 'mongo', uri: arg };
  const dir = existsSync(arg) ? statSync(arg).isDirectory() : !path.extname(arg);
  return { kind: 'sqlite', file: path.resolve(dir ? sqliteFile({ dataDir: arg }) : arg) };
}

/** Fit to print (no password), and the source's name in the target's checkpoints. */
export function placeName(p: Place): string {
  return p.kind === 'mongo' ? `MongoDB ${redactUrl(p.uri)}` : `SQLite ${existsSync(p.file) ? realpathSync(p.file) : p.file}`;
}

async function open(p: Place, role: 'source' | 'target'): Promise<Store> {
  if (p.kind === 'sqlite') {
    // Bodies kept in files are in the database's folder (DATA_DIR/bodies): read from a source that
    // has them, written into a target's past BODY_FILE_THRESHOLD (0: inline in its rows), as the
    // service there would read them.
    const threshold = loadConfig({ BODY_FILE_THRESHOLD: process.env.BODY_FILE_THRESHOLD }).BODY_FILE_THRESHOLD;
    const dir = path.join(path.dirname(p.file), 'bodies');
    const filed = role === 'source' ? existsSync(dir) : threshold > 0;
    return createSqliteStore(p.file, { bodyFiles: filed ? { dir, threshold: threshold || Number.MAX_SAFE_INTEGER } : undefined });
  }
  const { createMongoStore } = await import('../core/store/mongo/index.js');
  try {
    return await createMongoStore(p.uri);
  } catch (e) {
    throw new Error(`cannot reach ${placeName(p)}: ${(e as Error).message}`);
  }
}

function report(counts: KindCount[]): number {
  const bad = counts.filter((c) => c.source !== c.target);
  const rows = counts.map((c) => `${c.kind.padEnd(22)} ${String(c.source).padStart(10)} ${String(c.target).padStart(10)}  ${c.source === c.target ? 'ok' : 'MISMATCH'}`);
  process.stdout.write(`${'kind'.padEnd(22)} ${'source'.padStart(10)} ${'target'.padStart(10)}\n${rows.join('\n')}\n`);
  if (bad.length) say(`error: the counts differ for ${bad.map((c) => c.kind).join(', ')}: the target held other records, or the source changed during the copy (stop the service and run again)`);
  return bad.length ? 1 : 0;
}

export async function migrateCommand(from: string, to: string, force: boolean, pageSize?: number): Promise<number> {
  const src = parsePlace(from);
  const dst = parsePlace(to);
  if (placeName(src) === placeName(dst)) throw new Error('--from and --to name the same database');
  if (src.kind === 'sqlite' && !existsSync(src.file)) throw new Error(`--from: there is no database at ${src.file}`);
  const isNew = dst.kind === 'sqlite' && !existsSync(dst.file);
  say(`from: ${placeName(src)}`);
  say(`to:   ${placeName(dst)}${isNew ? ' (new)' : ''}`);
  const source = await open(src, 'source');
  let target: Store | undefined;
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
    say('\nstopping after this page (Ctrl-C again to stop at once; the next run continues from the last page either way)');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const bar = progress();
  try {
    target = await open(dst, 'target');
    const counts = await copyStore({
      source,
      target,
      sourceName: placeName(src),
      force,
      pageSize,
      signal: stop.signal,
      onProgress: ({ kind, done, total, resumed }) => bar.update({ what: kind, done, total, resumed }),
    });
    bar.end();
    return report(counts);
  } catch (e) {
    bar.end();
    if (e instanceof Interrupted) {
      say('interrupted: run the same command again to continue where it stopped');
      return 130;
    }
    if (e instanceof TargetNotEmpty) throw new Error(`${e.message}. Choose an empty target, or add --force to copy into it anyway (records with the same ids are replaced, the others stay).`);
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await target?.close();
    await source.close();
  }
}
