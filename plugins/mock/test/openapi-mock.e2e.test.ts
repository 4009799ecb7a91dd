// The Mock action in a running server: a token with an openapi_mock action answers its URL's
// sub-paths like the spec's API would.
import fs from 'node:fs';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const PETSTORE = fs.readFileSync(new URL('./fixtures/petstore.yaml', import.meta.url), 'utf8');

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
});

it('a token with the mock action answers GET /<token>/pets/1 with a pet matching the schema', async () => {
  const t = await s.token({ actions: true });
  const added = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'openapi_mock', parameters: { spec: PETSTORE } } });
  expect(added.status, added.text).toBe(200);

  const res = await s.call('GET', `/${t.uuid}/pets/1`);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const doc = YAML.parse(PETSTORE);
  const validate = new Ajv({ strict: false, logger: false, validateFormats: false }).compile({ $ref: '#/components/schemas/Pet', components: doc.components });
  expect(validate(res.data), JSON.stringify(validate.errors)).toBe(true);

  const missing = await s.call('GET', `/${t.uuid}/unknown`);
  expect(missing.status).toBe(404);
  expect(missing.data).toEqual({ message: 'No path in the spec matches GET /unknown' });
});
