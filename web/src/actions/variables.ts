// What the variables typeahead offers: the request's own variables (packages/sdk/src/chain/variables.ts),
// the account's global variables, the variables set by the steps above (each type's `sets`), and
// the modifiers a variable can end in (packages/sdk/src/chain/templating.ts).
// Imports name their .js files: this module also runs under Node (test/web), not only in vite.
import type { Step } from './model.js';
import type { ActionType } from './schema.js';

export interface Suggestion {
  /** What is inserted after the `$`. */
  insert: string;
  /** Whether the name is complete (a closing `$` follows) or a prefix to go on typing. */
  complete: boolean;
  label: string;
  detail: string;
  /** Its value when known: from the last "Test until here", a global variable, or the test request. */
  value?: string;
}

/** The request variables every chain starts with (docs/plugins.md). `<name>` is a placeholder. */
export const REQUEST_VARIABLES: Array<[string, string]> = [
  ['request.content', 'The body as sent'],
  ['request.method', 'GET, POST…'],
  ['request.url', 'The full URL'],
  ['request.path', 'The path after the token'],
  ['request.query', 'The query string'],
  ['request.query.<name>', 'One query parameter'],
  ['request.query_all.<name>', 'Every value of a query parameter (JSON list)'],
  ['request.header.<name>', 'One header (lower-case name)'],
  ['request.form.<name>', 'One form field'],
  ['request.file.<name>.content', 'An uploaded file’s content'],
  ['request.file.<name>.filename', 'An uploaded file’s name'],
  ['request.ip', 'The sender’s IP address'],
  ['request.user_agent', 'The User-Agent'],
  ['request.hostname', 'The host the request was sent to'],
  ['request.uuid', 'The request’s ID'],
  ['request.token_id', 'The token’s ID'],
  ['request.date', 'When it arrived'],
  ['request.timestamp', 'When it arrived (Unix seconds)'],
  ['request.size', 'Body size in bytes'],
  ['request.type', 'web, email or dns'],
  ['request.sender', 'E-mail: the sender'],
  ['request.subject', 'E-mail: the subject'],
  ['request.text_content', 'E-mail: the text part'],
  ['request.html_content', 'E-mail: the HTML part'],
  ['request.dns.name', 'DNS: the name looked up'],
];

