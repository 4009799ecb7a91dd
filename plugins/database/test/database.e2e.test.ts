// The database action in a running server, against the real PostgreSQL: a capture's body is
// inserted into a table, selected back, and returned as the response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { runAction } from '@capture/sdk/testing';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { database } from '../src/database.js';
import { PG, requireServer, uniqueName } from './services.js';

const table = uniqueName('capture_e2e');
let s: TestServer;

beforeAll(async () => {
  await requireServer('PostgreSQL', PG.host, PG.port);
  const created = await runAction(database, { ...PG, statement: `CREATE TABLE ${table} (id serial primary key, method text, content text)` });
  expect(created.errors).toEqual([]);
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
  await runAction(database, { ...PG, statement: `DROP TABLE IF EXISTS ${table}` });
});

describe('database action in a running server', () => {
  it('stores the captured body and answers with the row it reads back', async () => {
    const t = await s.token({ actions: true });
    const steps = [
      {
        type: 'database',
        parameters: {
          ...PG,
          statement: `INSERT INTO ${table} (method, content) VALUES (:method, :content)`,
          params: [
            { name: ':method', value: '$request.method$' },
            { name: ':content', value: '$request.content$' },
          ],
          variable_name: 'ins',
        },
      },
      { type: 'database', parameters: { ...PG, statement: `SELECT method, content FROM ${table} WHERE content = ?`, params: ['$request.content$'], variable_name: 'row' } },
      { type: 'modify_response', parameters: { content: '$row.json$', status: 201 } },
    ];
    for (const [i, step] of steps.entries()) {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: { ...step, order: i + 1 } });
      expect(r.status, r.text).toBe(200);
    }

    const body = JSON.stringify({ order: 42, note: "it's -- :not_a_param ?" });
    const hook = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'application/json' } });
    expect(hook.status).toBe(201);
    expect(JSON.parse(hook.text)).toEqual([{ method: 'POST', content: body }]);

    const list = await s.call('GET', `/token/${t.uuid}/requests`);
    const [captured] = list.data.data;
    expect(captured.custom_action_errors).toEqual([]);
    expect(captured.custom_action_output.slice(0, 2)).toEqual([expect.stringMatching(/^\[1 database\] Query affected 1 row in \d+ ms$/), expect.stringMatching(/^\[2 database\] Query returned 1 row in \d+ ms$/)]);
  });
});
