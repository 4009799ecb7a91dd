import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { MAIL_INFO } from '../../service-keys.js';

let s: TestServer;
let owner: { id: number; key: string };
beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user(true);
});
afterAll(() => s?.close());

const split = (source: string, variable_name = 'part') => ({ type: 'text_split', parameters: { source, delimiter: ',', variable_name } });

describe('actions API', () => {
  it('creates actions in order, lists, updates, reorders and deletes them', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const a = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { order: 1, ...split('a,b') } });
    expect(a.status).toBe(200);
    expect(a.data).toMatchObject({ token_id: t.uuid, type: 'text_split', order: 1, disabled: false });
    const b = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { order: 1, ...split('c,d', 'other') } });
    expect(b.data.order).toBe(1);
    let list = (await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data;
    expect(list.map((x: { uuid: string }) => x.uuid)).toEqual([b.data.uuid, a.data.uuid]);
    const u = await s.call('PUT', `/token/${t.uuid}/actions/${b.data.uuid}`, { key: owner.key, json: { order: 2, ...split('e,f', 'other'), disabled: true } });
    expect(u.data).toMatchObject({ order: 2, disabled: true });
    list = (await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data;
    expect(list.map((x: { uuid: string }) => x.uuid)).toEqual([a.data.uuid, b.data.uuid]);
    expect((await s.call('DELETE', `/token/${t.uuid}/actions/${a.data.uuid}`, { key: owner.key })).status).toBe(204);
    expect((await s.call('DELETE', `/token/${t.uuid}/actions/${a.data.uuid}`, { key: owner.key })).status).toBe(404);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toHaveLength(1);
  });

  it('refuses unknown types and bad parameters with 422 naming the field, and changes nothing', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const unknown = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'nope', parameters: {} } });
    expect(unknown.status).toBe(422);
    expect(unknown.data.errors.type).toBeDefined();
    const bad = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'text_split', parameters: { source: 'x' } } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.data.errors)[0]).toMatch(/^parameters\./);
    expect((await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { parameters: {} } })).status).toBe(422);
    expect((await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { ...split('a'), condition: '00000000-0000-4000-8000-000000000000' } })).status).toBe(422);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toEqual([]);
  });

  it('keeps a chain within the most steps its document holds: the action past them is refused with 409', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const doc = { apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token: t.uuid }, spec: { steps: Array.from({ length: 100 }, (_, i) => split(`${i},x`)) } };
    expect((await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, json: doc })).status).toBe(200);
    const past = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: split('one,more') });
    expect(past.status).toBe(409);
    expect(past.data.message).toMatch(/100 actions/);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toHaveLength(100);
    const exported = await s.call('GET', `/token/${t.uuid}/workflow?format=json`, { key: owner.key });
    expect(exported.status).toBe(200);
    expect(exported.data.spec.steps).toHaveLength(100);
  });

  it("needs the token owner's key", async () => {
    const t = await s.token({ actions: true }, owner.key);
    expect((await s.call('GET', `/token/${t.uuid}/actions`)).status).toBe(401);
    const other = await s.user(false);
    expect((await s.call('POST', `/token/${t.uuid}/actions`, { key: other.key, json: split('a') })).status).toBe(403);
  });

  it('runs the chain on captures and keeps its output on the request', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'javascript', parameters: { script: "console.log('seen ' + get('request.method'))" } } });
    await s.call('PUT', `/${t.uuid}`, { body: 'x' });
    const q = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;
    expect(JSON.stringify(q.custom_action_output)).toContain('seen PUT');
    expect(q.custom_action_errors).toEqual([]);
  });

  it('does not run actions while the token has actions off', async () => {
    const t = await s.token({ actions: false }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'javascript', parameters: { script: "respond('from js', 201)" } } });
    const r = await s.call('GET', `/${t.uuid}`);
    expect(r.status).toBe(200);
  });

  it('test-action runs a temporary action on a stored request and reports output and variables', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/${t.uuid}?n=1`, { body: 'a,b,c' });
    const id = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data.uuid;
    const r = await s.call('POST', `/token/${t.uuid}/test-action?request_id=${id}`, { key: owner.key, json: split('$request.content$') });
    expect(r.status).toBe(200);
    expect(r.data.success).toBe(true);
    expect(r.data.result.variables).toMatchObject({ 'part.1': 'a', 'part.3': 'c', 'request.method': 'POST' });
    expect(Object.keys(r.data.result.output)).toContain('00000000-0000-4000-0000-000000000000');
    // Nothing was saved by the test run.
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toEqual([]);
    expect((await s.call('POST', `/token/${t.uuid}/test-action?request_id=00000000-0000-4000-8000-000000000000`, { key: owner.key, json: split('x') })).status).toBe(404);
  });

  it('execute re-runs the chain on a stored request', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: split('$request.content$', 'x') });
    await s.call('POST', `/${t.uuid}`, { body: '1,2' });
    const id = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data.uuid;
    const r = await s.call('POST', `/token/${t.uuid}/request/${id}/execute`, { key: owner.key });
    expect(r.data.result.variables).toMatchObject({ 'x.1': '1', 'x.2': '2' });
    // The run's output replaces what the request showed.
    await s.call('PUT', `/token/${t.uuid}/actions/${(await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data[0].uuid}`, {
      key: owner.key,
      json: { type: 'extract_regex', parameters: { regex: '(', variable_name: 'y' } },
    });
    const again = await s.call('POST', `/token/${t.uuid}/request/${id}/execute`, { key: owner.key });
    expect(again.data.success).toBe(false);
    const stored = (await s.call('GET', `/token/${t.uuid}/request/${id}`, { key: owner.key })).data;
    expect(stored.custom_action_errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/Invalid regular expression/) })]);
    expect(JSON.stringify(stored.custom_action_output)).not.toContain('Split into');
  });

  it('hands binary bodies and uploaded files to the actions as bytes, and answers them byte for byte', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'modify_response', parameters: { content: '$request.file.upload.content$', status: 200 } } });
    const form = new FormData();
    form.append('upload', new Blob([png], { type: 'image/png' }), 'x.png');
    const res = await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: form });
    expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);

    // The same for a raw binary body through $request.content$, and base64 of its bytes.
    const t2 = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t2.uuid}/actions`, { key: owner.key, json: { type: 'modify_response', parameters: { content: '$request.content$', headers: 'X-B64: $request.content.base64_encode$' } } });
    const r2 = await s.call('POST', `/${t2.uuid}`, { body: png, headers: { 'Content-Type': 'application/octet-stream' } });
    expect(r2.buf.equals(png)).toBe(true);
    expect(r2.headers.get('x-b64')).toBe(png.toString('base64'));
  });

  it('gives an uploaded file a download link, and the capture its sorting and HTTP version', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const content = '$request.file.upload.link$ $request.sorting$ $request.http_version$';
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'modify_response', parameters: { content, status: 200 } } });
    const form = new FormData();
    form.append('upload', new Blob([Buffer.from('file bytes')], { type: 'text/plain' }), 'a.txt');
    const [link, sorting, version] = (await (await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: form })).text()).split(' ');
    const stored = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;
    expect(link).toBe(`${s.url}/token/${t.uuid}/request/${stored.uuid}/download/${stored.files[0].id}`);
    expect((await s.call('GET', new URL(link!).pathname, { key: owner.key })).text).toBe('file bytes');
    expect(sorting).toBe(String(stored.sorting));
    expect(version).toBe('1.1');
  });

  it('refuses an unknown key in nested parameters with 422 naming its path; a saved one with such a key still runs', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const target = await s.token({}, owner.key);
    const http = (part: Record<string, string>) => ({
      type: 'http',
      parameters: { url: `${s.url}/${target.uuid}`, method: 'POST', mode: 'multipart', multipart: [part] },
    });
    const bad = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: http({ name: 'f1', value: 'v1' }) });
    expect(bad.status).toBe(422);
    expect(bad.data.message).toBe('parameters.multipart[0].value: unknown key');
    expect(bad.data.errors).toEqual({ 'parameters.multipart[0].value': ['unknown key'] });
    // In a workflow document, under its step.
    const doc = { apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token: t.uuid }, spec: { steps: [http({ name: 'f1', value: 'v1' })] } };
    const put = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, json: doc });
    expect(put.status).toBe(422);
    expect(Object.keys(put.data.errors)).toContain('spec.steps.0.parameters.multipart[0].value');
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toEqual([]);

    expect((await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: http({ name: 'f1', content: 'v1' }) })).status).toBe(200);
    // An action saved by a version that let an unknown key through loads and runs as before.
    const workflows = s.services.store.workflows;
    const saved = (await workflows.getForToken(t.uuid))!.document;
    const old = structuredClone(saved) as { spec: { steps: Array<{ parameters: { multipart: Array<Record<string, string>> } }> } };
    old.spec.steps[0]!.parameters.multipart[0]!.value = 'left over';
    expect(await workflows.replaceDocument(t.uuid, saved, old)).toBe(true);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data[0].parameters.multipart[0].value).toBe('left over');
    expect((await s.call('POST', `/${t.uuid}`)).status).toBe(200);
    await expect.poll(async () => (await s.call('GET', `/token/${target.uuid}/request/latest`, { key: owner.key })).data?.request).toEqual({ f1: 'v1' });
  });

  it('lists action types with their JSON Schemas', async () => {
    const r = await s.call('GET', '/action-types');
    const split = r.data.data.find((x: { type: string }) => x.type === 'text_split');
    expect(split.schema.properties.delimiter).toBeDefined();
    expect(split.queueable).toBe(true);
    const inlineOnly = r.data.data.filter((x: { queueable: boolean }) => !x.queueable).map((x: { type: string }) => x.type);
    expect(inlineOnly.sort()).toEqual(['dont_save', 'modify_response', 'rate_limit']);
  });

  it("refuses to queue Don't Save, Rate Limit and Modify Response with 422 naming the step, storing nothing", async () => {
    const t = await s.token({ actions: true }, owner.key);
    for (const [type, parameters, title] of [
      ['dont_save', {}, "Don't Save"],
      ['rate_limit', { period: 60, count: 1 }, 'Rate Limit'],
      ['modify_response', { status: 201 }, 'Modify Response'],
    ] as const) {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type, parameters, queue: true } });
      expect(r.status, type).toBe(422);
      expect(r.data.errors.queue[0]).toBe(`${title} (${type}) cannot be queued: it only makes sense inline, while the capture is answered`);
    }
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toEqual([]);
    const inline = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'dont_save', parameters: {} } });
    expect(inline.status).toBe(200);
    const queued = await s.call('PUT', `/token/${t.uuid}/actions/${inline.data.uuid}`, { key: owner.key, json: { type: 'dont_save', parameters: {}, queue: true } });
    expect(queued.status).toBe(422);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data[0].queue).toBe(false);
    const doc = { apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token: t.uuid }, spec: { steps: [split('a,b'), { type: 'modify_response', queue: true, parameters: { status: 201 } }] } };
    const put = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, json: doc });
    expect(put.status).toBe(422);
    expect(Object.keys(put.data.errors)).toEqual(['spec.steps.1.queue']);
  });
});

