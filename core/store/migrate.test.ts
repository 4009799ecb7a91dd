// migrate (core/store/migrate.ts, scripts/cli-migrate.ts): every repository is copied; a copy
// answers the API exactly as its source; it refuses a target holding other data, continues after
// an interruption and changes nothing when run again. SQLite to SQLite always; SQLite -> MongoDB ->
// SQLite when MONGODB_URI points at a server.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../scripts/cli.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../test/helpers/server.js';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName } from '../../test/helpers/mongo.js';
import { hashApiKey } from '../auth/secrets.js';
import { copyStore, Interrupted, REPOSITORY_KINDS, TargetNotEmpty, TRANSFER_ORDER } from './migrate.js';
import { sampleRequest, sampleToken } from './store.contract.js';
import { createSqliteStore } from './sqlite/index.js';
import type { RequestWithFiles } from './types.js';

/**
 * Generated requests: 10,000 in every run (a few seconds), MIGRATE_REQUESTS=100000 for the
 * full-size run, which takes minutes on a 2-core machine (four full copies).
 */
const REQUESTS = Number(process.env.MIGRATE_REQUESTS ?? 10_000);
/** Time limits grow with the size: the full-size run copies 100,000 requests four times. */
const scaled = (ms: number) => Math.max(ms, ms * (REQUESTS / 10_000));
/** Records per page through MongoDB (the CLI's --page-size). */
const MONGO_PAGE = 5_000;
/** Generated requests per token: within the default request_limit, so nothing is trimmed. */
const PER_TOKEN = 10_000;
const SECRET_KEY = 'migrate-test-secret-key-0123456789abcdef';
// MONGODB_URI's server, or the emulator .ci/run installs (JONGODB_BIN); null: the round trip is skipped.
const mongoServer = await startTestMongo();
/**
 * The clock of the servers that seed the source and answer from both sides: each starts at the
 * same instant, the start of a minute, and moves on with the time it runs. The rate windows the API
 * opens (token creation, schedule logs) are then the same windows in the source and in the copy
 * whenever the test runs (a minute turning between the two used to add a window to the copy only),
 * and they are ahead of the wall clock migrate reads, so still open when it counts them.
 */
const SERVER_START = Date.UTC(2100, 0, 1, 12, 0, 0);
function serverClock(): { now: () => number } {
  const started = performance.now();
  return { now: () => SERVER_START + Math.floor(performance.now() - started) };
}
/** A plugin with a provider type, so that a provider can be stored. */
const PLUGINS = fileURLToPath(new URL('../../test/fixtures/plugin-vault', import.meta.url));

let root: string;
let out: string[];
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate-'));
  vi.stubEnv('LOG_LEVEL', 'silent');
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
});
afterAll(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  fs.rmSync(root, { recursive: true, force: true });
  // Once every describe that uses it is done.
  await mongoServer?.stop();
});

const cli = async (...argv: string[]) => {
  out = [];
  return main(argv);
};

describe('migrate covers every repository', () => {
  const types = fs.readFileSync(path.join(import.meta.dirname, 'types.ts'), 'utf8');
  const block = (name: string) => types.slice(types.indexOf(`export interface ${name} {`)).split('\n}')[0]!;

  it('lists every repository of the Store interface, and every kind it copies is copied', () => {
    const repos = [...block('Store').matchAll(/^ {2}(\w+): \w+Repo;$/gm)].map((m) => m[1]).filter((r) => r !== 'transfer');
    expect(repos.length).toBeGreaterThan(10);
    expect(Object.keys(REPOSITORY_KINDS).sort()).toEqual(repos.sort());
    const kinds = [...block('TransferRecords').matchAll(/^ {2}(\w+): /gm)].map((m) => m[1]);
    const listed = Object.values(REPOSITORY_KINDS).flatMap((k) => ('notCopied' in k ? [] : k));
    expect([...listed].sort()).toEqual([...kinds].sort());
    expect([...TRANSFER_ORDER].sort()).toEqual([...kinds].sort());
  });
});

