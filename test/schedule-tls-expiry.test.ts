// The TLS certificate expiry alert of schedules through the HTTP API, on SQLite and on MongoDB
// (MONGODB_URI, or the emulator .ci/run installs). Real HTTPS servers on loopback present
// self-signed certificates made here with openssl: one that expires in two days, one in 400 days
// (both trusted by the scheduler's outbound client, as an internal CA would be), and one nobody
// trusts. The service's clock is moved to cross a day instead of sleeping.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../core/config.js';
import { createErrorLogModule } from '../core/errorlog/module.js';
import { createOutboundClient } from '../core/net/outbound.js';
import { createSchedulerModule } from '../core/scheduler/module.js';
import type { MailerLike } from '../core/scheduler/notify.js';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName, withDatabase } from './helpers/mongo.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const DAY = 86_400_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-tls-expiry-'));

/** A self-signed certificate for 127.0.0.1 valid for `days` days, and an HTTPS server presenting it. */
async function httpsTarget(name: string, days: number): Promise<{ cert: Buffer; url: string; server: https.Server }> {
  const key = path.join(tmp, `${name}.key`);
  const crt = path.join(tmp, `${name}.pem`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    crt,
    '-days',
    String(days),
    '-subj',
    `/CN=${name}`,
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  const cert = fs.readFileSync(crt);
  const server = https.createServer({ cert, key: fs.readFileSync(key) }, (_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { cert, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/health`, server };
}

let near: Awaited<ReturnType<typeof httpsTarget>>;
let far: Awaited<ReturnType<typeof httpsTarget>>;
let untrusted: Awaited<ReturnType<typeof httpsTarget>>;
beforeAll(async () => {
  [near, far, untrusted] = await Promise.all([httpsTarget('near', 2), httpsTarget('far', 400), httpsTarget('untrusted', 400)]);
});
afterAll(() => {
  for (const t of [near, far, untrusted]) t?.server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const mongo = await startTestMongo();
afterAll(() => mongo?.stop());
interface Started {
  s: TestServer;
  mails: Array<{ to: string[]; subject: string; text?: string }>;
  clock: { now: number };
  done(): Promise<void>;
}

async function start(env: Record<string, string>): Promise<Started> {
  const mails: Started['mails'] = [];
  const mailer: MailerLike = { send: async (m) => void mails.push(m) };
  const clock = { now: Date.now() };
  const config = loadConfig({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
  const http = createOutboundClient(config, { extraCa: [near.cert, far.cert] });
  const s = await startTestServer({ SMTP_ENABLED: 'false', SCHEDULER_ENABLED: 'false', ...env }, { clock: { now: () => clock.now }, modules: [createErrorLogModule(), createSchedulerModule({ http, mailer })] });
  return { s, mails, clock, done: () => s.close() };
}

const stores: Array<[string, () => Promise<Started>, string | null]> = [
  ['SQLite', () => start({}), null],
  [
    'MongoDB',
    async () => {
      const db = testDbName('capture_tlsexpiry');
      const started = await start({ MONGODB_URI: withDatabase(mongo!.uri, db) });
      return { ...started, done: async () => (await started.done(), await discardStoreData(mongo!.uri, db)) };
    },
    mongo ? null : NO_MONGO,
  ],
];

const schedule = (url: string, days: number | null) => ({ name: 'cert watch', interval: 'daily', request_url: url, tls_expiry_alert_days: days });

describe.each(stores)('TLS certificate expiry alert: %s', (_name, open, skip) => {
  it.skipIf(skip !== null)('alerts once a day when the certificate expires within N days; not when it lasts; says when it is not valid', async () => {
    const { s, mails, clock, done } = await open();
    try {
      const u = await s.user(true);
      await s.call('PUT', '/schedules/notifications', { key: u.key, json: { email_enabled: true } });

      // The setting: 1-365 days or null, on https targets only; shown with the schedule.
      for (const bad of [schedule(near.url, 0), schedule(near.url, 366), schedule('http://127.0.0.1/x', 14)]) {
        const r = await s.call('POST', '/schedules', { key: u.key, json: bad });
        expect([r.status, Object.keys(r.data.errors)]).toEqual([422, ['tls_expiry_alert_days']]);
      }
      const off = await s.call('POST', '/schedules', { key: u.key, json: schedule('http://127.0.0.1/x', null) });
      expect([off.status, off.data.tls_expiry_alert_days]).toEqual([200, null]);
      const nearSchedule = (await s.call('POST', '/schedules', { key: u.key, json: schedule(near.url, 14) })).data;
      expect(nearSchedule.tls_expiry_alert_days).toBe(14);
      const doc = await s.call('GET', `/schedules/${nearSchedule.id}/document?format=json`, { key: u.key });
      expect(doc.data.spec.checks.tls_expiry_alert_days).toBe(14);

      // Expires in two days, alert within 14: the run records it, and the owner is told once today.
      const first = await s.call('POST', `/schedules/${nearSchedule.id}/run-now`, { key: u.key });
      expect(first.status).toBe(200);
      expect(first.data).toMatchObject({ response_status: 200, error: null, tls_days_left: 1 });
      expect(first.data.tls_expires_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(first.data.tls_alert).toMatch(/^The TLS certificate of 127\.0\.0\.1:\d+ expires in 1 day, on .* UTC$/);
      await s.call('POST', `/schedules/${nearSchedule.id}/run-now`, { key: u.key });
      await until(() => mails.length >= 1);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toMatch(/^Schedule "cert watch": The TLS certificate of 127\.0\.0\.1:\d+ expires in 1 day/);
      expect(mails[0]!.text).toContain('at most once a day');
      const logs = await s.call('GET', `/schedules/${nearSchedule.id}/logs?sorting=newest`, { key: u.key });
      expect(logs.data.data.map((l: { tls_days_left: number }) => l.tls_days_left)).toEqual([1, 1]);
      // The error log has the day's alert once.
      await until(async () => (await s.call('GET', `/errors?schedule_id=${nearSchedule.id}`, { key: u.key })).data.total >= 1);
      const errors = await s.call('GET', `/errors?schedule_id=${nearSchedule.id}`, { key: u.key });
      expect(errors.data.data.map((e: { message: string }) => e.message)).toEqual([first.data.tls_alert]);

      // The next day it is told again.
      clock.now += DAY;
      const nextDay = await s.call('POST', `/schedules/${nearSchedule.id}/run-now`, { key: u.key });
      expect(nextDay.data.tls_days_left).toBe(0);
      await until(() => mails.length >= 2);
      expect(mails).toHaveLength(2);
      clock.now -= DAY;

      // Valid for 400 days: recorded, no alert, nobody told.
      const farSchedule = (await s.call('POST', '/schedules', { key: u.key, json: schedule(far.url, 30) })).data;
      const calm = await s.call('POST', `/schedules/${farSchedule.id}/run-now`, { key: u.key });
      expect(calm.data).toMatchObject({ error: null, tls_alert: null });
      expect(calm.data.tls_days_left).toBeGreaterThanOrEqual(398);
      // A schedule without the alert records nothing about certificates.
      const plain = (await s.call('POST', '/schedules', { key: u.key, json: schedule(far.url, null) })).data;
      expect((await s.call('POST', `/schedules/${plain.id}/run-now`, { key: u.key })).data).toMatchObject({ tls_expires_at: null, tls_days_left: null, tls_alert: null });

      // A certificate nobody trusts fails the request; the alert says so and still reads its expiry.
      const bad = (await s.call('POST', '/schedules', { key: u.key, json: schedule(untrusted.url, 7) })).data;
      const refused = await s.call('POST', `/schedules/${bad.id}/run-now`, { key: u.key });
      expect(refused.data.response_status).toBe(0);
      expect(refused.data.error).toMatch(/self-signed certificate/);
      expect(refused.data.tls_alert).toMatch(/^The TLS certificate of 127\.0\.0\.1:\d+ is not valid \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
      expect(refused.data.tls_days_left).toBeGreaterThanOrEqual(398);
      await until(() => mails.length >= 4);
      expect(
        mails
          .slice(2)
          .map((m) => m.subject)
          .sort(),
      ).toEqual([expect.stringMatching(/failed: /), expect.stringMatching(/is not valid/)].sort());
    } finally {
      await done();
    }
  });
});

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
