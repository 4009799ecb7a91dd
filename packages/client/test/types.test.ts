// src/api-types.ts is what the OpenAPI document says: generated from the repository's document and
// equal to what a started server serves at /openapi.json; and the converter turns each kind of
// schema the document uses into the TypeScript type a caller expects.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { openApiToTypes, type OpenApiDocument } from '../scripts/openapi-to-ts.js';
import { serviceDocument, TYPES_FILE } from '../scripts/write-types.js';

describe('src/api-types.ts', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('is current (run `npm run types -w @capture/client` after an API change)', async () => {
    expect(fs.readFileSync(TYPES_FILE, 'utf8')).toBe(openApiToTypes(await serviceDocument()));
  });

  it("matches the running server's /openapi.json", async () => {
    const r = await s.call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(openApiToTypes(r.data as OpenApiDocument)).toBe(fs.readFileSync(TYPES_FILE, 'utf8'));
  });
});

describe('openApiToTypes', () => {
  const one = (op: Record<string, unknown>) => openApiToTypes({ paths: { '/thing/{id}': { post: op } } });

  it('types path and query parameters, the JSON body and the 2xx response', () => {
    const ts = one({
      summary: 'Make a thing',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', description: 'At most this many' } },
      ],
      requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'] } } } },
      responses: {
        '201': {
          content: { 'application/json': { schema: { type: 'object', properties: { kind: { type: 'string', enum: ['a', 'b'] }, n: { anyOf: [{ type: 'number' }, { type: 'null' }] } }, required: ['kind', 'n'] } } },
        },
      },
    });
    const flat = ts.replace(/\s+/g, ' ');
    expect(flat).toContain('/** Make a thing */ "POST /thing/{id}": {');
    expect(flat).toContain('path: { id: string; };');
    expect(flat).toContain('query: { /** At most this many */ limit?: number; };');
    expect(flat).toContain('body: { name: string; tags?: string[]; };');
    expect(flat).toContain('status: 201;');
    expect(flat).toContain('response: { kind: "a" | "b"; n: number | null; };');
  });

  it('maps records, type lists and unions inside arrays, and leaves undescribed bodies unknown', () => {
    const ts = one({
      requestBody: { content: { 'application/json': { schema: { type: 'object', additionalProperties: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } } } } } },
      responses: { '200': { description: 'OK' } },
    });
    const flat = ts.replace(/\s+/g, ' ');
    expect(flat).toContain('body: { [key: string]: (string | boolean)[] };');
    expect(flat).toContain('response: unknown;');
    expect(one({ requestBody: { content: { 'application/json': { schema: { type: ['string', 'null'] } } } } })).toContain('body: string | null;');
  });

  it('follows $refs to the shared schemas (components.schemas); an unknown one is unknown', () => {
    const ts = openApiToTypes({
      components: { schemas: { Page: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] } } },
      paths: {
        '/things': {
          get: {
            responses: {
              '200': { content: { 'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/Page' }, { type: 'object', properties: { data: { type: 'array', items: { type: 'string' } } } }] } } } },
            },
          },
          post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Missing' } } } } },
        },
      },
    } as OpenApiDocument);
    const flat = ts.replace(/\s+/g, ' ');
    expect(flat).toContain('response: { total: number; } & { data?: string[]; };');
    expect(flat).toContain('body: unknown;');
  });
});
