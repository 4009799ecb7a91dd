// /openapi.json is complete and correct: every route the service serves (the Koa routers' and the
// capture URLs) is in it and nothing else; each operation has a unique camelCase operationId and a
// declared answer; the document is a valid OpenAPI 3.1 document (@redocly/openapi-core); `servers`
// comes from BASE_URL; and what the routes answer in this test matches the schemas they declare.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../core/http/routes.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';

const BASE_URL = 'https://hooks.example.test';
type Doc = { servers: Array<{ url: string }>; components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, Operation>> };
type Operation = {
  operationId?: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

let s: TestServer;
let doc: Doc;
beforeAll(async () => {
  s = await startTestServer({ BASE_URL });
  doc = (await s.call('GET', '/openapi.json')).data;
});
afterAll(() => s?.close());

/** `/token/{token}` and `/token/{token_id}` are the same route: compare with the names left out. */
const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, '{}')}`;

function operations(): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
}

describe('/openapi.json', () => {
  it('lists every route the service serves, capture URLs included, and no route it does not serve', () => {
    const served = new Set(s.routes.map((r) => shape(r.method, r.path)));
    const documented = new Set(operations().map((o) => shape(o.method, o.path)));
    expect(served.size).toBeGreaterThan(100);
    expect(
      [...served].filter((r) => !documented.has(r)),
      'served but missing from /openapi.json',
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !served.has(r)),
      'documented but served by no router',
    ).toEqual([]);
    expect(documented.has('POST /{}')).toBe(true);
    expect(documented.has('DELETE /{}/{}')).toBe(true);
  });

  it('gives every operation a unique camelCase operationId and a declared answer', () => {
    const ids = new Map<string, string>();
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.get(op.operationId!), `${where}: operationId also used by`).toBeUndefined();
      ids.set(op.operationId!, where);
      const ok = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect(ok.length, where).toBe(1);
      const [status, response] = ok[0]!;
      if (status === '204') expect(response.content, where).toBeUndefined();
      else expect(Object.values(response.content ?? {}).every((c) => c.schema !== undefined) && Object.keys(response.content ?? {}).length > 0, where).toBe(true);
      expect(op.responses.default, where).toEqual({ $ref: '#/components/responses/Error' });
    }
    expect(doc.paths['/token/{token_id}/requests']!.get!.operationId).toBe('getTokenByTokenIdRequests');
  });

  it('describes every served route (Koa routers and capture URLs) with an operationId, a real answer schema and its input', () => {
    const byShape = new Map(operations().map((o) => [shape(o.method, o.path), o.op]));
    /** A JSON object of unknown fields: what the hand table used to say for routes it did not describe. */
    const vague = (schema: Record<string, unknown>) => schema.type === 'object' && !schema.properties && (schema.additionalProperties === undefined || JSON.stringify(schema.additionalProperties) === '{}');
    for (const r of s.routes) {
      const where = `${r.method.toUpperCase()} ${r.path}`;
      const op = byShape.get(shape(r.method, r.path));
      expect(op, where).toBeDefined();
      expect(op!.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      const [status, ok] = Object.entries(op!.responses).find(([st]) => /^2\d\d$/.test(st))!;
      if (status === '204') continue;
      const json = ok.content?.['application/json']?.schema as Record<string, unknown> | undefined;
      if (json) expect(vague(json), `${where}: answer described only as "a JSON object"`).toBe(false);
      else expect(Object.keys(ok.content ?? {}).length, `${where}: no media type`).toBeGreaterThan(0);
    }
    // Input: each route object's body and query are in its operation.
    for (const route of API_ROUTES) {
      const op = doc.paths[route.path]![route.method]!;
      const where = `${route.method.toUpperCase()} ${route.path}`;
      if (route.body) expect(op.requestBody?.content['application/json']?.schema, `${where}: request body`).toBeDefined();
      for (const name of Object.keys(route.query?.shape ?? {}))
        expect(
          op.parameters?.some((p) => p.in === 'query' && p.name === name),
          `${where}: query ${name}`,
        ).toBe(true);
    }
  });

  it('names the server from BASE_URL and shares the error body and the page envelope as components', () => {
    expect(doc.servers).toEqual([{ url: BASE_URL }]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Error', 'Page']));
  });

  it('is a valid OpenAPI 3.1 document (@redocly/openapi-core)', async () => {
    const config = await createConfig({
      rules: {
        struct: 'error',
        'no-unresolved-refs': 'error',
        'operation-operationId-unique': 'error',
        'operation-operationId-url-safe': 'error',
        'path-parameters-defined': 'error',
        'operation-parameters-unique': 'error',
        'no-path-trailing-slash': 'off',
        'no-identical-paths': 'error',
        'operation-2xx-response': 'error',
        'spec-components-invalid-map-name': 'error',
      },
    });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('the answers of the routes match the schemas they declare', async () => {
    // The one format zod emits in these schemas; an unknown format would not be checked at all.
    const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i } });
    ajv.addSchema({ $id: 'doc', components: doc.components } as never);
    const check = async (method: string, path: string, documented: string, opts: Parameters<TestServer['call']>[2] = {}) => {
      const r = await s.call(method, path, opts);
      const op = doc.paths[documented]![method.toLowerCase()]!;
      const [status, response] = Object.entries(op.responses).find(([st]) => /^2/.test(st))!;
      expect(String(r.status), `${method} ${path}: ${r.text}`).toBe(status);
      const declared = response.content?.['application/json']?.schema;
      if (!declared) return r;
      // Local refs (#/components/...) resolve against the document registered as `doc`.
      const validate = ajv.compile(JSON.parse(JSON.stringify(declared).replaceAll('"#/components/', '"doc#/components/')));
      expect(validate(r.data) ? [] : validate.errors, `${method} ${documented}`).toEqual([]);
      return r;
    };
    const user = await s.user(true);
    const key = user.key;
    const token = (await check('POST', '/token', '/token', { key, json: {} })).data;
    await fetch(`${s.url}/${token.uuid}/hello?x=1`, { method: 'POST', body: 'hi' });
    await check('GET', '/token', '/token', { key });
    await check('GET', `/token/${token.uuid}`, '/token/{token_id}', { key });
    await check('PUT', `/token/${token.uuid}/cors/toggle`, '/token/{token_id}/cors/toggle', { key });
    const page = (await check('GET', `/token/${token.uuid}/requests`, '/token/{token_id}/requests', { key })).data;
    const request = page.data[0].uuid as string;
    await check('GET', `/token/${token.uuid}/request/${request}`, '/token/{token_id}/request/{request_id}', { key });
    await check('GET', `/token/${token.uuid}/requests/${request}`, '/token/{token_id}/requests/{request_id}', { key });
    await check('PUT', `/token/${token.uuid}/request/${request}/note`, '/token/{token_id}/request/{request_id}/note', { key, json: { note: 'n' } });
    await check('GET', `/token/${token.uuid}/actions`, '/token/{token_id}/actions', { key });
    await check('GET', `/token/${token.uuid}/replays`, '/token/{token_id}/replays', { key });
    await check('GET', `/token/${token.uuid}/share`, '/token/{token_id}/share', { key });
    const group = (await check('POST', '/groups', '/groups', { key, json: { name: 'g' } })).data;
    await check('PUT', `/groups/${group.id}`, '/groups/{group_id}', { key, json: { name: 'h' } });
    await check('GET', `/groups/${group.id}`, '/groups/{group_id}', { key });
    const global = (await check('POST', '/global-variables', '/global-variables', { key, json: { name: 'v', value: '1' } })).data;
    await check('PUT', `/global-variables/${global.id}`, '/global-variables/{id}', { key, json: { value: '2' } });
    await check('GET', `/global-variables/${global.id}`, '/global-variables/{id}', { key });
    await check('POST', `/users/${user.id}/api-keys`, '/users/{user_id}/api-keys', { key: ADMIN_KEY });
    for (const p of ['/groups', '/providers', '/templates', '/global-variables', '/schedules', '/action-types', '/provider-types', '/users/me', '/errors', '/errors/unread', '/schedules/notifications'])
      await check('GET', p, p, { key });
    await check('GET', `/users/${user.id}`, '/users/{user_id}', { key });
    await check('GET', `/users/${user.id}/api-keys`, '/users/{user_id}/api-keys', { key });
    // The users list adds Laravel's `links` beside the page envelope; its schema says so (and requires it).
    const users = await check('GET', '/users', '/users', { key: ADMIN_KEY });
    expect(users.data.links.length).toBeGreaterThan(2);
    expect(JSON.stringify(doc.paths['/users']!.get!.responses['200']!.content!['application/json']!.schema)).toContain('"links"');
    for (const p of ['/healthz', '/readyz', '/openapi.json']) await check('GET', p, p);
    await check('DELETE', `/token/${token.uuid}/request/${request}`, '/token/{token_id}/request/{request_id}', { key });

    // The error body every route declares as `default`.
    const error = await s.call('PUT', `/token/${token.uuid}`, { key, json: { default_status: 5 } });
    expect(error.status).toBe(422);
    const validate = ajv.compile({ $ref: 'doc#/components/schemas/Error' });
    expect(validate(error.data) ? [] : validate.errors).toEqual([]);
  });
});
