// Keys an action's nested parameter objects (multipart parts, name/value pairs, conditions...) do
// not know. Checked when an action is written (parameterErrors), never when a saved one runs: a
// stored action with a key an older version accepted still loads and runs. The schemas stay as
// they are (zod strips unknown keys); this walks the schema beside the value.
import type { z } from 'zod';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** How deep the walk follows a value (the parameters' own parsers bound their depth too). */
const MAX_DEPTH = 32;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The paths (`multipart[0].value`) of keys in `value`'s nested objects that `schema` does not
 * declare. The top level is not checked (`topLevel: false`): an action's own parameter object
 * is the host's to judge. An object with a catch-all (z.looseObject, z.record) takes any key.
 */
export function unknownKeys(schema: z.ZodType, value: unknown, topLevel = false): string[] {
  const found: string[] = [];
  walk(schema, value, '', topLevel, 0, found);
  return found;
}

function walk(schema: z.ZodType | undefined, value: unknown, path: string, check: boolean, depth: number, found: string[]): void {
  if (!schema || depth > MAX_DEPTH || value === null || value === undefined) return;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return walk(def.innerType, value, path, check, depth, found);
    case 'lazy':
      return walk(def.getter?.(), value, path, check, depth, found);
    case 'pipe':
      // A transform reads the value as given: the schema after it sees something else.
      return walk(defOf(def.in!).type === 'transform' ? def.out : def.in, value, path, check, depth, found);
    case 'object': {
      if (!isObject(value)) return;
      const shape = def.shape ?? {};
      const open = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
      for (const [key, v] of Object.entries(value)) {
        const child = Object.hasOwn(shape, key) ? shape[key] : undefined;
        const at = path ? `${path}.${key}` : key;
        if (child) walk(child, v, at, true, depth + 1, found);
        else if (open) walk(def.catchall, v, at, true, depth + 1, found);
        else if (check) found.push(at);
      }
      return;
    }
    case 'array':
      if (Array.isArray(value)) value.forEach((v, i) => walk(def.element, v, `${path}[${i}]`, true, depth + 1, found));
      return;
    case 'record':
      if (isObject(value)) for (const [key, v] of Object.entries(value)) walk(def.valueType, v, path ? `${path}.${key}` : key, true, depth + 1, found);
      return;
    case 'union': {
      // The value's keys are unknown only if every option that declares objects finds some.
      let best: string[] | undefined;
      for (const option of def.options ?? []) {
        const mine: string[] = [];
        walk(option, value, path, check, depth, mine);
        if (!mine.length) return;
        if (!best || mine.length < best.length) best = mine;
      }
      if (best) found.push(...best);
      return;
    }
    case 'intersection': {
      // Either side may declare a key: only keys neither side knows are reported.
      const left: string[] = [];
      const right: string[] = [];
      walk(def.left, value, path, check, depth, left);
      walk(def.right, value, path, check, depth, right);
      found.push(...left.filter((p) => right.includes(p)));
      return;
    }
    default:
      return;
  }
}
