// Values that fit (or nearly fit) a JSON Schema of /openapi.json or /action-types, as fast-check
// arbitraries: the fuzzer starts from these and spoils one part, so requests get past the first
// check and reach the code behind it. Fields whose valid values make the service wait (timeouts,
// delays) get small values, and every URL or host points at a closed loopback port.
import fc from 'fast-check';
import { hostileDocument } from './hostile.js';

type Schema = Record<string, any>;

/** Property names whose valid values are waits in seconds or milliseconds: kept small. */
const WAITS = /timeout|delay|sleep|seconds|wait|listen|duration|interval_ms|retry/i;
/** Property names that name a place to connect to. */
const PLACES = /url|uri|host|endpoint|server|webhook|address/i;

const LOOPBACK_URLS = ['http://127.0.0.1:9/', 'http://localhost:9/x?y=1', 'https://127.0.0.1:9/a/../b', 'ftp://127.0.0.1:9/', 'http://[::1]:9/', 'http://127.0.0.1:9/%2e%2e/%00'];

export function valuesOf(schema: Schema | undefined, root: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object' || depth > 6) return fc.constant(null);
  if (schema.$ref) {
    const target = String(schema.$ref)
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((at, part) => at?.[part], root);
    return valuesOf(target, root, name, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choices)) return fc.oneof(...choices.map((s: Schema) => valuesOf(s, root, name, depth + 1)));
  if (Array.isArray(schema.allOf)) {
    const merged = schema.allOf.reduce((acc: Schema, s: Schema) => ({ ...acc, ...s, properties: { ...acc.properties, ...s.properties }, required: [...(acc.required ?? []), ...(s.required ?? [])] }), {});
    return valuesOf(merged, root, name, depth + 1);
  }
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((t: string) => valuesOf({ ...schema, type: t }, root, name, depth + 1)));
  switch (schema.type) {
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valuesOf(s, root, k, depth + 1)])), { requiredKeys: required.filter((k) => k in props) });
      if (schema.additionalProperties === false || Object.keys(props).length) return record;
      return fc.dictionary(fc.string({ maxLength: 8 }), valuesOf(schema.additionalProperties, root, '', depth + 1), { maxKeys: 3 });
    }
    case 'array': {
      const min = Math.min(schema.minItems ?? 0, 3);
      return fc.array(valuesOf(schema.items, root, name, depth + 1), { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'string':
      return stringFor(schema, name);
    case 'integer':
    case 'number': {
      let min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      let max = typeof schema.maximum === 'number' ? schema.maximum : 100_000;
      if (WAITS.test(name)) max = Math.min(max, Math.max(min, 1));
      min = Math.max(min, -1e9);
      max = Math.min(max, 1e9);
      return schema.type === 'integer' ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFor(schema: Schema, name: string): fc.Arbitrary<string> {
  if (PLACES.test(name)) return fc.constantFrom(...LOOPBACK_URLS, '127.0.0.1', 'localhost');
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'email' || /email/i.test(name)) return fc.constantFrom('a@example.test', 'x+y@example.test', '@', 'a@b');
  const maxLength = Math.min(schema.maxLength ?? 24, 24);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).map((s) => s.slice(0, schema.maxLength ?? 200));
    } catch {
      // A pattern JavaScript cannot read: any text.
    }
  }
  // Now and then a hostile document where a text goes: parameters that actions parse (schemas, specs, XML).
  return fc.oneof({ weight: 6, arbitrary: fc.string({ minLength, maxLength, unit: 'binary' }) }, { weight: 1, arbitrary: hostileDocument.map((d) => d.text) });
}
