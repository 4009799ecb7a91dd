// Example values from JSON/OpenAPI schemas, with faker seeded per request so the same request
// always gets the same body. Handles local $refs (a schema met again inside itself keeps only
// required properties and empty arrays), allOf/oneOf/anyOf, enum, const, formats, bounds,
// arrays of 1-3 items, nullable and additionalProperties maps.
import { createHash } from 'node:crypto';
import { Faker, base, en } from '@faker-js/faker';
import { resolveRef, type Schema } from './spec.js';

const faker = new Faker({ locale: [en, base] });
const REF_DATE = Date.UTC(2024, 0, 1);
const MAX_DEPTH = 16;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

// Plain strings named like these get a realistic value.
const BY_NAME: Record<string, () => string> = {
  name: () => faker.person.fullName(),
  fullname: () => faker.person.fullName(),
  firstname: () => faker.person.firstName(),
  lastname: () => faker.person.lastName(),
  username: () => faker.internet.username(),
  email: () => faker.internet.email(),
  phone: () => faker.phone.number(),
  city: () => faker.location.city(),
  country: () => faker.location.country(),
  address: () => faker.location.streetAddress(),
  street: () => faker.location.streetAddress(),
  zip: () => faker.location.zipCode(),
  zipcode: () => faker.location.zipCode(),
  company: () => faker.company.name(),
  url: () => faker.internet.url(),
  description: () => faker.lorem.sentence(),
};

