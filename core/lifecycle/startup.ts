// What stands between `npm start` and a running service that a person can fix: the data folder,
// ports, the MongoDB URI. Each failure becomes one StartupError sentence that names the setting,
// says what is needed, and never prints a secret.
import { closeSync, constants, mkdirSync, openSync, statSync, unlinkSync, accessSync, writeSync } from 'node:fs';
import path from 'node:path';
import { redactUrl, type Config } from '../config.js';
import { StartupError } from '../errors.js';
import { freePort, isListenFailure, type ListenFailure, type PortSetting } from '../net/listen.js';
import { storeLocation } from '../store/index.js';
import { isOutOfSpace, PROBE_BYTES } from '../store/space.js';

const PERMISSION_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

function uid(): string {
  return typeof process.getuid === 'function' ? ` (user id ${process.getuid()})` : '';
}

function needsWrite(dir: string, code: string | undefined): StartupError {
  const why = code === 'EROFS' ? 'is on a read-only file system' : 'is not writable by this process' + uid();
  return new StartupError(`DATA_DIR=${dir} ${why}: the service needs read, write and search (rwx) permission on it. Choose another folder with DATA_DIR, or give this user access (chown/chmod u+rwx).`);
}

/**
 * Makes sure DATA_DIR is a folder this process can write, creating it (0700) when missing. Checks,
 * never hangs: folders are created one level at a time (Node's recursive mkdir loops forever under
 * /proc), and a probe file proves writing works where permission bits alone would not tell, and
 * that there is room to: on a full disk SQLite cannot even open the database (its -shm file).
 */
export function prepareDataDir(dir: string): void {
  if (dir === ':memory:') return;
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      const st = statSync(existing);
      if (!st.isDirectory()) {
        throw new StartupError(existing === dir ? `DATA_DIR=${dir} is not a folder: point DATA_DIR at a folder (it is created when missing).` : `DATA_DIR=${dir} cannot be created: ${existing} is a file, not a folder.`);
      }
      break;
    } catch (err) {
      if (err instanceof StartupError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new StartupError(`DATA_DIR=${dir} cannot be created: a part of that path is a file, not a folder.`);
      if (code !== 'ENOENT') throw new StartupError(`DATA_DIR=${dir} cannot be read: ${(err as Error).message}`);
      const parent = path.dirname(existing);
      if (parent === existing) throw new StartupError(`DATA_DIR=${dir} cannot be created: no part of that path exists.`);
      missing.unshift(existing);
      existing = parent;
    }
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (PERMISSION_CODES.has(code ?? '')) {
        throw new StartupError(`DATA_DIR=${dir} cannot be created: ${path.dirname(folder)} is not writable by this process${uid()}. Create the folder yourself, or choose another with DATA_DIR.`);
      }
      throw new StartupError(`DATA_DIR=${dir} cannot be created (${code ?? 'error'}): ${path.dirname(folder)} does not accept new folders. Choose another folder with DATA_DIR.`);
    }
  }
  const probe = path.join(dir, `.write-check-${process.pid}`);
  try {
    const fd = openSync(probe, 'w', 0o600);
    try {
      // A write that finds less room writes what fits; the next one fails.
      const bytes = Buffer.alloc(PROBE_BYTES);
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (isOutOfSpace(err)) throw new StartupError(`DATA_DIR=${dir} has no storage space left (${code}): free some space on its file system, then start again.`);
    throw needsWrite(dir, code);
  }
  // An existing database file this process cannot write would fail later with "readonly database".
  for (const name of ['capture.sqlite', 'capture.sqlite-wal', 'capture.sqlite-shm', 'secret.key']) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new StartupError(`${file} (in DATA_DIR) is not readable and writable by this process${uid()}: give this user read and write permission on it (chown/chmod u+rw), or choose another DATA_DIR.`);
    }
  }
}

const SERVERS: Record<PortSetting, { name: string; enabled: string } | null> = {
  PORT: null,
  SMTP_PORT: { name: 'SMTP', enabled: 'SMTP_ENABLED' },
  DNS_PORT: { name: 'DNS', enabled: 'DNS_ENABLED' },
};

/** One sentence for a listener that could not take its port (core/net/listen.ts), whichever it is. */
async function listenSentence(e: ListenFailure, config: Config): Promise<StartupError> {
  const { setting } = e;
  const port = config[setting];
  const server = SERVERS[setting];
  // DNS listens twice on its port; say which one is taken.
  const named = `${setting}=${port}${setting === 'DNS_PORT' ? ` (${e.transport.toUpperCase()})` : ''}`;
  if (e.code === 'EADDRNOTAVAIL') return new StartupError(`HOST=${config.HOST} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0 for all.`);
  if (e.code === 'EACCES') {
    const forward = server ? ', or forward the privileged port to it (docs/email-dns.md)' : '';
    return new StartupError(`${named}: this process may not listen on port ${port} (ports below 1024 need extra privileges). Choose a port above 1024 with ${setting}${forward}.`);
  }
  const off = server ? `; ${setting}=0 picks any free port and ${server.enabled}=false runs without the ${server.name} server` : '';
  if (e.code === 'EADDRINUSE') {
    const free = await freePort(config.HOST, setting === 'DNS_PORT' ? ['udp', 'tcp'] : ['tcp']);
    const other = free ? `, or start with ${setting}=${free} (free right now)` : '';
    return new StartupError(`${named} is already in use by another process: stop that process${other}${off}.`);
  }
  return new StartupError(`${named}: cannot listen on HOST=${config.HOST} (${e.code ?? e.message})${off}.`);
}

/**
 * Turns a failure during start-up into a StartupError a person can act on, or returns null when it
 * is not one of those (a bug: the caller prints the stack).
 */
export async function explainStartupError(err: unknown, config: Config): Promise<StartupError | null> {
  if (err instanceof StartupError) return err;
  if (!(err instanceof Error)) return null;
  if (isListenFailure(err)) return listenSentence(err, config);
  const e = err as NodeJS.ErrnoException;
  if (config.MONGODB_URI && /MongoServerSelectionError|MongoNetworkError|MongoParseError|MongoAPIError|MongoServerError/.test(e.name)) {
    return new StartupError(`MONGODB_URI=${redactUrl(config.MONGODB_URI)}: cannot use the MongoDB server (${e.message.split('\n')[0]}). Check that it runs and that the URI, user and password are right.`);
  }
  if (e.name === 'SqliteError' && /readonly|read-only|unable to open|disk I\/O/.test(e.message)) {
    return new StartupError(`DATA_DIR=${config.dataDir}: the database cannot be written (${e.message}). The service needs read and write permission on the folder and its capture.sqlite files.`);
  }
  return null;
}

/** The one line a person reads once the service is up. */
export function readyFields(config: Config, url: string): Record<string, string> {
  const base = config.baseUrl ?? url.replace('127.0.0.1', 'localhost');
  return {
    page: `${base}/`,
    api: base,
    data: storeLocation(config),
    admin: config.ADMIN_API_KEY ? 'ADMIN_API_KEY is set' : 'no admin key: set ADMIN_API_KEY (16+ characters) to create users and API keys',
  };
}
