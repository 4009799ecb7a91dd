// The route fuzzer (test/fuzz/fuzzer.ts) for a bounded time: in this process against the app on a
// temporary SQLite store, then against a started service process, which must not exit. Neither may
// answer a 5xx, hang, leave a request unanswered, show a caller what it may not read or let it
// change what it may not change; afterwards a plain capture still stores.
//   FUZZ_SECONDS   how long each run draws requests (default 10; CI runs it longer)
//   FUZZ_SEED      the seed (default 42; `random` draws one); a failure prints it to replay
//   FUZZ_REQUEST_TIMEOUT_MS  the time a request may take (default 15000; waiting routes get 75 s more)
//   FUZZ_TRACE=1   prints each request before it is sent; `routes`: the answers of each route at the end
//   FUZZ_SKIP      a regular expression: requests whose `<caller> <METHOD> <route> <body description>`
//                  it matches are not sent (a local aid while a known failure is fixed elsewhere)
import { randomInt } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModules } from '../core/modules.js';
import { webModule } from '../core/web/module.js';
import { fuzz, type FuzzOptions } from './fuzz/fuzzer.js';
// @ts-expect-error plain JavaScript (a service process loads it with --import)
import { guardLoopbackOnly } from './fuzz/loopback-only.mjs';
import { apiAt, ensure, makeWorld, type Api } from './fuzz/world.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';
import { startServiceProcess, type ServiceProcess } from './helpers/service-process.js';

const SECONDS = Number(process.env.FUZZ_SECONDS ?? 10);
const SEED = process.env.FUZZ_SEED === 'random' ? randomInt(2 ** 31) : Number(process.env.FUZZ_SEED ?? 42);
const REQUEST_TIMEOUT_MS = Number(process.env.FUZZ_REQUEST_TIMEOUT_MS ?? 15_000);
const GUARD = fileURLToPath(new URL('./fuzz/loopback-only.mjs', import.meta.url));
/** Settings of both runs: outgoing connections stay on loopback, anonymous tokens are not rate-limited. */
const SETTINGS = { OUTBOUND_ALLOW_PRIVATE: 'false', TOKEN_CREATE_PER_MIN_FREE: '100000', TOKEN_CREATE_PER_MIN_PREMIUM: '100000' };
/** Room for a request in flight at the end, and a hang's own timeout. */
const TEST_MS = SECONDS * 1000 + REQUEST_TIMEOUT_MS + 75_000 + 120_000;

const options = (extra: Partial<FuzzOptions> = {}): FuzzOptions => ({
  seconds: SECONDS,
  seed: SEED,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  trace: process.env.FUZZ_TRACE === '1',
  skip: process.env.FUZZ_SKIP ? new RegExp(process.env.FUZZ_SKIP) : undefined,
  ...extra,
});

/** Runs the fuzzer on a started service; a failure names the seed and the request. */
async function fuzzService(api: Api, extra: Partial<FuzzOptions> = {}, root?: string) {
  const doc = (await api.call('GET', '/openapi.json')).data;
  const actionTypes = (await api.call('GET', '/action-types')).data.data as Array<{ type: string; schema: object }>;
  const world = await makeWorld(api);
  // A file beside the page's directory: a path that climbs out of it must not show its canary.
  if (root) await writeFile(path.join(root, 'secret.txt'), world.canaries.secret);
  console.log(`fuzz: ${SECONDS} s from seed ${SEED} against ${api.base}`);
  const result = await fuzz(doc, actionTypes, world, options(extra));
  console.log(
    `fuzz: ${result.requests} requests in ${result.batches} batches; answers: ${Object.entries(result.statuses)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ')}`,
  );
  if (process.env.FUZZ_TRACE === 'routes') for (const [route, counts] of Object.entries(result.byRoute)) console.log(`fuzz: ${route}: ${JSON.stringify(counts)}`);
  if (result.failure) throw new Error(result.failure);
  expect(result.requests).toBeGreaterThan(0);
}

/** A plain capture to a new token is stored and listed. */
async function stillCaptures(api: Api) {
  const token = (await api.call('POST', '/token', { json: {} })).data.uuid as string;
  expect((await api.call('POST', `/${token}`, { body: 'still here' })).status).toBe(200);
  const list = await api.call('GET', `/token/${token}/requests`);
  expect(list.data.data.map((r: { content: string }) => r.content)).toEqual(['still here']);
}

describe('route fuzzer', () => {
  let unguard: () => void;
  let s: TestServer | undefined;
  let root: string;

  beforeAll(async () => {
    unguard = guardLoopbackOnly();
    root = await mkdtemp(path.join(tmpdir(), 'fuzz-'));
  });
  afterAll(async () => {
    await s?.close();
    unguard?.();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('makes its scratch fixtures good again after a fuzzed request limited its user to groups', async () => {
    const own = await startTestServer({ ...SETTINGS, DATA_DIR: path.join(root, 'ensure') });
    try {
      const api = apiAt(own.url, ADMIN_KEY);
      const world = await makeWorld(api);
      // What a fuzzed administrator's PUT /users/{id} may do: limit the fuzzer's user to a group,
      // and its token gone too, so that the fixtures need a new one.
      expect((await api.call('PUT', `/users/${world.ids.userId}`, { key: ADMIN_KEY, json: { group_ids: [Number(world.ids.ownGroup)] } })).status).toBe(200);
      expect((await api.call('DELETE', `/token/${world.ids.ownToken}`, { key: ADMIN_KEY })).status).toBe(204);
      await ensure(world);
      expect((await api.call('GET', '/users/me', { key: world.userKey })).data.group_ids).toBeNull();
      expect((await api.call('GET', `/token/${world.ids.ownToken}`, { key: world.userKey })).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it(
    'answers every route without a 5xx, a hang or an unallowed change (in this process)',
    async () => {
      // A stand-in page (as test/bad-input.test.ts): the run does not depend on `npm run build`.
      const pageDir = path.join(root, 'page');
      await mkdir(pageDir, { recursive: true });
      await writeFile(path.join(pageDir, 'index.html'), '<!doctype html><title>page</title>');
      const modules = [...(await loadModules()).filter((m) => m.name !== 'web'), webModule({ dir: pageDir })];
      s = await startTestServer({ ...SETTINGS, DATA_DIR: path.join(root, 'data') }, { modules });
      const api = apiAt(s.url, ADMIN_KEY);
      await fuzzService(api, {}, root);
      await stillCaptures(api);
    },
    TEST_MS,
  );

  it(
    'a started service process hit by the fuzzer keeps running and capturing',
    async () => {
      let service: ServiceProcess | undefined;
      try {
        service = await startServiceProcess({ ...SETTINGS, DATA_DIR: path.join(root, 'process'), ADMIN_API_KEY: ADMIN_KEY, FUZZ_LOOPBACK_ONLY: '1' }, 120_000, ['--import', GUARD]);
        const child = service.child;
        const alive = () => (child.exitCode !== null || child.signalCode !== null ? `${child.exitCode ?? child.signalCode}; its last output:\n${service!.output().slice(-3000)}` : null);
        const api = apiAt(service.url, ADMIN_KEY);
        await fuzzService(api, { alive });
        expect(alive()).toBeNull();
        await stillCaptures(api);
      } finally {
        await service?.stop();
      }
    },
    TEST_MS + 120_000,
  );
});