describe('workflow documents', () => {
  it('exports the chain as YAML and applies an edited document idempotently', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: split('a,b') });
    const y = await s.call('GET', `/token/${t.uuid}/workflow`, { key: owner.key, headers: { Accept: 'application/yaml' } });
    expect(y.headers.get('content-type')).toMatch(/yaml/);
    const doc = YAML.parse(y.text);
    expect(doc).toMatchObject({ apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token: t.uuid } });
    const id = doc.spec.steps[0].id;
    doc.spec.steps.push({ name: 'second', type: 'text_split', parameters: { source: 'x,y', delimiter: ',', variable_name: 'second' } });
    delete doc.spec.steps[0].id;
    const put = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, body: YAML.stringify(doc), headers: { 'Content-Type': 'application/yaml' } });
    expect(put.status).toBe(200);
    const again = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, body: YAML.stringify(doc), headers: { 'Content-Type': 'application/yaml' } });
    const steps = YAML.parse(again.text).spec.steps;
    expect(steps[0].id).toBe(id);
    expect(steps).toHaveLength(2);
    const list = (await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data;
    expect(list.map((a: { uuid: string }) => a.uuid)).toEqual(steps.map((x: { id: string }) => x.id));
  });

  it('refuses invalid documents with 400/422 naming the place, keeping the old chain', async () => {
    const t = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: split('a,b') });
    const put = (body: string) => s.call('PUT', `/token/${t.uuid}/workflow`, { key: owner.key, body, headers: { 'Content-Type': 'application/yaml' } });
    expect((await put('kind: [unclosed')).status).toBe(400);
    const wrongKind = await put('apiVersion: capture/v1\nkind: Other\nmetadata: {token: x}\nspec: {steps: []}');
    expect(wrongKind.status).toBe(422);
    expect(Object.keys(wrongKind.data.errors)).toContain('kind');
    const badStep = await put(`apiVersion: capture/v1\nkind: TokenActions\nmetadata: {token: x}\nspec:\n  steps:\n    - type: text_split\n      parameters: {source: a}\n`);
    expect(badStep.status).toBe(422);
    expect(Object.keys(badStep.data.errors)[0]).toMatch(/^spec\.steps\.0\.parameters\./);
    const badCondition = await put(`apiVersion: capture/v1\nkind: TokenActions\nmetadata: {token: x}\nspec:\n  steps:\n    - type: text_split\n      condition: later\n      parameters: {source: a, delimiter: ","}\n`);
    expect(badCondition.status).toBe(422);
    expect((await s.call('GET', `/token/${t.uuid}/actions`, { key: owner.key })).data.data).toHaveLength(1);
  });

  it('cloning a token copies its chain', async () => {
    const src = await s.token({ actions: true }, owner.key);
    await s.call('POST', `/token/${src.uuid}/actions`, { key: owner.key, json: split('a,b') });
    const clone = await s.token({ clone_from: src.uuid }, owner.key);
    const list = (await s.call('GET', `/token/${clone.uuid}/actions`, { key: owner.key })).data.data;
    expect(list).toHaveLength(1);
    expect(list[0].type).toBe('text_split');
    expect(clone.actions).toBe(true);
  });
});

