import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock, fetchHttpClient, runAction, type RunActionOptions, stubHttp, TEST_TOKEN, validateParams } from '@capture/sdk/testing';
import { generator } from '../src/generate.js';
import { openapiMock } from '../src/openapi-mock.js';

const fixture = (name: string) => fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const PETSTORE = fixture('petstore.yaml');
const SWAGGER2 = fixture('swagger2.json');
const petstore = YAML.parse(PETSTORE);
const swagger2 = JSON.parse(SWAGGER2);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ajv = new Ajv({ strict: false, logger: false, formats: { int32: true, int64: true, binary: true } });
ajv.addFormat('uuid', UUID);
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
ajv.addFormat('ipv4', /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/);

/** Validates `value` against `schema`, whose refs point into `doc`. */
function expectValid(value: unknown, schema: object, doc: Record<string, unknown>): void {
  const validate = ajv.compile({ allOf: [schema], components: doc.components, definitions: doc.definitions });
  expect(validate(value), JSON.stringify({ value, errors: validate.errors })).toBe(true);
}

/** Runs the action for `METHOD /path` sent to the test token. */
function mock(params: Record<string, unknown>, method: string, path: string, options: RunActionOptions = {}) {
  return runAction(openapiMock, params, { ...options, request: { method, url: `http://localhost:8084/${TEST_TOKEN.uuid}${path}`, ...options.request } });
}

const json = (r: { response: { content: string | Buffer } }) => JSON.parse(String(r.response.content));
const petSchema = { $ref: '#/components/schemas/Pet' };

describe('openapi_mock: matching', () => {
  it('matches a path template and answers with a body generated from its schema', async () => {
    const r = await mock({ spec: PETSTORE }, 'GET', '/pets/1');
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['Mocked GET /pets/{petId} -> 200']);
    expect(r.response.status).toBe(200);
    expect(r.response.contentType).toBe('application/json');
    expectValid(json(r), petSchema, petstore);
  });

  it('prefers a literal path over a template, and a documented example over generation', async () => {
    const r = await mock({ spec: PETSTORE }, 'GET', '/pets/mine');
    expect(r.output).toEqual(['Mocked GET /pets/mine -> 200']);
    expect(json(r)).toEqual({ id: 7, name: 'Rex', status: 'sold', tag: null });
  });

  it('checks path parameters against their schemas', async () => {
    expect((await mock({ spec: PETSTORE }, 'GET', '/pets/1/photos/thumb')).response).toMatchObject({ status: 200, contentType: 'image/png' });
    for (const path of ['/pets/abc', '/pets/0', '/pets/1.5', '/pets/1/photos/huge', '/owners/not-a-uuid']) {
      const r = await mock({ spec: PETSTORE }, 'GET', path);
      expect(r.response.status, path).toBe(404);
    }
    const owner = await mock({ spec: PETSTORE }, 'GET', '/owners/3fa85f64-5717-4562-b3fc-2c963f66afa6');
    expect(owner.response.status).toBe(200);
  });

  it('answers 404 with a JSON message naming the path when nothing matches', async () => {
    const r = await mock({ spec: PETSTORE }, 'GET', '/nowhere/else?x=1');
    expect(r.response.status).toBe(404);
    expect(r.response.contentType).toBe('application/json');
    expect(json(r)).toEqual({ message: 'No path in the spec matches GET /nowhere/else' });
    expect(r.output).toEqual(['Mocked GET /nowhere/else -> 404']);
  });

  it('answers 405 with Allow when the path exists with other methods', async () => {
    const r = await mock({ spec: PETSTORE }, 'PUT', '/pets/1');
    expect(r.response.status).toBe(405);
    expect(r.response.headers.Allow).toBe('DELETE, GET');
    expect(json(r).message).toMatch(/PUT is not allowed for \/pets\/\{petId\}/);
  });

  it("strips scheme, host and the server's base path from the path parameter", async () => {
    const params = { spec: PETSTORE, path: 'https://api.example.com$request.path$' };
    const r = await mock(params, 'GET', '/v1/pets?limit=2');
    expect(r.output).toEqual(['Mocked GET /pets -> 200']);
    expectValid(json(r), { type: 'array', items: petSchema }, petstore);
    expect((await mock(params, 'GET', '/pets')).response.status).toBe(200);
    expect((await mock({ spec: PETSTORE, path: '/v1/pets/2/' }, 'POST', '/')).response.status).toBe(405);
  });

  it('uses method and status overrides, the lowest 2xx otherwise, and HEAD as GET', async () => {
    const del = await mock({ spec: PETSTORE, method: 'delete' }, 'GET', '/pets/3');
    expect(del.response).toMatchObject({ status: 204, content: '' });
    const created = await mock({ spec: PETSTORE }, 'POST', '/pets');
    expect(created.response).toMatchObject({ status: 201, contentType: 'application/json' });
    const notFound = await mock({ spec: PETSTORE, status: '404' }, 'GET', '/pets/3');
    expect(notFound.response.status).toBe(404);
    expectValid(json(notFound), { $ref: '#/components/schemas/Error' }, petstore);
    const fallback = await mock({ spec: PETSTORE, status: 503 }, 'GET', '/pets');
    expect(fallback.response.status).toBe(503);
    expectValid(json(fallback), { $ref: '#/components/schemas/Error' }, petstore);
    const undocumented = await mock({ spec: PETSTORE, status: 500 }, 'GET', '/pets/3');
    expect(undocumented.response).toMatchObject({ status: 500, content: '' });
    expect((await mock({ spec: PETSTORE }, 'GET', '/health')).response.status).toBe(200);
    expect((await mock({ spec: PETSTORE }, 'HEAD', '/pets/3')).output).toEqual(['Mocked HEAD /pets/{petId} -> 200']);
  });
});