const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The parts of a stored request (api.ts's CapturedRequest) its variables come from. */
export interface TestRequest {
  uuid: string;
  type: string;
  token_id: string;
  ip: string;
  hostname: string;
  method: string;
  user_agent: string;
  content: string;
  url: string;
  size: number;
  created_at: string;
  query: Record<string, unknown> | null;
  request: Record<string, unknown> | null;
  headers: Record<string, string[] | string>;
  sender?: string;
  subject?: string;
  text_content?: string | null;
  html_content?: string | null;
}

/**
 * The request variables of a stored request, as packages/sdk/src/chain/variables.ts makes them for a chain
 * (the families, `request.header.<name>`…, named after the request's own keys): shown as the
 * suggestions' values and offered as complete names.
 */
export function requestValues(r: TestRequest | undefined): Record<string, string> {
  if (!r) return {};
  const out: Record<string, string> = {
    'request.content': text(r.content),
    'request.method': r.method,
    'request.url': r.url,
    'request.ip': r.ip,
    'request.user_agent': text(r.user_agent),
    'request.hostname': r.hostname,
    'request.uuid': r.uuid,
    'request.token_id': r.token_id,
    'request.date': r.created_at,
    'request.size': String(r.size),
    'request.type': r.type,
  };
  for (const [k, v] of Object.entries(r.query ?? {})) out[`request.query.${k}`] = text(v);
  for (const [k, v] of Object.entries(r.headers ?? {})) out[`request.header.${k.toLowerCase()}`] = Array.isArray(v) ? v.join(', ') : text(v);
  for (const [k, v] of Object.entries(r.request ?? {})) out[`request.form.${k}`] = text(v);
  if (r.type === 'email') Object.assign(out, { 'request.sender': text(r.sender), 'request.subject': text(r.subject), 'request.text_content': text(r.text_content), 'request.html_content': text(r.html_content) });
  return out;
}

/** The modifiers of packages/sdk/src/chain/templating.ts (MODIFIERS), in the order the docs list them. */
export const MODIFIERS: Array<[string, string]> = [
  ['json', 'Escaped for a JSON string'],
  ['json_format', 'JSON, indented'],
  ['html_encode', 'HTML-escaped'],
  ['html_decode', 'HTML entities decoded'],
  ['html_strip', 'Tags removed'],
  ['base64_encode', 'Base64-encoded'],
  ['base64_decode', 'Base64-decoded'],
  ['url_encode', 'URL-encoded'],
  ['url_decode', 'URL-decoded'],
  ['upper', 'UPPER CASE'],
  ['lower', 'lower case'],
];

/** A parameter's name in a `sets` entry: its value, or the schema's default, or a description's "default x". */
function parameterValue(step: Step, type: ActionType | undefined, name: string): string | undefined {
  const v = step.parameters?.[name];
  if (typeof v === 'string' && v.trim()) return v.trim().replace(/^\$(.*)\$$/, '$1');
  const s = type?.schema.properties?.[name];
  if (typeof s?.default === 'string') return s.default;
  const m = /default:? ([A-Za-z_][\w.]*)/.exec(s?.description ?? '');
  return m?.[1];
}

/** The variables one step sets, its parameters filled in (`<variable_name>` -> `json`). */
export function variablesSetBy(step: Step, type: ActionType | undefined): Array<{ name: string; complete: boolean }> {
  const out: Array<{ name: string; complete: boolean }> = [];
  for (const entry of type?.sets ?? []) {
    let global = false;
    // A trailing note: `(global)` means a global variable; others (`(repeat)`) are only notes.
    let name = entry.replace(/\s*\(([^)]*)\)\s*$/, (_, note: string) => ((global = note === 'global'), ''));
    name = name.replace(/<([a-z_]+)>/g, (whole, p: string) => (type?.schema.properties?.[p] ? (parameterValue(step, type, p) ?? whole) : whole));
    if (/^</.test(name)) continue; // its name parameter is not filled in yet
    if (global) name = `global.${name}`;
    const cut = name.search(/<|\.\.\./);
    if (cut === -1) out.push({ name, complete: true });
    else out.push({ name: name.slice(0, cut), complete: false });
  }
  return out.filter((v, i, a) => v.name && a.findIndex((w) => w.name === v.name) === i);
}

export interface VariableContext {
  steps: Step[];
  types: Map<string, ActionType>;
  /** The account's global variables, with their values. */
  globals: Array<{ name: string; value?: string }>;
  /** The runtime variables after each step of the last test run, by step position (absent: not run). */
  tested?: Array<Record<string, string> | undefined>;
  /** `request.*` values of the request tests run on (name -> value). */
  request?: Record<string, string>;
}

/** The variables the last test run had set before step `index`: those after the closest earlier step it ran. */
export function testedBefore(ctx: VariableContext, index: number): Record<string, string> | undefined {
  for (let i = Math.min(index, ctx.tested?.length ?? 0) - 1; i >= 0; i--) if (ctx.tested![i]) return ctx.tested![i];
  return undefined;
}

/**
 * Everything a text field of step `index` can use, before filtering, in this order: the variables
 * the earlier steps set (declared by their types, then every name the last test run actually set),
 * global variables, and the request's variables. Each carries its value when one is known.
 */