describe('global variables API', () => {
  it('creates, lists, searches, updates and deletes the caller variables; actions see them', async () => {
    const u = await s.user(false);
    expect((await s.call('POST', '/global-variables', { json: { name: 'a', value: 'b' } })).status).toBe(401);
    const g = await s.call('POST', '/global-variables', { key: u.key, json: { name: 'greeting', value: 'hello' } });
    expect(g.status).toBe(200);
    expect(g.data).toMatchObject({ name: 'greeting', value: 'hello', user_id: u.id });
    expect((await s.call('POST', '/global-variables', { key: u.key, json: { name: 'bad name!', value: '' } })).status).toBe(422);
    await s.call('POST', '/global-variables', { key: u.key, json: { name: 'other', value: '1' } });
    const found = await s.call('GET', '/global-variables?search=GREET', { key: u.key });
    expect(found.data.data.map((x: { name: string }) => x.name)).toEqual(['greeting']);
    const t = await s.token({ actions: true }, u.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: u.key, json: { type: 'javascript', parameters: { script: "respond((await global('greeting')) + ' world')" } } });
    expect((await s.call('GET', `/${t.uuid}`)).text).toBe('hello world');
    const up = await s.call('PUT', `/global-variables/${g.data.id}`, { key: u.key, json: { value: 'hi' } });
    expect(up.data.value).toBe('hi');
    const stranger = await s.user(false);
    expect((await s.call('GET', `/global-variables/${g.data.id}`, { key: stranger.key })).status).toBe(404);
    expect((await s.call('DELETE', `/global-variables/${g.data.id}`, { key: u.key })).status).toBe(204);
    expect((await s.call('GET', `/global-variables/${g.data.id}`, { key: u.key })).status).toBe(404);
  });
});