describe('openapi_mock: responses', () => {
  it('generates bodies that validate against their schemas', async () => {
    const owner = (i: number) => `/owners/${String(i).padStart(8, '0')}-5717-4562-b3fc-2c963f66afa6`;
    const cases: Array<[string, object]> = [
      ['/pets', { type: 'array', items: petSchema }],
      ['/tree', { $ref: '#/components/schemas/Node' }],
      ['/inventory', petstore.paths['/inventory'].get.responses['200'].content['application/json'].schema],
    ];
    for (let i = 1; i <= 15; i++) {
      cases.push([`/pets/${i}`, petSchema], [owner(i), { $ref: '#/components/schemas/Owner' }], [`/animals/${i}`, { $ref: '#/components/schemas/Animal' }]);
    }
    for (const [path, schema] of cases) {
      const r = await mock({ spec: PETSTORE }, 'GET', path);
      expect(r.response.status, path).toBe(200);
      expectValid(json(r), schema, petstore);
    }
  });

  it('merges allOf, follows refs, picks enum values and honours formats and bounds', async () => {
    const pets = await Promise.all(Array.from({ length: 10 }, (_, i) => mock({ spec: PETSTORE }, 'GET', `/pets/${i + 1}`)));
    for (const pet of pets.map(json)) {
      expect(pet).toHaveProperty('id');
      expect(pet).toHaveProperty('name');
      expect(['available', 'pending', 'sold']).toContain(pet.status);
      expect(pet).not.toHaveProperty('secret'); // writeOnly
      expect(pet.weight % 0.5).toBe(0);
      expect(pet.name.length).toBeGreaterThanOrEqual(2);
    }
    const owner = json(await mock({ spec: PETSTORE }, 'GET', '/owners/3fa85f64-5717-4562-b3fc-2c963f66afa6'));
    expect(owner.id).toMatch(UUID);
    expect(owner.email).toMatch(/@/);
    expect(owner.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(owner.homepage).toMatch(/^https?:\/\//);
    expect(owner.last_ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(owner.pets.length).toBeGreaterThanOrEqual(1);
    expect(owner.pets.length).toBeLessThanOrEqual(3);
  });

  it('picks a oneOf branch and sets the discriminator from its mapping', async () => {
    const kinds = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const animal = json(await mock({ spec: PETSTORE }, 'GET', `/animals/${i}`));
      kinds.add(animal.kind);
      expect(animal).toHaveProperty(animal.kind === 'cat' ? 'meows' : 'barks');
    }
    expect(kinds).toEqual(new Set(['cat', 'dog']));
  });

  it('bounds recursive schemas and uses null for a nullable schema met inside itself', () => {
    const root = {
      components: {
        schemas: {
          Node: {
            type: 'object',
            required: ['name', 'next'],
            properties: { name: { type: 'string' }, next: { $ref: '#/components/schemas/Maybe' }, kids: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
          },
          Maybe: { allOf: [{ $ref: '#/components/schemas/Node' }], type: 'object', nullable: true },
        },
      },
    };
    const v = generator(root, 'seed').value({ $ref: '#/components/schemas/Node' }) as Record<string, any>;
    expect(v.next).toBeNull();
    for (const kid of v.kids) expect(kid).toEqual({ name: expect.any(String), next: null });
    const arrays = generator({}, 'x').value({ type: 'array', items: { type: 'integer', minimum: 3, maximum: 3 }, minItems: 5, maxItems: 5 });
    expect(arrays).toEqual([3, 3, 3, 3, 3]);
    const exclusive = generator({}, 'y').value({ type: 'integer', minimum: 1, maximum: 3, exclusiveMinimum: true, exclusiveMaximum: true });
    expect(exclusive).toBe(2);
  });

  it('generates response headers and sends named examples (refs followed) as they are', async () => {
    const list = await mock({ spec: PETSTORE }, 'GET', '/pets');
    const limit = Number(list.response.headers['X-Rate-Limit']);
    expect(limit).toBeGreaterThanOrEqual(1);
    expect(limit).toBeLessThanOrEqual(100);
    const greeting = await mock({ spec: PETSTORE }, 'GET', '/greeting');
    expect(greeting.response).toMatchObject({ status: 200, contentType: 'text/plain', content: 'Hello there' });
  });

  it('gives the same request the same response, and another path another one', async () => {
    const a = await mock({ spec: PETSTORE }, 'GET', '/owners/3fa85f64-5717-4562-b3fc-2c963f66afa6');
    const b = await mock({ spec: PETSTORE }, 'GET', '/owners/3fa85f64-5717-4562-b3fc-2c963f66afa6');
    const c = await mock({ spec: PETSTORE }, 'GET', '/owners/00000000-5717-4562-b3fc-2c963f66afa6');
    expect(b.response.content).toBe(a.response.content);
    expect(c.response.content).not.toBe(a.response.content);
  });

  it('reads the same spec as JSON', async () => {
    const fromYaml = await mock({ spec: PETSTORE }, 'GET', '/pets/5');
    const fromJson = await mock({ spec: JSON.stringify(petstore) }, 'GET', '/pets/5');
    expect(fromJson.errors).toEqual([]);
    expect(fromJson.response).toEqual(fromYaml.response);
  });

  it('mocks Swagger 2.0: basePath, typed parameters, definitions, produces and examples', async () => {
    const user = await mock({ spec: SWAGGER2 }, 'GET', '/api/users/3');
    expect(user.output).toEqual(['Mocked GET /users/{id} -> 200']);
    expect(user.response.contentType).toBe('application/json');
    expect(user.response.headers['X-Request-Id']).toMatch(UUID);
    expectValid(json(user), { $ref: '#/definitions/User' }, swagger2);
    expect((await mock({ spec: SWAGGER2 }, 'GET', '/api/users/abc')).response.status).toBe(404);
    expect(json(await mock({ spec: SWAGGER2 }, 'GET', '/users'))).toEqual([{ id: 1, name: 'Ada', role: 'admin' }]);
    const created = await mock({ spec: SWAGGER2 }, 'POST', '/api/users');
    expect(created.response.status).toBe(201);
    expectValid(json(created), { $ref: '#/definitions/User' }, swagger2);
    expect((await mock({ spec: YAML.stringify(swagger2) }, 'GET', '/api/users/3')).response.content).toBe(user.response.content);
  });
});

describe('openapi_mock: spec_url', () => {
  let server: http.Server;
  let base: string;
  const hits: Record<string, number> = {};

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits[req.url!] = (hits[req.url!] ?? 0) + 1;
      if (req.url!.startsWith('/petstore')) res.writeHead(200, { 'content-type': 'application/yaml' }).end(PETSTORE);
      else if (req.url === '/big.json') res.writeHead(200).end(`{"openapi":"3.0.0","paths":{},"x":"${'a'.repeat(2 * 1024 * 1024)}"}`);
      else if (req.url === '/broken.yaml') res.writeHead(200).end('openapi: 3.0.0\npaths:\n  /a: [\n');
      else res.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('downloads the spec and keeps it for 60 s', async () => {
    const clock = fakeClock();
    const options = { services: { http: fetchHttpClient, clock } };
    const first = await mock({ spec_url: `${base}/petstore.yaml` }, 'GET', '/pets/1', options);
    expect(first.errors).toEqual([]);
    expectValid(json(first), petSchema, petstore);
    await mock({ spec_url: `${base}/petstore.yaml` }, 'GET', '/pets/2', options);
    expect(hits['/petstore.yaml']).toBe(1);
    clock.advance(61_000);
    await mock({ spec_url: `${base}/petstore.yaml` }, 'GET', '/pets/2', options);
    expect(hits['/petstore.yaml']).toBe(2);
  });

  it('reports a failed download, an oversized spec and a broken one as action errors', async () => {
    const options = { services: { http: fetchHttpClient } };
    const missing = await mock({ spec_url: `${base}/missing.yaml` }, 'GET', '/pets', options);
    expect(missing.errors[0]).toMatch(/answered HTTP 404/);
    expect(missing.response.status).toBe(200);
    expect((await mock({ spec_url: `${base}/big.json` }, 'GET', '/pets', options)).errors[0]).toMatch(/larger than 2 MiB/);
    expect((await mock({ spec_url: `${base}/broken.yaml` }, 'GET', '/pets', options)).errors[0]).toMatch(/Invalid OpenAPI\/Swagger spec: .*line \d+/);
  });

  it('uses the spec text when both are given', async () => {
    const http = stubHttp();
    const r = await mock({ spec: PETSTORE, spec_url: 'https://specs.example.com/x.yaml' }, 'GET', '/pets/1', { services: { http } });
    expect(r.response.status).toBe(200);
    expect(http.sent).toEqual([]);
  });
});

describe('openapi_mock: invalid input', () => {
  it('an invalid YAML spec is an action error naming the line, and the response is unchanged', async () => {
    const r = await mock({ spec: 'openapi: 3.0.0\npaths:\n  /a:\n    get: {\n' }, 'GET', '/a', { token: { default_content: 'hi' } });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^Invalid OpenAPI\/Swagger spec: .*line \d+/);
    expect(r.response).toMatchObject({ status: 200, content: 'hi', contentType: 'text/plain' });
  });

  it('a document that is not OpenAPI or Swagger, or broken JSON, is an action error', async () => {
    expect((await mock({ spec: '{"hello": "world"}' }, 'GET', '/')).errors[0]).toMatch(/not an OpenAPI 3.x or Swagger 2.0 document/);
    expect((await mock({ spec: '{"openapi": "3.0.0", "paths": {' }, 'GET', '/')).errors[0]).toMatch(/Invalid OpenAPI\/Swagger spec: .*line 1/);
    expect((await mock({ spec: 'just text' }, 'GET', '/')).errors[0]).toMatch(/must be a YAML or JSON object/);
  });

  it('validates parameters', () => {
    expect(() => validateParams(openapiMock, {})).toThrow(/parameters.spec: spec or spec_url is required/);
    expect(() => validateParams(openapiMock, { spec: '  ' })).toThrow(/parameters.spec/);
    expect(() => validateParams(openapiMock, { spec_url: 'ftp://example.com/spec.yaml' })).toThrow(/parameters.spec_url: must be an http\(s\) URL/);
    expect(() => validateParams(openapiMock, { spec: 'x', status: 700 })).toThrow(/parameters.status/);
    expect(() => validateParams(openapiMock, { spec: 'x', method: 'G T' })).toThrow(/parameters.method/);
    expect(validateParams(openapiMock, { spec_url: '$spec_url$', status: '$code$', method: 'post' })).toBeTruthy();
    expect(validateParams(openapiMock, { spec: 'openapi: 3.0.0', status: '', path: 'https://example.com$request.path$' })).toBeTruthy();
  });
});
