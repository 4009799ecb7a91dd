// What the fuzzer works on: fixtures made through the API before it starts, in two kinds.
// Scratch fixtures belong to the fuzzer's own user or to nobody (an anonymous token): requests may
// change or delete them, and `ensure` makes them again when they are gone. Protected fixtures
// belong to another user (a token with requests, actions and a share link, a password-protected
// token, a schedule, a global variable, a group, the user and its keys): `snapshot` reads them as
// their owner or the administrator, and no fuzzed request may change what it reads. Their
// canaries, random texts stored in them, may appear only in answers to callers allowed to read them.
import { randomBytes } from 'node:crypto';

export interface Api {
  base: string;
  adminKey: string;
  call(method: string, path: string, opts?: { key?: string; json?: unknown; body?: string; headers?: Record<string, string> }): Promise<{ status: number; data: any; text: string }>;
}

export function apiAt(base: string, adminKey: string): Api {
  return {
    base,
    adminKey,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { Accept: 'application/json', ...o.headers };
      if (o.key) headers['Api-Key'] = o.key;
      let body = o.body;
      if (o.json !== undefined) {
        body = JSON.stringify(o.json);
        headers['Content-Type'] = 'application/json';
      }
      const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
      const text = await res.text();
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
      return { status: res.status, data, text };
    },
  };
}

/** Names a fuzzed request may use for a path parameter; resolved to the current id when sent. */
export const SCRATCH = ['anonToken', 'ownToken', 'ownAlias', 'anonRequest', 'ownRequest', 'anonFile', 'ownFile', 'ownSchedule', 'ownGlobal', 'ownGroup', 'ownAction', 'userId', 'userKeyId'] as const;
export const PROTECTED = [
  'victimToken',
  'victimAlias',
  'lockedToken',
  'victimRequest',
  'lockedRequest',
  'victimFile',
  'lockedFile',
  'victimSchedule',
  'victimGlobal',
  'victimGroup',
  'victimAction',
  'victimId',
  'victimKeyId',
] as const;
export type FixtureName = (typeof SCRATCH)[number] | (typeof PROTECTED)[number];

/** What the administrator may reach instead of a protected fixture (the administrator may change those). */
export const SCRATCH_FOR: Record<(typeof PROTECTED)[number], (typeof SCRATCH)[number]> = {
  victimToken: 'ownToken',
  victimAlias: 'ownAlias',
  lockedToken: 'anonToken',
  victimRequest: 'ownRequest',
  lockedRequest: 'anonRequest',
  victimFile: 'ownFile',
  lockedFile: 'anonFile',
  victimSchedule: 'ownSchedule',
  victimGlobal: 'ownGlobal',
  victimGroup: 'ownGroup',
  victimAction: 'ownAction',
  victimId: 'userId',
  victimKeyId: 'userKeyId',
};

export interface World {
  api: Api;
  ids: Record<FixtureName, string>;
  /** The fuzzer's user (premium, a Member of its own team). */
  userKey: string;
  victimKey: string;
  /** The locked token's password and the victim token's share secret. */
  password: string;
  share: string;
  canaries: { victim: string; locked: string; secret: string };
}

const mark = (what: string) => `${what}-canary-${randomBytes(6).toString('hex')}`;

