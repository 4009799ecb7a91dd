// Loading an OpenAPI 3.x or Swagger 2.0 document (YAML or JSON) into one shape the matcher and
// the generator share: operations by path template, each with its path parameters' schemas and
// its documented responses (one content type, schema and example each). Schemas keep their
// `$ref`s; `resolveRef` follows local ones against the original document.
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { checkParseLimits } from '@capture/sdk/parse-limits';
import type { ActionContext } from '@capture/sdk';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI/JSON Schema object as the user wrote it, read by key
export type Schema = Record<string, any>;

export interface MockHeader {
  schema: Schema;
  example?: { value: unknown };
}

export interface MockResponse {
  contentType?: string;
  schema?: Schema;
  example?: { value: unknown };
  headers: Record<string, MockHeader>;
}

export interface Operation {
  method: string;
  template: string;
  /** Path parameter name -> schema. */
  pathParams: Record<string, Schema>;
  /** Response key (`200`, `2XX`, `default`) -> response. */
  responses: Record<string, MockResponse>;
}

export interface PathItem {
  template: string;
  /** Upper-case method -> operation. */
  operations: Record<string, Operation>;
}

export interface MockSpec {
  /** The document as parsed, for `$ref` resolution. */
  root: Schema;
  /** Path prefixes of the spec's servers (`/v1`), longest first; empty for none. */
  basePaths: string[];
  paths: PathItem[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows a local `$ref` (`#/components/schemas/Pet`); undefined for external or broken ones. */
export function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(cur) && !Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return isObject(cur) ? cur : undefined;
}

/** An object with its `$ref` chain followed (at most 20 hops); `{}` when unresolvable. */
export function deref(root: Schema, value: unknown): Schema {
  let cur = value;
  for (let i = 0; i < 20 && isObject(cur) && typeof cur.$ref === 'string'; i++) cur = resolveRef(root, cur.$ref) ?? {};
  return isObject(cur) ? cur : {};
}

/** application/json first, then any JSON type, then the first listed. */
export function pickContentType(types: string[]): string | undefined {
  return types.find((t) => /^application\/json\b/i.test(t)) ?? types.find((t) => /[/+]json\b/i.test(t)) ?? types[0];
}

function parseText(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) throw new Error('the spec is empty');
  // Measured before each parse (the matcher and generator recurse over the result too); JSON that
  // JSON.parse rejects is measured again as the YAML it is then read as.
  if (trimmed.startsWith('{')) {
    checkParseLimits(trimmed, 'json', { what: 'the spec' });
    try {
      return JSON.parse(trimmed);
    } catch {
      // YAML reads JSON too and reports the line of the mistake.
    }
  }
  checkParseLimits(text, 'yaml', { what: 'the spec' });
  const doc = YAML.parseDocument(text, { uniqueKeys: false });
  const err = doc.errors[0];
  if (err) throw new Error(err.message.split('\n')[0].replace(/:$/, ''));
  return doc.toJS({ maxAliasCount: 1000 });
}

function basePathOf(url: string, variables: unknown): string {
  let u = url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = isObject(variables) && isObject(variables[name]) ? variables[name].default : undefined;
    return v === undefined ? '' : String(v);
  });
  u = u.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/^\/\/[^/]*/, '');
  u = u.split(/[?#]/)[0];
  return ('/' + u).replace(/\/+/g, '/').replace(/\/$/, '');
}

/** Swagger 2.0 parameters and headers carry their schema inline (`type`, `format`, `items`...). */
function inlineSchema(p: Schema): Schema {
  const { name, in: _in, description, required, schema, collectionFormat, allowEmptyValue, ...rest } = p;
  return isObject(schema) ? schema : rest;
}

function pathParams(root: Schema, list: unknown[], swagger2: boolean): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const raw of list) {
    const p = deref(root, raw);
    if (p.in !== 'path' || typeof p.name !== 'string') continue;
    out[p.name] = swagger2 ? inlineSchema(p) : isObject(p.schema) ? p.schema : {};
  }
  return out;
}

function example(media: Schema, root: Schema): { value: unknown } | undefined {
  if ('example' in media) return { value: media.example };
  if (isObject(media.examples)) {
    const first = Object.values(media.examples)[0];
    if (first !== undefined) {
      const ex = deref(root, first);
      if ('value' in ex) return { value: ex.value };
    }
  }
  return undefined;
}