describe('migrate counts', () => {
  it('counts both sides at one instant after the copy: a rate window that closes and is swept meanwhile is no mismatch', async () => {
    let now = Date.UTC(2024, 0, 2, 3, 4, 5);
    const a = createSqliteStore(path.join(root, 'windows-source.sqlite'));
    const b = createSqliteStore(path.join(root, 'windows-target.sqlite'));
    try {
      await a.counters.hit('closes-soon', now - (now % 60_000), 120_000);
      await a.counters.hit('stays-open', now, 3_600_000);
      const counts = await copyStore({
        source: a,
        target: b,
        sourceName: 'src',
        now: () => now,
        onProgress: (p) => {
          // Once the windows are copied, five minutes pass and the source removes the closed one,
          // as the running service's sweep (or MongoDB's TTL monitor) does.
          if (p.kind === 'rate_counters' && p.done === 2) {
            now += 5 * 60_000;
            void a.counters.sweep(now);
          }
        },
      });
      expect(counts.find((c) => c.kind === 'rate_counters')).toEqual({ kind: 'rate_counters', source: 1, target: 1 });
      for (const c of counts) expect(c.target, c.kind).toBe(c.source);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

/** Fresh generated captures of a token, in sorting order, some sharing a sorting key. */
function generated(tokenId: string, n: number, start: number): RequestWithFiles[] {
  const base = 1_700_000_000_000_000;
  return Array.from({ length: n }, (_, i) => {
    const k = start + i;
    const body = Buffer.from(`{"n":${k},"pad":"${'x'.repeat(k % 64)}"}`);
    return {
      request: sampleRequest(tokenId, {
        uuid: randomUUID(),
        body,
        size: body.length,
        content_type: 'application/json',
        headers: { 'content-type': ['application/json'], 'x-n': [String(k)] },
        query: k % 3 ? null : { n: String(k) },
        sorting: base + Math.floor(k / 2) * 1000,
        created_at: 1_700_000_000_000 + k,
        updated_at: 1_700_000_000_000 + k,
      }),
      files: [],
    };
  });
}

interface Seeded {
  /** GET paths and the key to call them with. */
  paths: Array<[string, string | undefined]>;
}

/** One or more of every resource, through the API where it has a way in, plus REQUESTS generated captures. */
async function seed(dataDir: string): Promise<Seeded> {
  const s = await startTestServer({ DATA_DIR: dataDir, SECRET_KEY, PLUGINS }, { clock: serverClock() });
  try {
    const store = s.services.store;
    const pro = await s.user(true);
    const key = 'whk_migrate_' + randomUUID();
    const extraKey = await store.users.addApiKey(pro.id, hashApiKey(key), key.slice(0, 8), 1_700_000_000_000);
    const t1 = await s.token({ alias: 'migrated-alias', actions: true }, pro.key);
    const t2 = await s.token({}, pro.key);
    const group = await s.call('POST', '/groups', { key: pro.key, json: { name: 'Team' } });
    await s.call('PUT', `/token/${t1.uuid}`, { key: pro.key, json: { group_id: group.data.id, description: 'moved' } });
    await fetch(`${s.url}/${t1.uuid}/plain?a=1&a=2`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
    const form = new FormData();
    form.append('field', 'value');
    form.append('upload', new Blob([Buffer.from([0, 1, 2, 250, 255])], { type: 'application/octet-stream' }), 'bytes.bin');
    await fetch(`${s.url}/${t1.uuid}/upload`, { method: 'POST', body: form });
    await s.call('POST', `/token/${t1.uuid}/actions`, { key: pro.key, json: { order: 1, type: 'text_split', parameters: { source: 'a,b', delimiter: ',', variable_name: 'p' } } });
    const sched = await s.call('POST', '/schedules', {
      key: pro.key,
      json: { name: 'ping', interval: 'hourly', request_method: 'POST', request_url: `${s.url}/${t1.uuid}/from-schedule`, request_body: 'ping', timeout: 5 },
    });
    expect(sched.status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await s.call('POST', `/schedules/${sched.data.id}/run-now`, { key: pro.key })).status).toBe(200);
    await store.schedules.putNotificationSettings({ user_id: pro.id, email: 'ops@example.test', email_enabled: true, webhook_url: null, updated_at: 1_700_000_000_000 });
    await s.call('POST', '/global-variables', { key: pro.key, json: { name: 'greeting', value: 'hello' } });
    const provider = await s.call('POST', '/providers', { key: pro.key, json: { type: 'vault', name: 'Main', credentials: { api_key: 'sealed-secret' }, settings: { region: 'eu' } } });
    expect(provider.status).toBe(201);
    const template = await s.call('POST', '/templates', { key: pro.key, json: { name: 'T', variables: [{ name: 'v', value: '1' }], actions: [{ type: 'log', parameters: { text: 'one' }, order: 1 }] } });
    await store.databases.create({ id: randomUUID(), user_id: pro.id, name: 'main', created_at: 1_700_000_000_000, updated_at: 1_700_000_000_000 });
    await store.counters.hit('token-create:test', s.services.clock.now(), 3_600_000);
    await store.actionFailures.fail(randomUUID(), t1.uuid, 1_700_000_000_000);
    const share = await s.call('POST', `/token/${t1.uuid}/share`, { key: pro.key });
    expect(share.status).toBe(201);
    const entry = { user_id: pro.id, token_id: t1.uuid, request_id: null, action_id: randomUUID(), action_type: 'http', schedule_id: null, schedule_name: null, created_at: 1_700_000_000_000 };
    await store.errorLog.add(
      [
        { ...entry, source: 'action', message: 'refused', read: true },
        { ...entry, source: 'action', message: 'timed out', read: false },
      ],
      1000,
    );
    // The generated captures, through the bulk path: t2 first, then more tokens.
    const bulk = [t2.uuid];
    for (let i = 0; i < REQUESTS; i += 5_000) {
      if (i && i % PER_TOKEN === 0) bulk.push((await s.token({}, pro.key)).uuid);
      await store.transfer.write('requests', generated(bulk.at(-1)!, Math.min(5_000, REQUESTS - i), i));
    }

    const reqs = (await s.call('GET', `/token/${t1.uuid}/requests?sorting=oldest`, { key: pro.key })).data.data as Array<{ uuid: string; files: Record<string, { id: string }> }>;
    const upload = reqs.find((r) => Object.keys(r.files ?? {}).length)!;
    const fileId = Object.values(upload.files)[0]!.id;
    const paths: Array<[string, string | undefined]> = [
      ['/users', ADMIN_KEY],
      ['/users/me', pro.key],
      ['/users/me', key],
      [`/users/${pro.id}`, ADMIN_KEY],
      [`/users/${pro.id}/api-keys`, ADMIN_KEY],
      ['/token', pro.key],
      [`/token/${t1.uuid}`, pro.key],
      [`/token/${t2.uuid}`, pro.key],
      ['/token/migrated-alias', pro.key],
      [`/token/${t1.uuid}/requests?sorting=oldest`, pro.key],
      [`/token/${t1.uuid}/requests?sorting=newest`, pro.key],
      [`/token/${t2.uuid}/requests?sorting=newest`, pro.key],
      [`/token/${t2.uuid}/requests?sorting=oldest&page=7&per_page=50`, pro.key],
      [`/token/${t2.uuid}/requests?query=${encodeURIComponent('query.n:3*')}`, pro.key],
      [`/token/${bulk.at(-1)}/requests`, pro.key],
      [`/token/${t1.uuid}/request/${upload.uuid}`, pro.key],
      [`/token/${t1.uuid}/request/${upload.uuid}/raw`, pro.key],
      [`/token/${t1.uuid}/request/${upload.uuid}/download/${fileId}`, pro.key],
      [`/token/${t1.uuid}/request/${reqs[0]!.uuid}/raw`, pro.key],
      [`/token/${t1.uuid}/actions`, pro.key],
      [`/token/${t1.uuid}/workflow`, pro.key],
      ['/groups', pro.key],
      [`/groups/${group.data.id}`, pro.key],
      ['/schedules', pro.key],
      [`/schedules/${sched.data.id}`, pro.key],
      [`/schedules/${sched.data.id}/logs`, pro.key],
      [`/schedules/${sched.data.id}/document`, pro.key],
      ['/schedules/notifications', pro.key],
      ['/global-variables', pro.key],
      ['/providers', pro.key],
      [`/providers/${provider.data.id}`, pro.key],
      ['/templates', pro.key],
      [`/templates/${template.data.id}`, pro.key],
      // The share link's secret (kept as a hash) still opens the copy; the error log with its read flags.
      [`/token/${t1.uuid}/share`, pro.key],
      [`/token/${t1.uuid}/requests?share=${share.data.secret}`, undefined],
      ['/errors', pro.key],
      // The Databases API answers only with PostgreSQL configured: its records are compared by count (below) and in the transfer contract.
    ];
    expect(extraKey.id).toBeGreaterThan(0);
    return { paths };
  } finally {
    await s.close();
  }
}

/** Every path's status and body, as served from a data folder (or MongoDB). */
async function answers(env: Record<string, string>, paths: Seeded['paths']): Promise<string[]> {
  const s: TestServer = await startTestServer({ SECRET_KEY, PLUGINS, ...env }, { clock: serverClock() });
  try {
    const got: string[] = [];
    for (const [p, key] of paths) {
      const r = await s.call('GET', p, { key });
      // Page links name the server answering: the same once its own address is set aside.
      got.push(`${p} ${r.status} ${r.headers.get('content-type')} ${r.buf.toString('latin1').replaceAll(s.url, 'BASE')}`);
    }
    return got;
  } finally {
    await s.close();
  }
}

describe('migrate between SQLite databases', () => {
  let source: string;
  let seeded: Seeded;
  let before: string[];

  beforeAll(async () => {
    source = path.join(root, 'source');
    seeded = await seed(source);
    before = await answers({ DATA_DIR: source }, seeded.paths);
    for (const a of before) expect(a, a.slice(0, 120)).toMatch(/^\S+ 200 /);
  }, scaled(120_000));

  it(
    `copies ${REQUESTS} generated requests and every resource; the API answers as before; a second run changes nothing`,
    async () => {
      const target = path.join(root, 'copy');
      expect(await cli('migrate', '--from', source, '--to', target), out.join('')).toBe(0);
      const text = out.join('');
      expect(text).toContain(`to:   SQLite ${path.join(target, 'capture.sqlite')} (new)`);
      expect(text).toMatch(new RegExp(`requests\\s+${REQUESTS + 4}\\s+${REQUESTS + 4}\\s+ok`));
      expect(await answers({ DATA_DIR: target }, seeded.paths)).toEqual(before);

      expect(await cli('migrate', '--from', source, '--to', target), out.join('')).toBe(0);
      expect(out.join('')).not.toContain('MISMATCH');
      expect(await answers({ DATA_DIR: target }, seeded.paths)).toEqual(before);
    },
    scaled(120_000),
  );

  it(
    'refuses a target holding other data unless --force, and says so',
    async () => {
      const other = path.join(root, 'other');
      const s = createSqliteStore(path.join(other, 'capture.sqlite'));
      await s.users.create({ name: 'x', email: 'x@example.test', premium: false, created_at: 1, updated_at: 1 });
      await s.close();
      expect(await cli('migrate', '--from', source, '--to', other)).toBe(1);
      expect(out.join('')).toMatch(/already holds 1 users not copied from this source.*--force/);
      // Forced: the same ids are replaced, the counts then match (the source has a user 1 too).
      expect(await cli('migrate', '--from', source, '--to', other, '--force')).toBe(0);
    },
    scaled(120_000),
  );

  it('refuses a --page-size that is not a whole number from 1 to 10000', async () => {
    for (const bad of ['0', '10001', '2.5', 'many']) {
      expect(await cli('migrate', '--from', source, '--to', path.join(root, 'never'), '--page-size', bad)).toBe(2);
      expect(out.join('')).toContain('--page-size must be a whole number from 1 to 10000');
    }
    expect(fs.existsSync(path.join(root, 'never'))).toBe(false);
  });

  it(
    'continues an interrupted copy where it stopped, without duplicates',
    async () => {
      const a = createSqliteStore(path.join(source, 'capture.sqlite'));
      const b = createSqliteStore(path.join(root, 'resumed.sqlite'));
      try {
        const stop = new AbortController();
        const seen: Array<{ kind: string; done: number; resumed: number }> = [];
        await expect(
          copyStore({
            source: a,
            target: b,
            sourceName: 'src',
            pageSize: 500,
            signal: stop.signal,
            onProgress: (p) => {
              seen.push(p);
              if (p.kind === 'requests' && p.done >= 1000) stop.abort();
            },
          }),
        ).rejects.toBeInstanceOf(Interrupted);
        expect(await b.transfer.count('requests', Date.now())).toBe(1000);
        seen.length = 0;
        const counts = await copyStore({ source: a, target: b, sourceName: 'src', pageSize: 500, onProgress: (p) => seen.push(p) });
        expect(seen.find((p) => p.kind === 'requests')).toMatchObject({ done: 1000, resumed: 1000 });
        for (const c of counts) expect(c.target, c.kind).toBe(c.source);
        await expect(copyStore({ source: a, target: b, sourceName: 'another source' })).rejects.toBeInstanceOf(TargetNotEmpty);
      } finally {
        await a.close();
        await b.close();
      }
    },
    scaled(120_000),
  );

  describe.skipIf(!mongoServer)(mongoServer ? 'through MongoDB and back' : `through MongoDB and back: ${NO_MONGO}`, () => {
    it(
      'SQLite -> MongoDB -> SQLite leaves every API answer identical',
      async () => {
        const dbName = testDbName('capture_migrate');
        const at = new URL(mongoServer!.uri);
        at.pathname = `/${dbName}`;
        const mongo = at.toString();
        try {
          // Large pages: the emulator CI runs on spends time per write that grows with the collection.
          expect(await cli('migrate', '--from', source, '--to', mongo, '--page-size', String(MONGO_PAGE))).toBe(0);
          expect(await answers({ MONGODB_URI: mongo, DATA_DIR: path.join(root, 'unused') }, seeded.paths)).toEqual(before);
          const back = path.join(root, 'back');
          expect(await cli('migrate', '--from', mongo, '--to', back, `--page-size=${MONGO_PAGE}`)).toBe(0);
          expect(await answers({ DATA_DIR: back }, seeded.paths)).toEqual(before);
        } finally {
          await discardStoreData(mongoServer!.uri, dbName);
        }
      },
      scaled(300_000),
    );
  });
});

describe('bodies kept in files (BODY_FILE_THRESHOLD)', () => {
  const THRESHOLD = 1024;
  /** Not UTF-8 text in places, so that a re-encoding would show. */
  const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 31 + 7) % 256));
  const small = Buffer.from('small body');
  const sqlite = (name: string, bodyFiles = true) => {
    const dir = path.join(root, name);
    return createSqliteStore(path.join(dir, 'capture.sqlite'), bodyFiles ? { bodyFiles: { dir: path.join(dir, 'bodies'), threshold: THRESHOLD } } : {});
  };

  /** A source holding one request with its body in a file and one inline; their ids. */
  async function filedSource(name: string) {
    const store = sqlite(name);
    const t = sampleToken();
    await store.tokens.create(t);
    const large = sampleRequest(t.uuid, { body: big, size: big.length, content_type: 'application/octet-stream' });
    const inline = sampleRequest(t.uuid, { body: small, size: small.length });
    await store.requests.insert(large, 100);
    await store.requests.insert(inline, 100);
    expect(fs.readdirSync(path.join(root, name, 'bodies', t.uuid))).toEqual([large.uuid]);
    return { store, token: t.uuid, large: large.uuid, inline: inline.uuid };
  }

  it("SQLite -> SQLite: into the target's own body files, or inline when the target has none; the source keeps its files", async () => {
    const src = await filedSource('filed-source');
    const withFiles = sqlite('filed-target');
    const withoutFiles = sqlite('inline-target', false);
    try {
      for (const target of [withFiles, withoutFiles]) {
        const counts = await copyStore({ source: src.store, target, sourceName: 'src' });
        for (const c of counts) expect(c.target, c.kind).toBe(c.source);
        expect((await target.requests.get(src.token, src.large))!.body.equals(big)).toBe(true);
        expect((await target.requests.get(src.token, src.inline))!.body.equals(small)).toBe(true);
      }
      expect(fs.readFileSync(path.join(root, 'filed-target', 'bodies', src.token, src.large)).equals(big)).toBe(true);
      expect(fs.readdirSync(path.join(root, 'filed-target', 'bodies', '.incoming'))).toEqual([]);
      // The target's sweeper keeps the copied file: its row is there.
      expect(await withFiles.bodyFiles!.sweep()).toBe(0);
      expect(fs.existsSync(path.join(root, 'filed-target', 'bodies', src.token, src.large))).toBe(true);
      expect(fs.existsSync(path.join(root, 'filed-source', 'bodies', src.token, src.large))).toBe(true);
      // The command: a DATA_DIR with body files to a new one.
      expect(await cli('migrate', '--from', path.join(root, 'filed-source'), '--to', path.join(root, 'filed-cli')), out.join('')).toBe(0);
      expect(fs.readFileSync(path.join(root, 'filed-cli', 'bodies', src.token, src.large)).equals(big)).toBe(true);
      // And back: the inline copy's large body goes into the files of a target that has them.
      const back = sqlite('filed-back');
      try {
        await copyStore({ source: withoutFiles, target: back, sourceName: 'inline' });
        expect(fs.readFileSync(path.join(root, 'filed-back', 'bodies', src.token, src.large)).equals(big)).toBe(true);
        expect((await back.requests.get(src.token, src.large))!.body.equals(big)).toBe(true);
      } finally {
        await back.close();
      }
    } finally {
      await src.store.close();
      await withFiles.close();
      await withoutFiles.close();
    }
  });

  it.skipIf(!mongoServer)(
    mongoServer ? 'SQLite -> MongoDB -> SQLite: the body is inline in MongoDB and in a file again after' : `SQLite -> MongoDB -> SQLite: ${NO_MONGO}`,
    async () => {
      const { createMongoStore } = await import('./mongo/index.js');
      const dbName = testDbName('capture_migrate_bodies');
      const src = await filedSource('mongo-source');
      const mongo = await createMongoStore(mongoServer!.uri, { dbName });
      const back = sqlite('mongo-back');
      try {
        await copyStore({ source: src.store, target: mongo, sourceName: 'src' });
        const there = (await mongo.requests.get(src.token, src.large))!;
        expect(there.size).toBe(big.length);
        expect(there.body.equals(big)).toBe(true);
        await copyStore({ source: mongo, target: back, sourceName: 'mongo' });
        expect(fs.readFileSync(path.join(root, 'mongo-back', 'bodies', src.token, src.large)).equals(big)).toBe(true);
        expect((await back.requests.get(src.token, src.large))!.body.equals(big)).toBe(true);
        expect((await back.requests.get(src.token, src.inline))!.body.equals(small)).toBe(true);
      } finally {
        await src.store.close();
        await mongo.close();
        await back.close();
        await discardStoreData(mongoServer!.uri, dbName);
      }
    },
    60_000,
  );
});
