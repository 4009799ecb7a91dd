// A small server speaking PostgREST's documented HTTP protocol (what @supabase/supabase-js talks
// to under /rest/v1), over in-memory tables: GET with `select` and `col=op.value` filters, `order`,
// `limit`/`offset`; POST (one row or many) with `Prefer: return=representation`; PATCH and DELETE
// with filters; `Accept: application/vnd.pgrst.object+json` for a single row; `Prefer:
// count=exact` with Content-Range; `apikey` and `Authorization: Bearer` checked. Errors are
// PostgREST's JSON ({code, message, details, hint}). Every request is recorded for the tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Row = Record<string, unknown>;

export interface SeenRequest {
  method: string;
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface PostgrestServer {
  url: string;
  key: string;
  tables: Map<string, Row[]>;
  seen: SeenRequest[];
  close(): Promise<void>;
}

type Filter = (row: Row) => boolean;

function parseList(v: string): string[] {
  return v
    .replace(/^\(|\)$/g, '')
    .split(',')
    .map((x) => x.replace(/^"|"$/g, ''));
}

function compare(a: unknown, b: string): number {
  const n = Number(b);
  if (typeof a === 'number' && !Number.isNaN(n)) return a - n;
  return String(a) < b ? -1 : String(a) > b ? 1 : 0;
}

function likeRegex(pattern: string, flags: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/[*%]/g, '.*')}$`, flags);
}

/** `op.value` (optionally `not.op.value`) on one column. */
function filterOf(column: string, spec: string): Filter {
  const negate = spec.startsWith('not.');
  if (negate) spec = spec.slice(4);
  const dot = spec.indexOf('.');
  const op = spec.slice(0, dot);
  const value = spec.slice(dot + 1);
  let test: Filter;
  switch (op) {
    case 'eq':
      test = (r) => compare(r[column], value) === 0 && r[column] !== null && r[column] !== undefined;
      break;
    case 'neq':
      test = (r) => compare(r[column], value) !== 0;
      break;
    case 'gt':
      test = (r) => compare(r[column], value) > 0;
      break;
    case 'gte':
      test = (r) => compare(r[column], value) >= 0;
      break;
    case 'lt':
      test = (r) => compare(r[column], value) < 0;
      break;
    case 'lte':
      test = (r) => compare(r[column], value) <= 0;
      break;
    case 'like':
      test = (r) => likeRegex(value, '').test(String(r[column]));
      break;
    case 'ilike':
      test = (r) => likeRegex(value, 'i').test(String(r[column]));
      break;
    case 'is':
      test = (r) => (value === 'null' ? r[column] === null || r[column] === undefined : String(r[column]) === value);
      break;
    case 'in': {
      const list = parseList(value);
      test = (r) => list.some((v) => compare(r[column], v) === 0);
      break;
    }
    default:
      throw Object.assign(new Error(`"failed to parse filter (${op}.${value})" (line 1, column 1)`), { code: 'PGRST100' });
  }
  return negate ? (r) => !test(r) : test;
}

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);

export async function startPostgrest(key = 'test-anon-key', tables: Record<string, Row[]> = {}): Promise<PostgrestServer> {
  const state = new Map(Object.entries(tables).map(([k, v]) => [k, v.map((r) => ({ ...r }))]));
  const seen: SeenRequest[] = [];

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: string, message: string) => send(res, status, { code, details: null, hint: null, message });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://localhost');
    seen.push({ method: req.method ?? '', path: url.pathname, query: url.search, headers: req.headers, body });

    if (req.headers.apikey !== key || req.headers.authorization !== `Bearer ${key}`) return fail(res, 401, 'PGRST301', 'Invalid API key');
    const m = /^\/rest\/v1\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (!m) return fail(res, 404, 'PGRST125', 'Invalid path specified in request URL');
    const rows = state.get(m[1]!);
    if (!rows) return fail(res, 404, '42P01', `relation "public.${m[1]}" does not exist`);

    const filters: Filter[] = [];
    try {
      for (const [k, v] of url.searchParams) if (!RESERVED.has(k)) filters.push(filterOf(k, v));
    } catch (e) {
      return fail(res, 400, (e as { code: string }).code, (e as Error).message);
    }
    const matches = (r: Row) => filters.every((f) => f(r));
    const prefer = String(req.headers.prefer ?? '');
    const representation = prefer.includes('return=representation');
    const select = url.searchParams.get('select');
    const project = (r: Row): Row => (select && select !== '*' ? Object.fromEntries(select.split(',').map((c) => [c, r[c] ?? null])) : { ...r });
    const single = String(req.headers.accept ?? '').includes('application/vnd.pgrst.object+json');
    const answer = (status: number, list: Row[], total?: number) => {
      const headers: Record<string, string> = {};
      if (prefer.includes('count=exact')) headers['Content-Range'] = `${list.length ? `0-${list.length - 1}` : '*'}/${total ?? list.length}`;
      if (single) {
        if (list.length !== 1) return send(res, 406, { code: 'PGRST116', details: `The result contains ${list.length} rows`, hint: null, message: 'JSON object requested, multiple (or no) rows returned' });
        return send(res, status, list[0], headers);
      }
      return send(res, status, list, headers);
    };

    switch (req.method) {
      case 'GET': {
        let list = rows.filter(matches);
        const total = list.length;
        const order = url.searchParams.get('order');
        if (order) {
          const [col, dir] = order.split('.');
          list = [...list].sort((a, b) => (compare(a[col!], String(b[col!])) || 0) * (dir === 'desc' ? -1 : 1));
        }
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = url.searchParams.has('limit') ? Number(url.searchParams.get('limit')) : Infinity;
        return answer(200, list.slice(offset, offset + limit).map(project), total);
      }
      case 'POST': {
        let input: unknown;
        try {
          input = JSON.parse(body);
        } catch {
          return fail(res, 400, 'PGRST102', 'Empty or invalid json');
        }
        const list = (Array.isArray(input) ? input : [input]) as Row[];
        const added = list.map((r) => ({ id: rows.reduce((n, x) => Math.max(n, Number(x.id) || 0), 0) + 1, ...r }));
        for (const r of added) {
          if (rows.some((x) => x.id === r.id)) return fail(res, 409, '23505', `duplicate key value violates unique constraint "${m[1]}_pkey"`);
          rows.push(r);
        }
        return representation ? answer(201, added.map(project)) : send(res, 201, undefined);
      }
      case 'PATCH': {
        let patch: Row;
        try {
          patch = JSON.parse(body) as Row;
        } catch {
          return fail(res, 400, 'PGRST102', 'Empty or invalid json');
        }
        const changed = rows.filter(matches);
        for (const r of changed) Object.assign(r, patch);
        return representation ? answer(200, changed.map(project)) : send(res, 204, undefined);
      }
      case 'DELETE': {
        const gone = rows.filter(matches);
        state.set(
          m[1]!,
          rows.filter((r) => !matches(r)),
        );
        return representation ? answer(200, gone.map(project)) : send(res, 204, undefined);
      }
      default:
        return fail(res, 405, 'PGRST117', `Unsupported HTTP method: ${req.method}`);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => fail(res, 500, 'XX000', String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    tables: state,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
