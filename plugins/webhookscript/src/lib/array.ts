// array.md.
import { randomInt } from 'node:crypto';
import { fail } from '../lang/errors.js';
import { WsArray, isTruthy, looseEquals, normKey, order, toText, type Key, type Value } from '../lang/values.js';
import { arg, arr, bool, fn, int, optInt, str, type Library } from './host.js';
import { shuffle } from './string.js';

const eq = (a: Value, b: Value) => {
  try {
    return looseEquals(a, b, (re, s) => re.test(s));
  } catch {
    return false;
  }
};

/** PHP array_slice: int keys renumbered unless preserve_keys, string keys kept. */
function slice(a: WsArray, offset: number, length: number | null, preserve: boolean): WsArray {
  const entries = [...a.map];
  const start = offset < 0 ? Math.max(0, entries.length + offset) : offset;
  const end = length === null ? entries.length : length < 0 ? entries.length + length : start + length;
  const out = new WsArray();
  for (const [k, v] of entries.slice(start, Math.max(start, end))) {
    if (typeof k === 'string' || preserve) out.set(k, v);
    else out.push(v);
  }
  return out;
}

/** Orders numbers and strings; values of other types by their text. */
function byValue(x: Value, y: Value): number {
  try {
    return order(x, y);
  } catch {
    return toText(x) < toText(y) ? -1 : toText(x) > toText(y) ? 1 : 0;
  }
}

