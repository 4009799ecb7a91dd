// MongoDB for tests. MONGODB_URI names the server to run against (.ci/run's MongoDB phase sets it);
// without it, startTestMongo() starts the wire-compatible emulator that .ci/run installs (JONGODB_BIN)
// for one test file. Clean-up never relies on dropDatabase or listCollections, which the emulator
// lacks: a test drops (or, where `drop` is missing too, empties) the collections it created.
// The emulator does not isolate concurrent commands: findOneAndUpdate's update and its read of the
// result can interleave with another connection's (two concurrent $inc's return the same count in
// 15-94% of five-way races), where MongoDB applies each to a document atomically. So clients of an
// emulator this helper starts use one connection (EMULATOR_OPTIONS), which runs a process's commands
// one at a time; .ci/run's MONGODB_URI carries the same option. Across processes the emulator stays
// non-atomic, and the multi-instance cases that need it skip, naming that.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Collection, MongoClient, type Db } from 'mongodb';
import { EVENTS_COLLECTION } from '../../core/realtime/mongo-feed.js';
import { AGENDA_COLLECTION } from '../../core/scheduler/scheduler.js';
import { cols } from '../../core/store/mongo/docs.js';
import { scheduleCollections } from '../../core/store/mongo/schedules.js';

/** Where .ci/run installs the emulator when JONGODB_BIN is not set. */
const DEFAULT_JONGODB_BIN = path.join(os.homedir(), '.cache/capture-ci/jongodb/node_modules/@jongodb/memory-server-bin-linux-x64-gnu/bin/jongodb');

/** Query options for the emulator's URI (see the top of this file). */
export const EMULATOR_OPTIONS = 'maxPoolSize=1';

/** Why a test that needs MongoDB was skipped. */
export const NO_MONGO = 'skip: needs a MongoDB server (set MONGODB_URI, or JONGODB_BIN to the wire-compatible server .ci/run installs)';

export interface TestMongo {
  uri: string;
  /** Stops the server if this helper started it. */
  stop(): Promise<void>;
}

/** A database name no other test run uses. */
export function testDbName(prefix: string): string {
  return `${prefix}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The same server's URI naming another database (its options kept). */
export function withDatabase(uri: string, db: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${db}`);
}

/** The emulator's binary: JONGODB_BIN, else .ci/run's install location; null when neither exists. */
export function jongodbBin(): string | null {
  const bin = process.env.JONGODB_BIN || DEFAULT_JONGODB_BIN;
  return fs.existsSync(bin) ? bin : null;
}

/** MONGODB_URI's server, else a fresh emulator on a free port; null when there is neither. */
export async function startTestMongo(): Promise<TestMongo | null> {
  const uri = process.env.MONGODB_URI;
  if (uri) return { uri, stop: async () => {} };
  const bin = jongodbBin();
  return bin ? startJongodb(bin) : null;
}

async function startJongodb(bin: string): Promise<TestMongo> {
  const port = await freePort();
  const child = spawn(bin, ['--host=127.0.0.1', `--port=${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  const uri = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the MongoDB emulator did not start within 30 s: ${output}`)), 30_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`the MongoDB emulator exited (${code}): ${output}`)));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /^JONGODB_URI=(\S+)/m.exec(output);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(`${m[1]}${m[1].includes('?') ? '&' : '?'}${EMULATOR_OPTIONS}`);
    });
  });
  return {
    uri,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Every collection the MongoDB store, its scheduler and its realtime feed may create. */
export function storeCollectionNames(db: Db): string[] {
  const collections = [...Object.values(cols(db)), ...Object.values(scheduleCollections(db))].filter((c) => c instanceof Collection);
  return [...collections.map((c) => c.collectionName), EVENTS_COLLECTION, AGENDA_COLLECTION];
}

/** Drops the named collections; empties those the server cannot drop (no `drop` command). */
export async function discardCollections(db: Db, names: Iterable<string>): Promise<void> {
  for (const name of names) {
    try {
      await db.collection(name).drop();
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 26) continue; // NamespaceNotFound: never created.
      if (code !== 59) throw err; // 59 CommandNotFound: empty it instead.
      await db.collection(name).deleteMany({});
    }
  }
}

/** Removes what a store (with its scheduler and feed) wrote to database `dbName`. */
export async function discardStoreData(uri: string, dbName: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    const db = client.db(dbName);
    await discardCollections(db, storeCollectionNames(db));
  } finally {
    await client.close();
  }
}
