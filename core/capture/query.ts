// The query string of an HTTP capture. `query` is the seed's string -> string map, so a repeated
// key (`?tags[]=a&tags[]=b`) keeps its last value there; every value is kept in `query_all`
// (key -> values, in order). `query_all` is stored (in the record's `extra`) only when it says more
// than `query`, so a capture without repeated keys stores and costs nothing more; the API derives
// it for the others (queryAllOf).

/** Key -> every value, in the order sent. */
export type QueryValues = Record<string, string[]>;

/**
 * The record's `query` (null without a query string). When a key repeats, also sets
 * `extra.query_all`.
 */
export function queryOf(search: string, extra: Record<string, unknown>): Record<string, string> | null {
  if (!search) return null;
  const params = new URLSearchParams(search);
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  // Fewer keys than pairs: a key repeats (or is `__proto__`, which a plain object does not keep).
  if (Object.keys(out).length < params.size) extra.query_all = allValues(params);
  return out;
}

function allValues(params: URLSearchParams): QueryValues {
  const all = new Map<string, string[]>();
  for (const [k, v] of params) {
    const values = all.get(k);
    if (values) values.push(v);
    else all.set(k, [v]);
  }
  return Object.fromEntries(all);
}

/** Every value of every query key: what was stored, or else each `query` value on its own. */
export function queryAllOf(query: Record<string, string> | null, extra: Record<string, unknown>): QueryValues | null {
  const stored = extra.query_all as QueryValues | undefined;
  if (stored) return stored;
  if (!query) return null;
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]]));
}
