import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { unknownKeys } from './unknown-keys.js';

describe('unknownKeys', () => {
  const part = z.object({ name: z.string().nullish(), content: z.string().optional() });
  const schema = z.object({
    multipart: z.array(part).nullish(),
    pairs: z.array(z.object({ name: z.string(), value: z.string() }).transform((p) => [p.name, p.value])).optional(),
    either: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]).optional(),
    open: z.looseObject({ x: z.string() }).optional(),
    map: z.record(z.string(), z.object({ v: z.string() })).optional(),
    lazy: z.lazy(() => z.object({ deep: z.object({ k: z.string() }) })).optional(),
  });

  it('names each unknown key of a nested object by its path, not the top level', () => {
    expect(
      unknownKeys(schema, {
        extra: 1,
        multipart: [
          { name: 'f', content: 'c' },
          { name: 'f', value: 'v' },
        ],
      }),
    ).toEqual(['multipart[1].value']);
    expect(unknownKeys(schema, { pairs: [{ name: 'a', value: 'b', other: 'c' }] })).toEqual(['pairs[0].other']);
    expect(unknownKeys(schema, { map: { one: { v: 'x', w: 'y' } } })).toEqual(['map.one.w']);
    expect(unknownKeys(schema, { lazy: { deep: { k: 'x', j: 'y' } } })).toEqual(['lazy.deep.j']);
  });

  it('accepts what one union option declares, and any key of an open object', () => {
    expect(unknownKeys(schema, { either: { b: 'x' } })).toEqual([]);
    expect(unknownKeys(schema, { either: { c: 'x' } })).toEqual(['either.c']);
    expect(unknownKeys(schema, { open: { x: 'a', y: 'b' } })).toEqual([]);
  });

  it('checks the top level when asked, and leaves values of other types alone', () => {
    expect(unknownKeys(schema, { extra: 1 }, true)).toEqual(['extra']);
    expect(unknownKeys(schema, { multipart: 'not an array', pairs: null })).toEqual([]);
  });
});
