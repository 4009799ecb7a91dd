// The Templates API and the `template` action: a template's actions run where it is included,
// after its variables (the including action's own win); changes apply to every chain at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
let alice: { id: number; key: string };
let bob: { id: number; key: string };

beforeAll(async () => {
  s = await startTestServer();
  alice = await s.user(true);
  bob = await s.user(false);
});
afterAll(() => s?.close());

const respondWith = (content: string) => ({ type: 'modify_response', parameters: { content, status: 201 } });

async function capture(uuid: string, body = 'x') {
  return s.call('POST', `/${uuid}`, { body });
}

describe('templates', () => {
  it('creates, reads, lists, updates and deletes templates in the documented shape', async () => {
    const c = await s.call('POST', '/templates', {
      key: alice.key,
      json: {
        name: 'My Template',
        variables: [{ name: 'example', value: 'hello world' }],
        actions: [
          { type: 'log', parameters: { text: 'one' }, order: 2 },
          { type: 'stop', parameters: {}, order: 1 },
        ],
      },
    });
    expect(c.status).toBe(201);
    expect(c.data).toMatchObject({ name: 'My Template', variables: [{ name: 'example', value: 'hello world' }], team_id: null });
    expect(c.data.actions.map((a: { type: string; order: number }) => [a.type, a.order])).toEqual([
      ['stop', 1],
      ['log', 2],
    ]);
    expect(c.data.actions[0]).toMatchObject({ template_id: c.data.id, uuid: expect.any(String) });
    // Like every API body: `YYYY-MM-DD HH:MM:SS` in UTC, the template's and its actions'.
    const stamp = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
    for (const t of [c.data, ...c.data.actions]) {
      expect(t.created_at).toMatch(stamp);
      expect(t.updated_at).toMatch(stamp);
    }
    expect(Math.abs(Date.parse(c.data.created_at.replace(' ', 'T') + 'Z') - Date.now())).toBeLessThan(60_000);

    expect((await s.call('GET', `/templates/${c.data.id}`, { key: alice.key })).data).toEqual(c.data);
    const list = await s.call('GET', '/templates', { key: alice.key });
    expect(list.data.data.map((t: { id: number }) => t.id)).toContain(c.data.id);
    const u = await s.call('PUT', `/templates/${c.data.id}`, { key: alice.key, json: { name: 'Renamed' } });
    expect(u.data).toMatchObject({ name: 'Renamed', variables: [{ name: 'example', value: 'hello world' }] });
    expect(u.data.actions).toHaveLength(2);
    expect((await s.call('GET', `/templates/${c.data.id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('DELETE', `/templates/${c.data.id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('DELETE', `/templates/${c.data.id}`, { key: alice.key })).status).toBe(204);
    expect((await s.call('GET', `/templates/${c.data.id}`, { key: alice.key })).status).toBe(404);
  });

  it('refuses bad templates with 422 naming the field', async () => {
    const bad: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: 'x', actions: [{ type: 'nope' }] }, 'actions.0.type'],
      [{ name: 'x', actions: [{ type: 'text_split', parameters: {} }] }, 'actions.0.parameters'],
      [{ name: 'x', variables: [{ name: 'bad name', value: '1' }] }, 'variables.0.name'],
      [{ name: 'x', actions: [{ type: 'log', parameters: { text: 'a' }, condition: '00000000-0000-4000-8000-000000000000' }] }, 'actions.0.condition'],
    ];
    for (const [body, field] of bad) {
      const r = await s.call('POST', '/templates', { key: alice.key, json: body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(
        Object.keys(r.data.errors).some((k) => k.startsWith(field)),
        JSON.stringify(r.data.errors),
      ).toBe(true);
    }
    expect((await s.call('POST', '/templates', { json: { name: 'x' } })).status).toBe(401);
    expect((await s.call('GET', '/templates/abc', { key: alice.key })).status).toBe(404);
  });

  it('runs an included template with its variables, the including action’s winning, and picks up changes', async () => {
    const t = await s.call('POST', '/templates', {
      key: alice.key,
      json: {
        name: 'Greeter',
        variables: [
          { name: 'greeting', value: 'hello' },
          { name: 'who', value: 'world' },
        ],
        actions: [respondWith('$greeting$ $who$')],
      },
    });
    const token = await s.token({ actions: true }, alice.key);
    const add = await s.call('POST', `/token/${token.uuid}/actions`, { key: alice.key, json: { type: 'template', parameters: { template_id: t.data.id, variables: [{ name: 'who', value: 'alice' }] } } });
    expect(add.status).toBeLessThan(300);
    let r = await capture(token.uuid);
    expect([r.status, r.text]).toEqual([201, 'hello alice']);
    const req = (await s.call('GET', `/token/${token.uuid}/request/latest`, { key: alice.key })).data;
    expect(req.custom_action_output.join('\n')).toContain('Included template "Greeter"');

    await s.call('PUT', `/templates/${t.data.id}`, { key: alice.key, json: { variables: [{ name: 'greeting', value: 'bonjour' }] } });
    r = await capture(token.uuid);
    expect(r.text).toBe('bonjour alice');
  });

  it('reports a template that cannot be included, without failing the capture', async () => {
    const own = await s.call('POST', '/templates', { key: alice.key, json: { name: 'Private', actions: [respondWith('secret')] } });
    const token = await s.token({ actions: true }, bob.key);
    await s.call('POST', `/token/${token.uuid}/actions`, { key: bob.key, json: { type: 'template', parameters: { template_id: own.data.id } } });
    const r = await capture(token.uuid);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('secret');
    const req = (await s.call('GET', `/token/${token.uuid}/request/latest`, { key: bob.key })).data;
    expect(JSON.stringify(req.custom_action_errors)).toMatch(/not found in this account/);
  });

  it('stops a template that includes itself', async () => {
    const t = await s.call('POST', '/templates', { key: alice.key, json: { name: 'Loop', actions: [] } });
    await s.call('PUT', `/templates/${t.data.id}`, { key: alice.key, json: { actions: [{ type: 'template', parameters: { template_id: t.data.id } }] } });
    const token = await s.token({ actions: true }, alice.key);
    await s.call('POST', `/token/${token.uuid}/actions`, { key: alice.key, json: { type: 'template', parameters: { template_id: t.data.id } } });
    expect((await capture(token.uuid)).status).toBe(200);
    const req = (await s.call('GET', `/token/${token.uuid}/request/latest`, { key: alice.key })).data;
    expect(JSON.stringify(req.custom_action_errors)).toMatch(/includes itself/);
  });
});