async function must(api: Api, method: string, path: string, opts: Parameters<Api['call']>[2], ok = [200, 201, 204]) {
  const r = await api.call(method, path, opts);
  if (!ok.includes(r.status)) throw new Error(`fixture ${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.data;
}

async function newUser(api: Api, name: string): Promise<{ id: string; key: string; keyId: string }> {
  const u = await must(api, 'POST', '/users', { key: api.adminKey, json: { name, email: `${name}-${randomBytes(4).toString('hex')}@example.test`, premium: true } });
  const keys = await must(api, 'GET', `/users/${u.id}/api-keys`, { key: api.adminKey });
  return { id: String(u.id), key: u.api_key, keyId: String(keys.data[0].id) };
}

/**
 * Captures a multipart request (a text field and a file, both `text`) and reads it back: its id and
 * its file's. Null when the token no longer stores it as sent (requests may have given a scratch
 * token another answer, a request limit of 0 or actions that do not save).
 */
async function upload(api: Api, token: string, key: string, text: string): Promise<{ uuid: string; file: string } | null> {
  const boundary = 'fuzz-fixture';
  const part = (disposition: string) => `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: text/plain\r\n\r\n${text}\r\n`;
  const body = part('name="text"') + part('name="file"; filename="fixture.txt"') + `--${boundary}--\r\n`;
  await api.call('POST', `/${token}/fixture?x=1`, { body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
  const r = await api.call('GET', `/token/${token}/request/latest`, { key });
  return r.status === 200 && r.data?.files?.length === 1 && String(r.data.content).includes(text) ? { uuid: r.data.uuid, file: r.data.files[0].id } : null;
}

async function mustUpload(api: Api, token: string, key: string, text: string): Promise<{ uuid: string; file: string }> {
  const r = await upload(api, token, key, text);
  if (!r) throw new Error(`fixture: the upload to ${token} was not stored`);
  return r;
}

async function action(api: Api, token: string, key: string, text: string): Promise<string> {
  return String((await must(api, 'POST', `/token/${token}/actions`, { key, json: { type: 'log', parameters: { text } } })).uuid);
}

export async function makeWorld(api: Api): Promise<World> {
  const canaries = { victim: mark('victim'), locked: mark('locked'), secret: mark('secret') };
  const user = await newUser(api, 'fuzzer');
  const victim = await newUser(api, 'victim');
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const victimAlias = `fz-victim-${randomBytes(3).toString('hex')}`;

  const victimToken = (await must(api, 'POST', '/token', { key: victim.key, json: { actions: true, alias: victimAlias, request_limit: 10_000 } })).uuid;
  const lockedToken = (await must(api, 'POST', '/token', { key: victim.key, json: { actions: true, request_limit: 10_000 } })).uuid;
  const victimUpload = await mustUpload(api, victimToken, victim.key, canaries.victim);
  const lockedUpload = await mustUpload(api, lockedToken, victim.key, canaries.locked);
  await must(api, 'PUT', `/token/${lockedToken}/password`, { key: victim.key, json: { password } });
  const share = (await must(api, 'POST', `/token/${victimToken}/share`, { key: victim.key })).secret;
  // Action output is stored with each capture's request, which the share link and the password read.
  const victimAction = await action(api, victimToken, victim.key, canaries.victim);
  await action(api, lockedToken, victim.key, canaries.locked);
  const victimSchedule = String((await must(api, 'POST', '/schedules', { key: victim.key, json: { name: canaries.secret, interval: 'monthly', request_url: `http://127.0.0.1:9/${canaries.secret}` } })).id);
  const victimGlobal = String((await must(api, 'POST', '/global-variables', { key: victim.key, json: { name: 'fz_victim', value: canaries.secret } })).id);
  const victimGroup = String((await must(api, 'POST', '/groups', { key: victim.key, json: { name: canaries.secret } })).id);

  const world: World = {
    api,
    userKey: user.key,
    victimKey: victim.key,
    password,
    share,
    canaries,
    ids: {
      userId: user.id,
      userKeyId: user.keyId,
      victimId: victim.id,
      victimKeyId: victim.keyId,
      victimToken,
      victimAlias,
      lockedToken,
      victimRequest: victimUpload.uuid,
      victimFile: victimUpload.file,
      lockedRequest: lockedUpload.uuid,
      lockedFile: lockedUpload.file,
      victimSchedule,
      victimGlobal,
      victimGroup,
      victimAction,
      anonToken: '',
      ownToken: '',
      ownAlias: '',
      anonRequest: '',
      ownRequest: '',
      anonFile: '',
      ownFile: '',
      ownSchedule: '',
      ownGlobal: '',
      ownGroup: '',
      ownAction: '',
    },
  };
  await ensure(world);
  return world;
}

/** Makes again what fuzzed requests deleted or closed of the scratch fixtures. */
export async function ensure(w: World): Promise<void> {
  const { api, ids } = w;
  const gone = async (path: string, key?: string) => (await api.call('GET', path, { key })).status !== 200;
  if (await gone('/users/me', w.userKey)) {
    const user = await newUser(api, 'fuzzer');
    Object.assign(ids, { userId: user.id, userKeyId: user.keyId, ownToken: '' });
    w.userKey = user.key;
  }
  const key = w.userKey;
  // A fuzzed administrator's request may have limited the fuzzer's user to groups (PUT
  // /users/{id}): it would then make tokens and schedules only in those. Lifted, like the other
  // scratch fixtures made good here.
  if ((await api.call('GET', '/users/me', { key })).data?.group_ids) await must(api, 'PUT', `/users/${ids.userId}`, { key: api.adminKey, json: { group_ids: null } });
  const anonToken = async () => {
    ids.anonToken = (await must(api, 'POST', '/token', { json: { actions: true } })).uuid;
    ids.anonRequest = '';
  };
  const ownToken = async () => {
    const alias = `fz-own-${randomBytes(3).toString('hex')}`;
    ids.ownToken = (await must(api, 'POST', '/token', { key, json: { actions: true, alias } })).uuid;
    Object.assign(ids, { ownAlias: alias, ownRequest: '', ownAction: '' });
  };
  if (!ids.anonToken || (await gone(`/token/${ids.anonToken}`))) await anonToken();
  if (!ids.ownToken || (await gone(`/token/${ids.ownToken}`, key))) await ownToken();
  if (!ids.anonRequest || (await gone(`/token/${ids.anonToken}/request/${ids.anonRequest}`))) {
    const r = (await upload(api, ids.anonToken, '', 'scratch')) ?? (await anonToken(), await mustUpload(api, ids.anonToken, '', 'scratch'));
    Object.assign(ids, { anonRequest: r.uuid, anonFile: r.file });
  }
  if (!ids.ownRequest || (await gone(`/token/${ids.ownToken}/request/${ids.ownRequest}`, key))) {
    const r = (await upload(api, ids.ownToken, key, 'scratch')) ?? (await ownToken(), await mustUpload(api, ids.ownToken, key, 'scratch'));
    Object.assign(ids, { ownRequest: r.uuid, ownFile: r.file });
  }
  // Gone: another of the token's actions serves, else a new one (a new one each time would grow
  // the chain to its limit, where adding one is refused).
  const actions: Array<{ uuid?: string }> = (await api.call('GET', `/token/${ids.ownToken}/actions`, { key })).data?.data ?? [];
  if (!ids.ownAction || !actions.some((a) => a.uuid === ids.ownAction)) ids.ownAction = actions[0]?.uuid ?? (await action(api, ids.ownToken, key, 'scratch'));
  if (!ids.ownSchedule || (await gone(`/schedules/${ids.ownSchedule}`, key)))
    ids.ownSchedule = String((await must(api, 'POST', '/schedules', { key, json: { interval: 'monthly', request_url: 'http://127.0.0.1:9/' } })).id);
  if (!ids.ownGlobal || (await gone(`/global-variables/${ids.ownGlobal}`, key)))
    ids.ownGlobal = String((await must(api, 'POST', '/global-variables', { key, json: { name: `fz_own_${randomBytes(3).toString('hex')}`, value: 'scratch' } })).id);
  if (!ids.ownGroup || (await gone(`/groups/${ids.ownGroup}`, key))) ids.ownGroup = String((await must(api, 'POST', '/groups', { key, json: { name: 'scratch' } })).id);
}

/** Fields of a token that captures change (anyone may capture to any token). */
const VOLATILE = new Set(['requests', 'latest_request_id', 'latest_request_at']);

/** The protected fixtures as their owner or the administrator reads them, one entry per read. */
export async function snapshot(w: World): Promise<Record<string, unknown>> {
  const { api, ids } = w;
  const admin = api.adminKey;
  const reads: Array<[string, string]> = [
    [`/token/${ids.victimToken}`, admin],
    [`/token/${ids.lockedToken}`, admin],
    [`/token/${ids.victimToken}/request/${ids.victimRequest}`, admin],
    [`/token/${ids.lockedToken}/request/${ids.lockedRequest}`, admin],
    [`/token/${ids.victimToken}/request/${ids.victimRequest}/download/${ids.victimFile}`, admin],
    [`/token/${ids.victimToken}/actions`, admin],
    [`/token/${ids.lockedToken}/actions`, admin],
    [`/token/${ids.victimToken}/share`, admin],
    [`/token/${ids.lockedToken}/share`, admin],
    [`/schedules/${ids.victimSchedule}`, w.victimKey],
    [`/schedules/notifications`, w.victimKey],
    [`/global-variables/${ids.victimGlobal}`, w.victimKey],
    [`/groups/${ids.victimGroup}`, w.victimKey],
    [`/users/${ids.victimId}`, admin],
    // Its key still opens the reads above.
    [`/users/${ids.victimId}/api-keys`, admin],
  ];
  const read = async ([path, key]: [string, string]) => {
    const r = await api.call('GET', path, { key });
    const data = r.data && typeof r.data === 'object' && !Array.isArray(r.data) ? Object.fromEntries(Object.entries(r.data).filter(([k]) => !VOLATILE.has(k))) : (r.data ?? r.text);
    return [path, { status: r.status, data }] as const;
  };
  return Object.fromEntries(await Promise.all(reads.map(read)));
}

/** The entries of two snapshots that differ. */
export function changes(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(before)
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => `${k}: ${JSON.stringify(before[k]).slice(0, 400)} -> ${JSON.stringify(after[k]).slice(0, 400)}`);
}