function headers(root: Schema, raw: unknown, swagger2: boolean): Record<string, MockHeader> {
  const out: Record<string, MockHeader> = {};
  if (!isObject(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    if (name.toLowerCase() === 'content-type') continue;
    const h = deref(root, value);
    out[name] = { schema: swagger2 ? inlineSchema(h) : isObject(h.schema) ? h.schema : {}, example: 'example' in h ? { value: h.example } : undefined };
  }
  return out;
}

function response3(root: Schema, raw: unknown): MockResponse {
  const r = deref(root, raw);
  const content = isObject(r.content) ? r.content : {};
  const contentType = pickContentType(Object.keys(content));
  const media = contentType ? deref(root, content[contentType]) : {};
  return {
    contentType,
    schema: isObject(media.schema) ? media.schema : undefined,
    example: example(media, root),
    headers: headers(root, r.headers, false),
  };
}

function response2(root: Schema, raw: unknown, produces: string[]): MockResponse {
  const r = deref(root, raw);
  const examples = isObject(r.examples) ? r.examples : {};
  const schema = isObject(r.schema) ? r.schema : undefined;
  const contentType = schema || Object.keys(examples).length ? pickContentType(produces.length ? produces : Object.keys(examples).length ? Object.keys(examples) : ['application/json']) : undefined;
  const value = contentType && contentType in examples ? { value: examples[contentType] } : Object.keys(examples).length ? { value: Object.values(examples)[0] } : undefined;
  return { contentType, schema, example: value, headers: headers(root, r.headers, true) };
}

/** The common shape of a parsed document; throws on anything that is not OpenAPI 3 / Swagger 2. */
export function normalise(doc: unknown): MockSpec {
  if (!isObject(doc)) throw new Error('the spec must be a YAML or JSON object');
  const swagger2 = String(doc.swagger ?? '').startsWith('2');
  if (!swagger2 && !/^3\./.test(String(doc.openapi ?? ''))) {
    throw new Error('not an OpenAPI 3.x or Swagger 2.0 document (no "openapi: 3.x" or "swagger: \'2.0\'" field)');
  }
  if (doc.paths !== undefined && !isObject(doc.paths)) throw new Error('"paths" must be an object');

  const bases = swagger2
    ? [basePathOf(typeof doc.basePath === 'string' ? doc.basePath : '', {})]
    : (Array.isArray(doc.servers) ? doc.servers : []).filter(isObject).map((s) => basePathOf(String(s.url ?? ''), s.variables));
  const basePaths = [...new Set(bases.filter(Boolean))].sort((a, b) => b.length - a.length);
  const globalProduces: string[] = Array.isArray(doc.produces) ? doc.produces.map(String) : [];

  const paths: PathItem[] = [];
  for (const [template, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!template.startsWith('/')) continue;
    const item = deref(doc, rawItem);
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    const operations: Record<string, Operation> = {};
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const produces: string[] = Array.isArray(op.produces) ? op.produces.map(String) : globalProduces;
      const responses: Record<string, MockResponse> = {};
      for (const [code, r] of Object.entries(isObject(op.responses) ? op.responses : {})) {
        responses[code.toUpperCase() === 'DEFAULT' ? 'default' : code.toUpperCase()] = swagger2 ? response2(doc, r, produces) : response3(doc, r);
      }
      const params = [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])];
      operations[method.toUpperCase()] = { method: method.toUpperCase(), template, pathParams: pathParams(doc, params, swagger2), responses };
    }
    paths.push({ template, operations });
  }
  return { root: doc, basePaths, paths };
}

/** Parses and normalises spec text; the error says what is wrong (with the line, for YAML). */
export function parseSpec(text: string): MockSpec {
  try {
    return normalise(parseText(text));
  } catch (e) {
    throw new Error(`Invalid OpenAPI/Swagger spec: ${(e as Error).message}`);
  }
}

const MAX_CACHED = 50;
export const MAX_SPEC_BYTES = 2 * 1024 * 1024;
export const URL_CACHE_MS = 60_000;
const DOWNLOAD_TIMEOUT_MS = 15_000;

// Parsed specs: text ones by hash (least recently used dropped), downloaded ones by URL for 60 s.
const byHash = new Map<string, MockSpec>();
const byUrl = new Map<string, { spec: MockSpec; at: number }>();

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CACHED) map.delete(map.keys().next().value!);
  return value;
}

export function specFromText(text: string): MockSpec {
  const key = createHash('sha256').update(text).digest('hex');
  const hit = byHash.get(key);
  return remember(byHash, key, hit ?? parseSpec(text));
}

export async function specFromUrl(ctx: ActionContext, url: string): Promise<MockSpec> {
  const now = ctx.services.clock.now();
  const hit = byUrl.get(url);
  if (hit && now - hit.at < URL_CACHE_MS) return hit.spec;
  const res = await ctx.services.http.request({
    method: 'GET',
    url,
    headers: { accept: 'application/json, application/yaml, text/yaml, */*' },
    timeoutMs: Math.max(1, Math.min(DOWNLOAD_TIMEOUT_MS, ctx.timeLeftMs())),
    signal: ctx.signal,
    maxBodyBytes: MAX_SPEC_BYTES + 1,
  });
  if (res.status < 200 || res.status > 299) throw new Error(`Downloading the spec from ${url} answered HTTP ${res.status}`);
  if (res.truncated || res.body.length > MAX_SPEC_BYTES) throw new Error(`The spec at ${url} is larger than 2 MiB`);
  return remember(byUrl, url, { spec: parseSpec(res.body.toString('utf8')), at: now }).spec;
}

/** Empties both caches (tests). */
export function clearSpecCache(): void {
  byHash.clear();
  byUrl.clear();
}