export function availableVariables(ctx: VariableContext, index: number): Suggestion[] {
  const out: Suggestion[] = [];
  const known = testedBefore(ctx, index) ?? {};
  const listed = new Set<string>();
  ctx.steps.slice(0, index).forEach((s, i) => {
    if (s.disabled) return;
    const type = ctx.types.get(String(s.type));
    for (const v of variablesSetBy(s, type)) {
      const value = v.complete ? known[v.name] : undefined;
      listed.add(v.name);
      out.push({ insert: v.name, complete: v.complete, label: v.complete ? v.name : `${v.name}…`, detail: `Set by step ${i + 1} (${type?.title ?? s.type})`, ...(value !== undefined ? { value } : {}) });
    }
  });
  for (const name of Object.keys(known).sort(byPath)) {
    if (listed.has(name)) continue;
    out.push({ insert: name, complete: true, label: name, detail: 'Set in the last test', value: known[name]! });
  }
  for (const g of ctx.globals) out.push({ insert: `global.${g.name}`, complete: true, label: `global.${g.name}`, detail: 'Global variable', ...(g.value !== undefined ? { value: g.value } : {}) });
  const fixed = new Set(REQUEST_VARIABLES.map(([name]) => name));
  for (const [name, detail] of REQUEST_VARIABLES) {
    const cut = name.indexOf('<');
    const value = ctx.request?.[name];
    if (cut === -1) {
      out.push({ insert: name, complete: true, label: name, detail, ...(value !== undefined ? { value } : {}) });
      continue;
    }
    out.push({ insert: name.slice(0, cut), complete: false, label: name, detail });
    // The family's members the test request has (`request.header.content-type`), right after it.
    for (const [n, v] of Object.entries(ctx.request ?? {})) {
      if (n.startsWith(name.slice(0, cut)) && !fixed.has(n) && !n.slice(cut).includes('.')) out.push({ insert: n, complete: true, label: n, detail, value: v });
    }
  }
  return out;
}

/** Dotted names in document order: `a.2` before `a.10`, a parent before its children. */
function byPath(a: string, b: string): number {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    const [m, n] = [Number(x[i]), Number(y[i])];
    return Number.isInteger(m) && Number.isInteger(n) ? m - n : x[i]! < y[i]! ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * The suggestions for what was typed after a `$`: names starting with it, then names containing
 * it. After a dot, the keys under what comes before it (`json.` -> `json.order.total`) come first
 * and, when that is a complete name, the modifiers after them.
 */
export function suggest(all: Suggestion[], typed: string, limit = 30): Suggestion[] {
  const lower = typed.toLowerCase();
  const dot = typed.lastIndexOf('.');
  if (dot > 0) {
    const base = typed.slice(0, dot);
    const under = all.filter((s) => s.insert.toLowerCase().startsWith(lower) && s.insert.length > base.length);
    // A family's own entry (`json.` "Set by step 1") says keys go here; it steps aside for real ones.
    const real = under.filter((s) => s.complete || s.insert.toLowerCase() !== lower);
    const keys = real.length ? real : under;
    const known = all.some((s) => s.complete && s.insert === base) || MODIFIERS.some(([m]) => base.endsWith(`.${m}`));
    const part = typed.slice(dot + 1).toLowerCase();
    const mods = known ? MODIFIERS.filter(([m]) => m.startsWith(part)).map(([m, d]) => ({ insert: `${base}.${m}`, complete: true, label: `.${m}`, detail: `Modifier: ${d}` })) : [];
    if (keys.length || mods.length) return [...keys.slice(0, limit), ...mods];
  }
  const starts = all.filter((s) => s.insert.toLowerCase().startsWith(lower));
  const contains = all.filter((s) => !s.insert.toLowerCase().startsWith(lower) && s.label.toLowerCase().includes(lower));
  return [...starts, ...contains].slice(0, limit);
}

/** The partial variable name before the caret (`$req|` -> `req`), or null when not inside one. */
export function partialAt(text: string, caret: number): { start: number; typed: string } | null {
  const lineStart = text.lastIndexOf('\n', caret - 1) + 1;
  const before = text.slice(lineStart, caret);
  // Count unescaped dollars: an odd count means the caret is inside `$...`.
  const dollars = [...before.matchAll(/(?<!\\)\$/g)];
  if (dollars.length % 2 === 0) return null;
  const last = dollars[dollars.length - 1]!;
  const typed = before.slice(last.index! + 1);
  if (/\s/.test(typed)) return null;
  return { start: lineStart + last.index!, typed };
}