function iso(): string {
  return faker.date
    .past({ years: 1 })
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

const FORMATS: Record<string, () => string> = {
  'date-time': iso,
  date: () => iso().slice(0, 10),
  time: () => iso().slice(11),
  email: () => faker.internet.email(),
  uuid: () => faker.string.uuid(),
  uri: () => faker.internet.url(),
  url: () => faker.internet.url(),
  hostname: () => faker.internet.domainName(),
  ipv4: () => faker.internet.ipv4(),
  ipv6: () => faker.internet.ipv6(),
  byte: () => Buffer.from(faker.lorem.word()).toString('base64'),
  password: () => faker.internet.password({ length: 12 }),
};

/** A 32-bit seed from text (`GET /pets/1`). */
export function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** `value` with its `$ref` chain followed; the refs passed are added to `seen`. */
function follow(root: Schema, value: unknown, seen: string[]): Schema {
  let cur = value;
  for (let i = 0; i < 20 && isObject(cur) && typeof cur.$ref === 'string'; i++) {
    seen.push(cur.$ref);
    cur = resolveRef(root, cur.$ref) ?? {};
  }
  return isObject(cur) ? cur : {};
}

/** allOf parts (refs followed, into `seen`) merged into one schema: properties and required combined. */
function flatten(root: Schema, schema: unknown, seen: string[], depth = 0): Schema {
  const s = follow(root, schema, seen);
  if (!Array.isArray(s.allOf) || depth > 10) return s;
  const { allOf, ...own } = s;
  const out: Schema = {};
  const parts = [...allOf.map((p: unknown) => flatten(root, p, seen, depth + 1)), own];
  parts.forEach((p, i) => {
    for (const [k, v] of Object.entries(p)) {
      if (k === 'properties' && isObject(v)) out.properties = { ...out.properties, ...v };
      else if (k === 'required' && Array.isArray(v)) out.required = [...new Set([...(out.required ?? []), ...v])];
      // An example of one part does not describe the whole.
      else if ((k !== 'example' && k !== 'examples') || i === parts.length - 1) out[k] = v;
    }
  });
  return out;
}

function bounds(s: Schema, integer: boolean): [number, number] {
  const step = integer ? 1 : 0.01;
  let lo = typeof s.minimum === 'number' ? s.minimum : undefined;
  let hi = typeof s.maximum === 'number' ? s.maximum : undefined;
  // exclusiveMinimum is a flag in OpenAPI 3.0 / Swagger 2.0 and a number in OpenAPI 3.1.
  if (typeof s.exclusiveMinimum === 'number') lo = s.exclusiveMinimum + step;
  else if (s.exclusiveMinimum === true && lo !== undefined) lo += step;
  if (typeof s.exclusiveMaximum === 'number') hi = s.exclusiveMaximum - step;
  else if (s.exclusiveMaximum === true && hi !== undefined) hi -= step;
  const min = lo ?? Math.min(1, hi ?? 1);
  const max = hi ?? Math.max(min + 100, 1000);
  return integer ? [Math.ceil(min), Math.floor(max)] : [min, max];
}

function numberFor(s: Schema, integer: boolean): number {
  const [lo, hi] = bounds(s, integer);
  if (lo > hi) return lo;
  const m = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (m) {
    const [kLo, kHi] = [Math.ceil(lo / m), Math.floor(hi / m)];
    return kLo > kHi ? lo : Number((faker.number.int({ min: kLo, max: kHi }) * m).toFixed(10));
  }
  return integer ? faker.number.int({ min: lo, max: hi }) : faker.number.float({ min: lo, max: hi, fractionDigits: 2 });
}

function stringFor(s: Schema, name?: string): string {
  const byFormat = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  if (byFormat) return byFormat();
  const hint = name ? BY_NAME[name.toLowerCase().replace(/[_-]/g, '')] : undefined;
  let v = hint ? hint() : faker.lorem.word();
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  if (v.length < min) v += faker.string.alpha(min - v.length);
  return v.length > max ? v.slice(0, max) : v;
}

function typeOf(s: Schema): string {
  const types: unknown[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const first = types.find((t) => t !== 'null') ?? types[0];
  if (typeof first === 'string') return first;
  if (isObject(s.properties) || s.additionalProperties !== undefined || Array.isArray(s.required)) return 'object';
  if (s.items !== undefined) return 'array';
  if (typeof s.minimum === 'number' || typeof s.maximum === 'number') return 'number';
  return 'string';
}

export interface Generator {
  value(schema: unknown, name?: string): unknown;
}

/** A generator whose values depend only on the spec, the schemas asked for and `seedText`. */
export function generator(root: Schema, seedText: string): Generator {
  faker.seed(seedOf(seedText));
  faker.setDefaultRefDate(REF_DATE);
  const refs: string[] = [];

  function value(schema: unknown, depth: number, name?: string): unknown {
    if (!isObject(schema) || depth > MAX_DEPTH) return null;
    if (typeof schema.$ref === 'string') {
      const { $ref, ...siblings } = schema;
      const target = resolveRef(root, $ref);
      if (!target) return null;
      refs.push($ref);
      try {
        return value({ ...target, ...siblings }, depth + 1, name);
      } finally {
        refs.pop();
      }
    }
    // Inside a schema that contains itself: only what is required, no array items, null if allowed.
    const cyclic = new Set(refs).size < refs.length;
    const s = schema;
    if ('example' in s) return s.example;
    if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
    if ('const' in s) return s.const;
    const nullable = s.nullable === true || s['x-nullable'] === true || (Array.isArray(s.type) && s.type.includes('null'));
    if (nullable && cyclic) return null;
    if (Array.isArray(s.allOf)) {
      // The refs the parts name count as entered, so a part that contains the whole is bounded.
      const seen: string[] = [];
      const merged = flatten(root, s, seen);
      refs.push(...seen);
      try {
        return value(merged, depth + 1, name);
      } finally {
        refs.length -= seen.length;
      }
    }

    const choices = s.oneOf ?? s.anyOf;
    if (Array.isArray(choices) && choices.length) {
      const picked = faker.helpers.arrayElement(choices);
      const { oneOf, anyOf, discriminator, ...rest } = s;
      const out = value(Object.keys(rest).length ? { allOf: [rest, picked] } : picked, depth + 1, name);
      const prop = isObject(discriminator) ? discriminator.propertyName : undefined;
      if (typeof prop === 'string' && isObject(out) && isObject(picked) && typeof picked.$ref === 'string') {
        const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {};
        out[prop] = Object.entries(mapping).find(([, ref]) => ref === picked.$ref)?.[0] ?? picked.$ref.split('/').pop();
      }
      return out;
    }
    if (Array.isArray(s.enum) && s.enum.length) return faker.helpers.arrayElement(s.enum);

    switch (typeOf(s)) {
      case 'null':
        return null;
      case 'boolean':
        return faker.datatype.boolean();
      case 'integer':
        return numberFor(s, true);
      case 'number':
        return numberFor(s, false);
      case 'array': {
        const items = Array.isArray(s.items) ? s.items[0] : s.items;
        const min = typeof s.minItems === 'number' ? s.minItems : 0;
        const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
        const count = Math.min(max, Math.max(min, cyclic ? 0 : faker.number.int({ min: 1, max: 3 })));
        const out: unknown[] = [];
        const seen = new Set<string>();
        for (let tries = 0; out.length < count && tries < count * 5; tries++) {
          const v = value(items ?? {}, depth + 1, name);
          const key = JSON.stringify(v);
          if (s.uniqueItems && seen.has(key)) continue;
          seen.add(key);
          out.push(v);
        }
        return out;
      }
      case 'object': {
        const out: Record<string, unknown> = {};
        const props: Schema = isObject(s.properties) ? s.properties : {};
        const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
        for (const [key, prop] of Object.entries(props)) {
          if (!required.has(key) && (cyclic || (isObject(prop) && prop.writeOnly === true))) continue;
          out[key] = value(prop, depth + 1, key);
        }
        for (const key of required) if (!(key in out)) out[key] = faker.lorem.word();
        if (isObject(s.additionalProperties) && !Object.keys(props).length && !cyclic) {
          const n = faker.number.int({ min: 1, max: 3 });
          for (let i = 0; i < n; i++) out[faker.lorem.word()] = value(s.additionalProperties, depth + 1);
        }
        return out;
      }
      case 'file':
      case 'string':
      default:
        return stringFor(s, name);
    }
  }

  return { value: (schema, name) => value(schema, 0, name) };
}