describe('execute with error_notifications', () => {
  let mailbox: TestServer;
  let relayed: TestServer;
  beforeAll(async () => {
    // The relay is another instance's own SMTP server: its token addresses store what arrives.
    mailbox = await startTestServer();
    relayed = await startTestServer({ SMTP_ENABLED: 'false', SMTP_RELAY_URL: `smtp://127.0.0.1:${mailbox.provided.get(MAIL_INFO)!.port!}?ignoreTLS=true` });
  });
  afterAll(async () => {
    await relayed?.close();
    await mailbox?.close();
  });

  it('e-mails the owner about action errors through the relay, at most 10 an hour per account', async () => {
    const inboxOwner = await mailbox.user(false);
    const inbox = await mailbox.token({}, inboxOwner.key);
    const mails = async () => (await mailbox.call('GET', `/token/${inbox.uuid}/requests`, { key: inboxOwner.key })).data;
    const user = await relayed.call('POST', '/users', { key: ADMIN_KEY, json: { name: 'Owner', email: `${inbox.uuid}@email.localhost` } });
    const key = user.data.api_key as string;
    const t = await relayed.token({ actions: true }, key);
    await relayed.call('POST', `/token/${t.uuid}/actions`, { key, json: { type: 'extract_regex', parameters: { regex: '(', variable_name: 'y' } } });
    await relayed.call('POST', `/${t.uuid}`, { body: 'x' });
    const id = (await relayed.call('GET', `/token/${t.uuid}/request/latest`, { key })).data.uuid;

    expect((await relayed.call('POST', `/token/${t.uuid}/request/${id}/execute`, { key })).status).toBe(200);
    expect((await mails()).total).toBe(0);
    expect((await relayed.call('POST', `/token/${t.uuid}/request/${id}/execute?error_notifications=maybe`, { key })).status).toBe(422);
    expect((await relayed.call('POST', `/token/${t.uuid}/request/${id}/execute?error_notifications=true`, { key })).data.success).toBe(false);
    await expect.poll(async () => (await mails()).total).toBe(1);
    const first = await mails();
    expect(first.data[0]).toMatchObject({ type: 'email' });
    expect(first.data[0].content).toContain('Invalid regular expression');
    expect(first.data[0].content).toContain(id);
    for (let i = 0; i < 11; i++) await relayed.call('POST', `/token/${t.uuid}/request/${id}/execute?error_notifications=1`, { key });
    await expect.poll(async () => (await mails()).total).toBe(10);
    await new Promise((r) => setTimeout(r, 300));
    expect((await mails()).total).toBe(10);
  });
});
