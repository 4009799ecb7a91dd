// Requests every fuzz run sends first, before the drawn ones: shapes that broke the service (each a
// regression example) and the known dangerous ones, so a short run still covers them.
import { deepJson, type Body } from './hostile.js';
import type { Batch, Drawn, Operation } from './fuzzer.js';

const text = (s: string) => Buffer.from(s, 'utf8');
const json = (s: string, what: string): Body => ({ bytes: text(s), contentType: 'application/json', what });

/** One request: the operation `METHOD /path` of the document, as `caller`, with the parts given. */
type Example = Partial<Omit<Drawn, 'op'>> & { route: string };

const EXAMPLES: Example[] = [
  // Deep documents where a workflow or schedule document is parsed.
  { route: 'PUT /token/{token_id}/workflow', body: { bytes: text(`apiVersion: ${'['.repeat(800)}${']'.repeat(800)}`), contentType: 'text/yaml', what: 'a YAML flow sequence nested 800 deep' } },
  { route: 'PUT /token/{token_id}/workflow', body: json(`{"apiVersion":"capture/v1","kind":"TokenActions","metadata":${deepJson(12_000, 'array')}}`, 'field metadata as arrays nested 12000 deep') },
  { route: 'PUT /schedules/{schedule_id}/document', body: json(`{"apiVersion":"capture/v1","kind":"Schedule","metadata":${deepJson(2_500, 'object')}}`, 'field metadata as objects nested 2500 deep') },
  // Action parameters are stored with the token's workflow.
  { route: 'POST /token/{token_id}/actions', body: json(`{"type":"stop","parameters":${deepJson(10_000, 'object')}}`, 'field parameters as objects nested 10000 deep') },
  { route: 'POST /token/{token_id}/workflow/test', body: json(`{"document":${JSON.stringify(`apiVersion: ${'['.repeat(800)}${']'.repeat(800)}`)}}`, 'a YAML flow sequence nested 800 deep in field document') },
  // A search query nested deep, on the list and the bulk delete.
  { route: 'GET /token/{token_id}/requests', query: `query=${'('.repeat(3_000)}a${')'.repeat(3_000)}` },
  { route: 'DELETE /token/{token_id}/requests', query: `query=${encodeURIComponent('NOT '.repeat(5_000))}x` },
  // A capture with a deep body, and traversal out of the page's folder.
  { route: 'POST /{token_id}/{path}', params: { token_id: { fixture: 'anonToken' }, path: { raw: '..%2f..%2fetc%2fpasswd' } }, body: json(deepJson(100_000, 'array'), 'arrays nested 100000 deep') },
  { route: 'GET /app/{path}', params: { path: { raw: '..%2fsecret.txt' } } },
  { route: 'GET /app/{path}', params: { path: { raw: '%2e%2e/%2e%2e/secret.txt' } } },
  // The token password opens the token for reading only.
  { route: 'PUT /token/{token_id}', caller: 'password', params: { token_id: { fixture: 'lockedToken' } }, body: json('{"default_status":201}', 'a fitting body') },
  { route: 'DELETE /token/{token_id}/requests', caller: 'password', viaHeader: true, params: { token_id: { fixture: 'lockedToken' } } },
];

/** The examples as batches of one request each (fc.check's `examples`). */
export function corpus(ops: Operation[]): Array<[Batch]> {
  return EXAMPLES.map(({ route, ...parts }) => {
    const op = ops.findIndex((o) => `${o.method} ${o.path}` === route);
    if (op < 0) throw new Error(`fuzz corpus: no operation ${route} in /openapi.json`);
    const names = [...ops[op]!.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const defaults: Record<string, Drawn['params'][string]> = { token_id: { fixture: 'ownToken' }, schedule_id: { fixture: 'ownSchedule' }, path: { raw: 'x' } };
    const params = Object.fromEntries(names.map((n) => [n, parts.params?.[n] ?? defaults[n] ?? { matching: true }]));
    const drawn: Drawn = { op, method: ops[op]!.method, caller: 'user', query: '', headers: [], body: null, viaHeader: false, variant: 0, ...parts, params };
    return [{ admin: false, requests: [drawn] }];
  });
}
