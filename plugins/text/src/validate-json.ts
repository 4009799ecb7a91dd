import type { ErrorObject, ValidateFunction } from 'ajv';
import { checkParseLimits, ParseLimitError } from '@capture/sdk/parse-limits';
import { type ActionContext, defineAction, optionalText, variableName, z } from '@capture/sdk';
import { lazyImport } from '@capture/sdk/async';

const SCHEMA_DOWNLOAD_TIMEOUT_MS = 10_000;
const MAX_SCHEMA_BYTES = 1024 * 1024;
const CACHE_SIZE = 50;

// One validator per draft: the schema's $schema picks it (draft-07 when absent). They are made by
// the first validation, not at start-up.
const options = { allErrors: true, strict: false, validateFormats: false, logger: false } as const;
const loadEngines = lazyImport(async () => {
  const [{ Ajv }, { Ajv2019 }, { Ajv2020 }] = await Promise.all([import('ajv'), import('ajv/dist/2019.js'), import('ajv/dist/2020.js')]);
  return { '2020': new Ajv2020(options), '2019': new Ajv2019(options), default: new Ajv(options) };
});
// Compiling is the expensive part and the same schema comes with every capture.
const compiled = new Map<string, ValidateFunction>();

async function compile(schemaText: string): Promise<ValidateFunction> {
  const hit = compiled.get(schemaText);
  if (hit) return hit;
  let schema: unknown;
  // ajv compiles a schema by recursion over it.
  checkParseLimits(schemaText, 'json', { what: 'The JSON Schema' });
  try {
    schema = JSON.parse(schemaText);
  } catch (e) {
    throw new Error(`The JSON Schema is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof schema !== 'object' && typeof schema !== 'boolean') throw new Error('The JSON Schema must be an object');
  const draft = String((schema as { $schema?: unknown })?.$schema ?? '');
  const engines = await loadEngines();
  const ajv = draft.includes('2020-12') ? engines['2020'] : draft.includes('2019-09') ? engines['2019'] : engines.default;
  let validate: ValidateFunction;
  try {
    // Compiled without registering: the schema's $id must not clash with the next capture's.
    validate = typeof schema === 'boolean' ? ajv.compile(schema) : ajv.compile({ ...(schema as object), $id: undefined });
  } catch (e) {
    throw new Error(`The JSON Schema is invalid: ${(e as Error).message}`);
  }
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  compiled.set(schemaText, validate);
  return validate;
}

async function download(ctx: ActionContext, url: string): Promise<string> {
  const res = await ctx.services.http.request({
    method: 'GET',
    url,
    headers: { accept: 'application/schema+json, application/json' },
    timeoutMs: Math.min(SCHEMA_DOWNLOAD_TIMEOUT_MS, ctx.timeLeftMs()),
    signal: ctx.signal,
  });
  if (res.status < 200 || res.status > 299) throw new Error(`Downloading the JSON Schema from ${url} answered ${res.status}`);
  if (res.body.length > MAX_SCHEMA_BYTES) throw new Error(`The JSON Schema at ${url} is larger than 1 MB`);
  return res.body.toString('utf8');
}

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** The error shape the docs show: property, pointer, message, constraint, context. */
function describe(e: ErrorObject) {
  const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : null;
  const pointer = missing ? `${e.instancePath}/${missing}` : e.instancePath;
  const property = pointer.split('/').slice(1).map(unescapePointer).join('.');
  return { property, pointer: pointer || '/', message: e.message ?? 'is invalid', constraint: e.keyword, context: 1 };
}

export const validateJson = defineAction({
  type: 'validate_json',
  title: 'Validate JSON',
  category: 'text',
  description: 'Checks that the input is JSON and, optionally, that it matches a JSON Schema given inline or as a URL to download. Sets $validator.count$ and $validator.errors$; a failure is an action error.',
  parameters: z.object({
    source: optionalText().describe('The JSON to check; default the request body'),
    schema: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullish()
      .describe('A JSON Schema (JSON text or object), or an http(s) URL to download it from'),
    variable_name: variableName().default('validator'),
  }),
  sets: ['<variable_name>.count', '<variable_name>.errors'],
  untemplated: ['variable_name'],
  async execute(ctx) {
    const { params, request, vars, log, error } = ctx;
    const prefix = params.variable_name;
    const report = (errors: ReturnType<typeof describe>[]) => {
      vars.set(`${prefix}.count`, errors.length);
      vars.set(`${prefix}.errors`, JSON.stringify(errors));
    };
    let data: unknown;
    try {
      // A captured body is bounded in size by MAX_BODY_BYTES; its depth is measured here.
      data = JSON.parse(checkParseLimits(params.source ?? request.content, 'json', { what: 'The input', maxBytes: Infinity }));
    } catch (e) {
      const message = e instanceof ParseLimitError ? e.message : `The input is not valid JSON: ${(e as Error).message}`;
      report([{ property: '', pointer: '/', message, constraint: 'json', context: 1 }]);
      return error(message);
    }
    let schema = params.schema ?? null;
    if (typeof schema === 'string' && !schema.trim()) schema = null;
    if (schema === null) {
      report([]);
      return log('The input is valid JSON');
    }
    let schemaText = typeof schema === 'string' ? schema.trim() : JSON.stringify(schema);
    if (/^https?:\/\//i.test(schemaText)) schemaText = await download(ctx, schemaText);
    const validate = await compile(schemaText);
    const ok = validate(data);
    const errors = ok ? [] : (validate.errors ?? []).map(describe);
    report(errors);
    if (ok) return log('The input matches the JSON Schema');
    error(`The input does not match the JSON Schema: ${errors.map((e) => `${e.property || '(root)'} ${e.message}`).join('; ')}`);
  },
});
