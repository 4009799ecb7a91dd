// docs/actions.md lists every action type a started server offers (GET /action-types), those of
// the built-in plugins and core's own, deprecated and internal ones included, and every provider type.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const doc = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'actions.md'), 'utf8');
const [actionsPart, providersPart = ''] = doc.split(/^## Providers$/m);
const headings = (text: string) => [...text.matchAll(/^### `([^`]+)`/gm)].map((m) => m[1]!).sort();

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

it('docs/actions.md has a section for every type of GET /action-types and no other', async () => {
  const r = await s.call('GET', '/action-types');
  expect(r.status).toBe(200);
  const served = (r.data.data as Array<{ type: string }>).map((t) => t.type).sort();
  expect(served).toEqual(expect.arrayContaining(['extract_jsonpath', 'template', 'template_include']));
  expect(headings(actionsPart!)).toEqual(served);
});

it('docs/actions.md has a section for every type of GET /provider-types and no other', async () => {
  const r = await s.call('GET', '/provider-types');
  expect(r.status).toBe(200);
  expect(headings(providersPart)).toEqual((r.data as Array<{ type: string }>).map((t) => t.type).sort());
});
