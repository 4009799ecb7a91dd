// Turns the service's OpenAPI document (GET /openapi.json) into TypeScript types: one entry per
// operation, keyed "METHOD /path", with its path parameters, query, JSON body and JSON response.
// Only the JSON Schema the document uses is handled (zod's output: objects, arrays, unions, enums,
// nullable types); anything else becomes `unknown`, never a wrong type.

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  prefixItems?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  $ref?: string;
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** The document's shared schemas (components.schemas), which `$ref`s name; set per conversion. */
let shared: Record<string, Schema> = {};

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENT.test(name) ? name : JSON.stringify(name));
const pad = (depth: number) => '  '.repeat(depth);

function comment(text: string | undefined, depth: number): string {
  if (!text) return '';
  return `${pad(depth)}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length ? unique.join(' | ') : 'never';
}

function typeOf(s: Schema | boolean | undefined, depth: number): string {
  if (s === undefined || s === true) return 'unknown';
  if (s === false) return 'never';
  if (s.$ref) {
    const target = s.$ref.startsWith('#/components/schemas/') ? shared[s.$ref.slice('#/components/schemas/'.length)] : undefined;
    return target ? typeOf(target, depth) : 'unknown';
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return union(s.enum.map((v) => JSON.stringify(v)));
  if (s.anyOf || s.oneOf) return union((s.anyOf ?? s.oneOf)!.map((x) => wrap(typeOf(x, depth))));
  if (s.allOf) return s.allOf.map((x) => wrap(typeOf(x, depth))).join(' & ');
  if (Array.isArray(s.type)) return union(s.type.map((t) => typeOf({ ...s, type: t }, depth)));
  switch (s.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      if (s.prefixItems) return `[${s.prefixItems.map((x) => typeOf(x, depth)).join(', ')}]`;
      return `${wrap(typeOf(s.items, depth))}[]`;
    case 'object':
      return objectType(s, depth);
    default:
      return 'unknown';
  }
}

/** Parenthesises a union or intersection used inside another type. */
function wrap(t: string): string {
  let depth = 0;
  for (const c of t) {
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (depth === 0 && (c === '|' || c === '&')) return `(${t})`;
  }
  return t;
}

function objectType(s: Schema, depth: number): string {
  const props = Object.entries(s.properties ?? {});
  const extra = s.additionalProperties;
  if (!props.length) {
    if (extra === false) return 'Record<string, never>';
    return `{ [key: string]: ${typeOf(extra === undefined ? true : extra, depth)} }`;
  }
  const required = new Set(s.required ?? []);
  const lines = props.map(([name, p]) => `${comment(p.description, depth + 1)}${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(p, depth + 1)};`);
  if (extra && extra !== true) lines.push(`${pad(depth + 1)}[key: string]: ${typeOf(extra, depth + 1)} | undefined;`);
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

function jsonSchema(content: Record<string, { schema?: Schema }> | undefined): Schema | undefined {
  return content?.['application/json']?.schema;
}

function paramsType(params: Parameter[], where: string, depth: number): string {
  const mine = params.filter((p) => p.in === where);
  if (!mine.length) return 'Record<string, never>';
  const lines = mine.map((p) => `${comment(p.schema?.description, depth + 1)}${pad(depth + 1)}${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, depth + 1)};`);
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

/** The TypeScript source of the types of every operation in `doc`. */
export function openApiToTypes(doc: OpenApiDocument): string {
  shared = doc.components?.schemas ?? {};
  const entries: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const body = jsonSchema(op.requestBody?.content);
      const ok = Object.entries(op.responses ?? {}).find(([status]) => /^2/.test(status));
      const response = ok ? jsonSchema(ok[1].content) : undefined;
      const status = ok ? Number(ok[0]) : 200;
      entries.push(
        `${comment(op.summary, 1)}  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {\n` +
          `    path: ${paramsType(params, 'path', 2)};\n` +
          `    query: ${paramsType(params, 'query', 2)};\n` +
          `    body: ${body ? typeOf(body, 2) : 'never'};\n` +
          `    status: ${status};\n` +
          // A response without a JSON schema: the body is not described (text, YAML, or nothing).
          `    response: ${response ? typeOf(response, 2) : 'unknown'};\n` +
          `  };`,
      );
    }
  }
  return (
    "// Generated from the service's OpenAPI document (GET /openapi.json) by\n" +
    '// packages/client/scripts/write-types.ts: do not edit. `npm run types -w @capture/client` after an\n' +
    '// API change; packages/client/test/types.test.ts fails while this file is behind.\n\n' +
    '/** Every operation of the API, keyed "METHOD /path". */\n' +
    `export interface Operations {\n${entries.join('\n')}\n}\n`
  );
}