export function arrayLibrary(): Library {
  return {
    array_contains: (_c, a) => {
      const needle = arg(a, 1);
      return arr(a, 0)
        .values()
        .some((v) => eq(v, needle));
    },
    array_has: (_c, a) => arr(a, 0).has(normalise(arg(a, 1))),
    array_get: (_c, a) => {
      const v = arr(a, 0).get(normalise(arg(a, 1)));
      return v === undefined ? arg(a, 2) : v;
    },
    array_set: (_c, a) => {
      arr(a, 0).set(normalise(arg(a, 1)), arg(a, 2));
      return arg(a, 2);
    },
    array_delete: (_c, a) => arr(a, 0).delete(normalise(arg(a, 1))),
    array_chunk: (_c, a) => {
      const size = int(a, 1);
      if (size < 1) fail('the chunk size must be at least 1');
      const preserve = bool(a, 2);
      const out = new WsArray();
      let chunk: WsArray | null = null;
      for (const [k, v] of arr(a, 0).map) {
        if (!chunk || chunk.size >= size) {
          chunk = new WsArray();
          out.push(chunk);
        }
        if (preserve) chunk.set(k, v);
        else chunk.push(v);
      }
      return out;
    },
    array_copy: (_c, a) => arr(a, 0).copy(),
    array_diff: (_c, a) => {
      const other = arr(a, 1).values();
      const out = new WsArray();
      for (const [k, v] of arr(a, 0).map) if (!other.some((o) => eq(o, v))) out.set(k, v);
      return out;
    },
    array_join: (_c, a) =>
      arr(a, 0)
        .values()
        .map(toText)
        .join(a.length > 1 ? str(a, 1) : ''),
    array_keys: (_c, a) => WsArray.list(arr(a, 0).keys()),
    array_values: (_c, a) => WsArray.list(arr(a, 0).values()),
    array_length: (_c, a) => arr(a, 0).size,
    array_map: async (c, a) => {
      const f = fn(a, 1);
      const out = new WsArray();
      for (const [k, v] of arr(a, 0).map) out.set(k, await c.invoke(f, f.arity === 1 ? [v] : [v, k]));
      return out;
    },
    array_filter: async (c, a) => {
      const f = a.length > 1 ? fn(a, 1) : null;
      const out = new WsArray();
      for (const [k, v] of arr(a, 0).map) if (f ? isTruthy(await c.invoke(f, f.arity === 1 ? [v] : [v, k])) : isTruthy(v)) out.set(k, v);
      return out;
    },
    array_merge: (_c, a) => {
      const out = new WsArray();
      a.forEach((_, i) => {
        for (const [k, v] of arr(a, i).map) {
          if (typeof k === 'string') out.set(k, v);
          else out.push(v);
        }
      });
      return out;
    },
    array_number_of: (_c, a) => {
      const needle = arg(a, 1);
      return arr(a, 0)
        .values()
        .filter((v) => eq(v, needle)).length;
    },
    array_pop: (_c, a) => {
      const list = arr(a, 0);
      const keys = list.keys();
      if (!keys.length) return null;
      const last = keys[keys.length - 1];
      const v = list.get(last)!;
      list.delete(last);
      return v;
    },
    array_shift: (_c, a) => {
      const list = arr(a, 0);
      const keys = list.keys();
      if (!keys.length) return null;
      const v = list.get(keys[0])!;
      const rest = [...list.map].slice(1);
      list.map.clear();
      const rebuilt = new WsArray();
      for (const [k, x] of rest) {
        if (typeof k === 'string') rebuilt.set(k, x);
        else rebuilt.push(x);
      }
      for (const [k, x] of rebuilt.map) list.set(k, x);
      return v;
    },
    array_push: (_c, a) => {
      const list = arr(a, 0);
      for (const v of a.slice(1)) list.push(v);
      return arg(a, a.length - 1);
    },
    array_random: (_c, a) => {
      const values = arr(a, 0).values();
      return values.length ? values[randomInt(0, values.length)] : null;
    },
    array_range: (_c, a) => slice(arr(a, 0), int(a, 1), optInt(a, 2) || null, bool(a, 3)),
    array_slice: (_c, a) => slice(arr(a, 0), int(a, 1), optInt(a, 2), bool(a, 3)),
    array_reverse: (_c, a) => {
      const out = new WsArray();
      for (const [k, v] of [...arr(a, 0).map].reverse()) {
        if (typeof k === 'string' || bool(a, 1)) out.set(k, v);
        else out.push(v);
      }
      return out;
    },
    array_shuffle: (_c, a) => WsArray.list(shuffle(arr(a, 0).values())),
    /** Sorted by value, keys kept (PHP asort); an optional function compares two values. */
    array_sort: async (c, a) => {
      const entries = [...arr(a, 0).map];
      if (a.length > 1 && arg(a, 1) !== null) {
        const f = fn(a, 1);
        // Merge sort so the comparator (a script function) may be awaited.
        const cmp = async (x: [Key, Value], y: [Key, Value]) => {
          const r = await c.invoke(f, [x[1], y[1]]);
          return typeof r === 'number' ? r : r === true ? 1 : 0;
        };
        const sorted = await mergeSort(entries, cmp);
        return WsArray.entries(sorted);
      }
      return WsArray.entries(entries.sort((x, y) => byValue(x[1], y[1])));
    },
    array_splice: (_c, a) => {
      const entries = arr(a, 0).values();
      const offset = int(a, 1);
      const start = offset < 0 ? Math.max(0, entries.length + offset) : Math.min(offset, entries.length);
      const length = optInt(a, 2);
      const count = length === null ? entries.length - start : length < 0 ? Math.max(0, entries.length + length - start) : length;
      const rep = arg(a, 3);
      const insert = rep === null ? [] : rep instanceof WsArray ? rep.values() : [rep];
      entries.splice(start, count, ...insert);
      return WsArray.list(entries);
    },
    array_sum: (_c, a) =>
      arr(a, 0)
        .values()
        .reduce<number>((s, v) => s + (typeof v === 'number' ? v : Number(toText(v)) || 0), 0),
    array_unique: (_c, a) => {
      const out = new WsArray();
      const seen: Value[] = [];
      for (const [k, v] of arr(a, 0).map) {
        if (seen.some((s) => eq(s, v))) continue;
        seen.push(v);
        out.set(k, v);
      }
      return out;
    },
    to_array: (_c, a) => {
      const v = arg(a, 0);
      if (v instanceof WsArray) return v;
      return v === null ? new WsArray() : WsArray.list([v]);
    },
  };
}

const normalise = (k: Value): Key => normKey(k);

async function mergeSort<T>(list: T[], cmp: (a: T, b: T) => Promise<number>): Promise<T[]> {
  if (list.length < 2) return list;
  const mid = list.length >> 1;
  const left = await mergeSort(list.slice(0, mid), cmp);
  const right = await mergeSort(list.slice(mid), cmp);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) out.push((await cmp(left[i], right[j])) <= 0 ? left[i++] : right[j++]);
  return out.concat(left.slice(i), right.slice(j));
}
