// Teams end to end, through the service as a real process on a SQLite file written before teams:
// the user already there comes back as the Administrator of a one-person team that owns their
// token; they invite a Viewer by e-mail through SMTP_RELAY_URL, which is another instance's own
// SMTP server (the mail is stored on one of its token addresses); the link sets up the Viewer's
// key; the Viewer reads the team's captures (which carry the team) and may change nothing; the
// administrator key keeps working.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../core/auth/secrets.js';
import { migrations } from '../core/store/sqlite/migrations.js';
import { startServiceProcess, type ServiceProcess } from './helpers/service-process.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { MAIL_INFO } from '../core/service-keys.js';

const ADMIN = 'e2e-admin-key-0123456789abcdef';
const OLD_KEY = 'whk_existing_user_key_0123456789';
const TOKEN = '6f1c2a9e-0b7d-4e58-9a3c-2d4b8e6f1a07';

/** A database file as the service left it before teams (migrations below 17), with one user, key and token. */
function databaseFromBeforeTeams(dir: string): void {
  const db = new Database(path.join(dir, 'capture.sqlite'));
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version >= 17) continue;
    db.exec(m.up);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)').run(m.version);
  }
  const now = Date.now();
  const id = Number(db.prepare("INSERT INTO users (name, email, premium, created_at, updated_at) VALUES ('Old Timer', 'old@example.test', 1, ?, ?)").run(now, now).lastInsertRowid);
  db.prepare("INSERT INTO api_keys (user_id, hash, prefix, created_at) VALUES (?, ?, 'whk_exis', ?)").run(id, hashApiKey(OLD_KEY), now);
  db.prepare(
    `INSERT INTO tokens (uuid, user_id, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content, default_status,
      default_content_type, request_limit, created_at, updated_at) VALUES (?, ?, 0, 0, 0, 0, 0, 1, '127.0.0.1', 'test', 'ok', 200, 'text/plain', 500, ?, ?)`,
  ).run(TOKEN, id, now, now);
  db.close();
}

describe('teams through the running service', { timeout: 180_000 }, () => {
  let dir: string;
  let mailbox: TestServer;
  let svc: ServiceProcess;
  const call = async (method: string, p: string, key?: string, json?: unknown) => {
    const res = await fetch(svc.url + p, {
      method,
      headers: { Accept: 'application/json', ...(key ? { 'Api-Key': key } : {}), ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    return { status: res.status, data: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teams-e2e-'));
    databaseFromBeforeTeams(dir);
    mailbox = await startTestServer();
    const smtpPort = mailbox.provided.get(MAIL_INFO)!.port!;
    svc = await startServiceProcess({ DATA_DIR: dir, ADMIN_API_KEY: ADMIN, SMTP_RELAY_URL: `smtp://127.0.0.1:${smtpPort}?ignoreTLS=true` });
  }, 180_000);

  afterAll(async () => {
    await svc?.stop();
    await mailbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('upgrades the existing user to a one-person team, invites by e-mail, and holds each user type to its table', async () => {
    const me = await call('GET', '/users/me', OLD_KEY);
    expect(me.data).toMatchObject({ name: 'Old Timer', user_type_id: 100, user_type: 'Administrator' });
    const team = me.data.team_id as number;
    expect(team).toBe(me.data.id);
    expect((await call('GET', `/token/${TOKEN}`, OLD_KEY)).data).toMatchObject({ user_id: me.data.id, team_id: team });
    expect((await call('GET', '/users', OLD_KEY)).data).toMatchObject({ total: 1, data: [{ id: me.data.id, team_id: team }] });

    const inbox = await mailbox.token();
    const to = `${inbox.uuid}@email.localhost`;
    const inv = await call('POST', '/users/invite', OLD_KEY, { name: 'Vera Viewer', email: to, user_type_id: 300 });
    expect(inv.status).toBe(201);
    expect(inv.data).toMatchObject({ invite_sent: true, team_id: team, user_type_id: 300 });
    expect(inv.data.invite_url).toBeUndefined();
    const mails = await mailbox.call('GET', `/token/${inbox.uuid}/requests`);
    expect(mails.data.total).toBe(1);
    const secret = /\/#\/invite\/([A-Za-z0-9_-]+)/.exec(String(mails.data.data[0].content).replace(/=\r?\n/g, ''))![1]!;
    const accepted = await call('POST', `/users/invite/${secret}/accept`);
    expect(accepted.status).toBe(201);
    const viewerKey = accepted.data.api_key as string;

    const cap = await fetch(`${svc.url}/${TOKEN}`, { method: 'POST', body: 'from outside' });
    expect(cap.status).toBe(200);
    const seen = await call('GET', `/token/${TOKEN}/requests`, viewerKey);
    expect(seen.status).toBe(200);
    expect(seen.data.data[0]).toMatchObject({ content: 'from outside', team_id: team });
    expect((await call('PUT', `/token/${TOKEN}`, viewerKey, { default_content: 'changed' })).status).toBe(403);
    expect((await call('POST', '/users/invite', viewerKey, { name: 'X', email: 'x@example.test', user_type_id: 300 })).status).toBe(403);

    // The administrator key still manages every user.
    expect((await call('PUT', `/users/${accepted.data.id}`, ADMIN, { user_type_id: 200 })).data.user_type).toBe('Member');
    expect((await call('PUT', `/token/${TOKEN}`, viewerKey, { default_content: 'changed' })).status).toBe(200);
    expect((await call('GET', '/users', ADMIN)).data.total).toBe(2);
  });
});
