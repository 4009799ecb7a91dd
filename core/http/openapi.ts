// /openapi.json, generated from the same zod schemas the routes validate with.
import { z } from 'zod';
import { PAGE_ITEMS, PageEnvelope, routeFor, type RouteDoc } from './route.js';
import { API_ROUTES } from './routes.js';
import { DEFAULT_MAX_REQUEST_LIMIT, TokenCreateSchema, TokenUpdateSchema, tokenSchemas } from '../tokens/tokens.schema.js';

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });

/**
 * One operation. `response`: the zod schema of a JSON answer; without it the answer is described by
 * `type` (its media type) or, for 204, as no content.
 */
type Op = { summary: string; body?: z.ZodType; query?: z.ZodObject; response?: z.ZodType; status?: string; type?: string; page?: { item: z.ZodType; extra?: z.ZodObject }; operationId?: string };

/** A route object as an operation of the document. */
function opOf(route: RouteDoc): Op {
  const { schema: response, status, type } = route.response;
  const page = response && PAGE_ITEMS.get(response);
  return { summary: route.summary, body: route.body, query: route.query, status: String(status), type, operationId: route.operationId, ...(page ? { page } : { response }) };
}

/** A stable camelCase name from method and path: `get /token/{token_id}/requests` -> getTokenByTokenIdRequests. */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `by_${seg.slice(1, -1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  if (!words.length) words.push('root');
  else if (path.endsWith('/')) words.push('slash');
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

const ERROR = { $ref: '#/components/responses/Error' };
const PAGE = { $ref: '#/components/schemas/Page' };

/** The error body every route answers a 4xx/5xx with (core/error-response.ts). */
const ErrorBody = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional().describe('Field name -> what is wrong with it'),
});

function responses(method: string, path: string, op: Op): Record<string, unknown> {
  const status = op.status ?? '200';
  let ok: Record<string, unknown>;
  // A JSON answer that has another form too (a workflow document as YAML, or as JSON on request).
  if (op.response) ok = { description: 'OK', content: { 'application/json': { schema: schema(op.response) }, ...(op.type ? { [op.type]: { schema: {} } } : {}) } };
  else if (op.page) {
    const extra = op.page.extra ? (schema(op.page.extra) as { properties?: Record<string, unknown>; required?: string[] }) : {};
    const items = { type: 'object', properties: { data: { type: 'array', items: schema(op.page.item) }, ...extra.properties }, ...(extra.required?.length ? { required: extra.required } : {}) };
    ok = { description: 'A page', content: { 'application/json': { schema: { allOf: [PAGE, items] } } } };
  } else if (status === '204') ok = { description: 'No content' };
  else if (op.type) ok = { description: 'OK', content: { [op.type]: { schema: {} } } };
  // Every route declares its answer: a JSON schema, a media type or 204.
  else throw new Error(`${method.toUpperCase()} ${path} declares no answer (response.schema or response.type)`);
  return { [status]: ok, default: ERROR };
}

/** The document's top level (its paths and components are what this file writes). */
const OpenApiView = z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
  servers: z.array(z.object({ url: z.string() })),
  components: z.record(z.string(), z.record(z.string(), z.unknown())),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

/** GET /openapi.json, mounted by createApp (core/http/app.ts) with the settings' document; kept here so routes.ts does not import this file back. */
export const openApiRoutes = [
  routeFor<{ document: () => Record<string, unknown> }>()({
    method: 'get',
    path: '/openapi.json',
    summary: 'This document (OpenAPI 3.1): every route, with its input and answer schemas',
    auth: 'public',
    response: { status: 200, schema: OpenApiView },
    handler: (_ctx, { document }) => document(),
  }),
];

const cached = new Map<string, Record<string, unknown>>();

/** The document; `maxRequestLimit` (the MAX_REQUEST_LIMIT setting) is the token bodies' `request_limit` maximum. */
export function openApiDocument(baseUrl: string | null, maxRequestLimit = DEFAULT_MAX_REQUEST_LIMIT): Record<string, unknown> {
  const key = `${maxRequestLimit} ${baseUrl ?? ''}`;
  const hit = cached.get(key);
  if (hit) return hit;
  const tokenBodies = tokenSchemas(maxRequestLimit);
  const bodyOf = (op: Op) => (op.body === TokenCreateSchema ? tokenBodies.create : op.body === TokenUpdateSchema ? tokenBodies.update : op.body);
  const all: Record<string, Record<string, Op>> = {};
  for (const route of [...API_ROUTES, ...openApiRoutes]) (all[route.path] ??= {})[route.method] = opOf(route);
  const paths: Record<string, unknown> = {};
  for (const [path, methods] of Object.entries(all)) {
    const item: Record<string, unknown> = {};
    for (const [method, op] of Object.entries(methods)) {
      const body = bodyOf(op);
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
      if (op.query) {
        for (const [name, s] of Object.entries(op.query.shape)) params.push({ name, in: 'query', required: false, schema: schema(s as z.ZodType) as never });
      }
      item[method] = {
        operationId: op.operationId ?? operationId(method, path),
        summary: op.summary,
        parameters: params,
        ...(body ? { requestBody: { content: { 'application/json': { schema: schema(body) } } } } : {}),
        responses: responses(method, path, op),
      };
    }
    paths[path] = item;
  }
  const doc = {
    openapi: '3.1.0',
    info: { title: 'Request capture service', version: '0.1.0', description: 'webhook.site-compatible request capture and automation API' },
    servers: baseUrl ? [{ url: baseUrl }] : [],
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' } },
      schemas: { Error: schema(ErrorBody), Page: schema(PageEnvelope) },
      responses: { Error: { description: 'Error (4xx/5xx)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
    },
    security: [{ ApiKey: [] }, {}],
    paths,
  };
  cached.set(key, doc);
  return doc;
}
