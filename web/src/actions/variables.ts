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
  globals: string[];
}

/** Everything a text field of step `index` can use, before filtering. */
export function availableVariables(ctx: VariableContext, index: number): Suggestion[] {
  const out: Suggestion[] = [];
  ctx.steps.slice(0, index).forEach((s, i) => {
    if (s.disabled) return;
    const type = ctx.types.get(String(s.type));
    for (const v of variablesSetBy(s, type)) {
      out.push({ insert: v.name, complete: v.complete, label: v.complete ? v.name : `${v.name}…`, detail: `Set by step ${i + 1} (${type?.title ?? s.type})` });
    }
  });
  for (const g of ctx.globals) out.push({ insert: `global.${g}`, complete: true, label: `global.${g}`, detail: 'Global variable' });
  for (const [name, detail] of REQUEST_VARIABLES) {
    const cut = name.indexOf('<');
    out.push(cut === -1 ? { insert: name, complete: true, label: name, detail } : { insert: name.slice(0, cut), complete: false, label: name, detail });
  }
  return out;
}

/**
 * The suggestions for what was typed after a `$`: names containing it (those starting with it
 * first), or the modifiers once a known name is followed by a dot.
 */
export function suggest(all: Suggestion[], typed: string, limit = 30): Suggestion[] {
  const lower = typed.toLowerCase();
  const dot = typed.lastIndexOf('.');
  if (dot > 0) {
    const base = typed.slice(0, dot);
    const known = all.some((s) => s.complete && s.insert === base) || MODIFIERS.some(([m]) => base.endsWith(`.${m}`));
    if (known) {
      const part = typed.slice(dot + 1).toLowerCase();
      const mods = MODIFIERS.filter(([m]) => m.startsWith(part)).map(([m, d]) => ({ insert: `${base}.${m}`, complete: true, label: `.${m}`, detail: `Modifier: ${d}` }));
      if (mods.length) return mods;
    }
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
