// Redaction before storage: rules that mask header values, query and form fields, JSON fields and
// any text matching a pattern, applied to a capture before it is stored, published or exported.
// One engine for both users: the capture pipeline (a token's `redaction` setting) and the `redact`
// action (rules from within a chain, whose schemas are the SDK's: @capture/sdk/redaction). It knows
// requests only as plain data (RedactableRequest).
import { isUtf8 } from 'node:buffer';
import { JSONPath } from 'jsonpath-plus';
import { z } from 'zod';
import { compileRules, DEFAULT_REPLACEMENT, MAX_REDACTION_RULES, RedactionRuleSchema, type ActionRedactionRule, type CompiledRule, type RedactionRule } from '@capture/sdk/redaction';
import { REGEX_TIMEOUT_MS, RegexTimeout } from '@capture/sdk/regex';
export {
  type ActionRedactionRule,
  ActionRedactionRuleSchema,
  compileRules,
  type CompiledRule,
  DEFAULT_REPLACEMENT,
  jsonPathProblem,
  luhnValid,
  REDACTION_PRESETS,
  type RedactionRule,
  RedactionRuleSchema,
} from '@capture/sdk/redaction';

/** A token's `redaction` setting. */
export const RedactionSettingsSchema = z
  .object({
    rules: z.array(RedactionRuleSchema).max(MAX_REDACTION_RULES),
    replacement: z.string().max(200).default(DEFAULT_REPLACEMENT).describe('Mask text of the rules that set none'),
  })
  .strict();
export type RedactionSettings = z.output<typeof RedactionSettingsSchema>;

/** What the stored request records of one rule that masked something; never the value. */
export interface RedactionEntry {
  /** Whose rule: the token's setting, or a `redact` action of the chain. */
  source: 'token' | 'action';
  /** The rule's index in the token's rules or in the action's `rules`. */
  rule: number;
  /** The `redact` action's UUID (source `action`). */
  action?: string;
  kind: RedactionRule['kind'];
  /** Header, query or form field name, JSONPath, preset name, or the pattern. */
  target: string;
  /** How many values or matches were masked. */
  count: number;
  /** Set when the rule could not run as written (a pattern that timed out): the text it was to search is masked whole. */
  error?: string;
}

export const RedactionEntrySchema = z.object({
  source: z.enum(['token', 'action']),
  rule: z.number().int(),
  action: z.string().optional(),
  kind: z.enum(['header', 'query', 'form', 'json', 'regex', 'preset']),
  target: z.string(),
  count: z.number().int(),
  error: z.string().optional(),
});

/** The parts of a captured request that redaction reads and rewrites (a store record fits). */
export interface RedactableRequest {
  url: string;
  user_agent: string;
  content_type: string | null;
  headers: Record<string, string[]>;
  query: Record<string, string> | null;
  form: Record<string, unknown> | null;
  body: Buffer;
  size: number;
  files: Array<{ id: string; size: number }>;
  custom_action_output: string[];
  custom_action_errors: unknown[];
  /** Channel fields (e-mail text and HTML, DNS...), `query_all`, the sent response; `redactions` is added here. */
  extra: Record<string, unknown>;
}

const compiledSettings = new WeakMap<RedactionSettings, CompiledRule[]>();
export function compileSettings(settings: RedactionSettings): CompiledRule[] {
  let compiled = compiledSettings.get(settings);
  if (!compiled) compiledSettings.set(settings, (compiled = compileRules(settings.rules, settings.replacement ?? DEFAULT_REPLACEMENT)));
  return compiled;
}

/** Whether the rule applies before Custom Actions run (they then see the value masked). */
export function hidesFromActions(rule: CompiledRule): boolean {
  return 'actions_see_original' in rule.rule && rule.rule.actions_see_original === false;
}

// ---------------------------------------------------------------- applying

function targetOf(rule: RedactionRule | ActionRedactionRule): string {
  switch (rule.kind) {
    case 'header':
    case 'query':
    case 'form':
      return rule.kind === 'header' ? rule.name.toLowerCase() : rule.name;
    case 'json':
      return rule.path;
    case 'regex':
      return rule.pattern;
    case 'preset':
      return rule.preset;
  }
}

/** Masked values shorter than this are not searched for elsewhere in the request (a `1` would mask every digit). */
export const MIN_ECHO_LENGTH = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How a value is written percent-encoded: as encodeURIComponent writes it, and with `+` for spaces (forms). */
function encodedForms(value: string): string[] {
  const encoded = encodeURIComponent(value);
  return encoded === value ? [] : [encoded, encoded.replace(/%20/g, '+')];
}

/** The strings and numbers of a JSON value, as text. */
function collectLeaves(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number') out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) collectLeaves(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) collectLeaves(x, out);
}

const decodeComponent = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

const isUrlencoded = (contentType: string | null): boolean => contentType !== null && /^application\/x-www-form-urlencoded/i.test(contentType);

/**
 * Applies a text mask to each name and value of an urlencoded body, decoded, so a value written
 * `jane%40example.com` or `a+b` is searched as the text it stands for. A part that changed is
 * written back encoded (the mask's `&`, `=`, `+`, `%` never split or join pairs); the others keep
 * their exact bytes.
 */
function maskUrlencodedText(text: string, f: (s: string) => string): string {
  const maskPart = (part: string): string => {
    const decoded = decodeComponent(part);
    const masked = f(decoded);
    if (masked === decoded) return part;
    // Written as sent: plain parts stay plain, encoded ones are encoded as forms are.
    return decoded === part ? masked.replace(/[%&=+]/g, (c) => encodeURIComponent(c)) : encodeURIComponent(masked).replace(/%20/g, '+');
  };
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? maskPart(pair) : `${maskPart(pair.slice(0, eq))}=${maskPart(pair.slice(eq + 1))}`;
    })
    .join('&');
}

/** A body as text for matching: UTF-8 when it is, else byte for byte (latin1), so patterns of ASCII still match. */
function bodyText(b: Buffer): { text: string; encoding: 'utf8' | 'latin1' } {
  return isUtf8(b) ? { text: b.toString('utf8'), encoding: 'utf8' } : { text: b.toString('latin1'), encoding: 'latin1' };
}

/** Maps every string in a JSON-like value (plain objects and arrays; Buffers and others kept). */
function mapStrings(value: unknown, f: (s: string) => string, skip?: (key: string) => boolean): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = mapStrings(value[i], f);
    return value;
  }
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!skip?.(k)) o[k] = mapStrings(o[k], f);
    return o;
  }
  return value;
}

/** Masks the values of `name` in urlencoded pairs (a query string or form body); other pairs keep their encoding. */
function maskPairs(text: string, name: string, mask: string): { text: string; count: number } {
  const pairs = text.split('&');
  let count = 0;
  for (let i = 0; i < pairs.length; i++) {
    const eq = pairs[i]!.indexOf('=');
    const key = eq < 0 ? pairs[i]! : pairs[i]!.slice(0, eq);
    if (decodeComponent(key) === name) {
      pairs[i] = `${key}=${encodeURIComponent(mask)}`;
      count++;
    }
  }
  return count ? { text: pairs.join('&'), count } : { text, count: 0 };
}

/** The multipart boundary of a content type, if any. */
function boundaryOf(contentType: string | null): string | null {
  if (!contentType || !/^multipart\//i.test(contentType)) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** Replaces the values of the non-file parts named `name` in a multipart body; returns the count. */
function maskMultipartField(body: string, boundary: string, name: string, mask: string): { body: string; count: number } {
  const delimiter = `--${boundary}`;
  const pieces = body.split(delimiter);
  let count = 0;
  for (let i = 1; i < pieces.length; i++) {
    const part = pieces[i]!;
    const headEnd = part.indexOf('\r\n\r\n');
    if (headEnd < 0) continue;
    const head = part.slice(0, headEnd);
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? '';
    if (/\bfilename\*?=/i.test(disposition)) continue;
    const n = /\bname="((?:[^"\\]|\\.)*)"/i.exec(disposition)?.[1] ?? /\bname=([^;\s]+)/i.exec(disposition)?.[1];
    if (n !== name) continue;
    const valueEnd = part.endsWith('\r\n') ? part.length - 2 : part.length;
    pieces[i] = head + '\r\n\r\n' + mask + part.slice(valueEnd);
    count++;
  }
  return count ? { body: pieces.join(delimiter), count } : { body, count: 0 };
}

export interface RedactionResult {
  /** The files' bytes after masking (the same map when no file changed). */
  files: ReadonlyMap<string, Buffer>;
  /** One entry per rule that masked something (or failed). */
  entries: RedactionEntry[];
}

/**
 * Masks `r` in place with `rules` and returns what each rule did. Header, query and form rules mask
 * the named fields wherever the request holds them (parsed fields, the URL, the raw body); JSON
 * rules mask fields of a JSON body; regex and preset rules mask matches in every text the request
 * holds (headers, URL, query, form, body, text of uploaded files, e-mail and DNS fields, action
 * output). Never throws on request data: a pattern that times out masks the text it was searching.
 */
export function redactRequest(r: RedactableRequest, files: ReadonlyMap<string, Buffer>, rules: ReadonlyArray<CompiledRule>): RedactionResult {
  const entries: RedactionEntry[] = [];
  let outFiles = files;
  let body: { text: string; encoding: 'utf8' | 'latin1' } | null = null;
  let bodyChanged = false;
  const getBody = () => (body ??= bodyText(r.body));

  /** Runs a text mask over every text the request holds. */
  function everywhere(f: (s: string) => string): void {
    for (const key of Object.keys(r.headers)) r.headers[key] = r.headers[key]!.map(f);
    r.user_agent = f(r.user_agent);
    r.url = maskUrlText(r.url, f);
    if (r.query) for (const k of Object.keys(r.query)) r.query[k] = f(r.query[k]!);
    if (r.form) mapStrings(r.form, f);
    mapStrings(r.extra, f, (k) => k === 'redactions');
    for (let i = 0; i < r.custom_action_output.length; i++) r.custom_action_output[i] = f(r.custom_action_output[i]!);
    mapStrings(r.custom_action_errors, f);
    if (r.body.length) {
      const b = getBody();
      const masked = isUrlencoded(r.content_type) ? maskUrlencodedText(b.text, f) : f(b.text);
      if (masked !== b.text) {
        b.text = masked;
        bodyChanged = true;
      }
    }
    for (const [id, bytes] of outFiles) {
      if (!bytes.length) continue;
      const t = bodyText(bytes);
      const masked = f(t.text);
      if (masked === t.text) continue;
      if (outFiles === files) outFiles = new Map(files);
      const next = Buffer.from(masked, t.encoding);
      (outFiles as Map<string, Buffer>).set(id, next);
      const meta = r.files.find((m) => m.id === id);
      if (meta) meta.size = next.length;
    }
  }

  for (const c of rules) {
    const rule = c.rule;
    let count = 0;
    let error: string | undefined;
    const mask = c.replacement;
    /** The values named rules masked (header, query, form and JSON values). */
    const originals: string[] = [];
    switch (rule.kind) {
      case 'header': {
        const name = rule.name.toLowerCase();
        for (const key of Object.keys(r.headers)) {
          if (key.toLowerCase() !== name) continue;
          const values = r.headers[key]!;
          count += values.length;
          originals.push(...values);
          r.headers[key] = values.map(() => mask);
        }
        if (!count) break;
        if (name === 'user-agent' && r.user_agent) r.user_agent = mask;
        // An e-mail: its raw message holds the header too (and the subject has its own field).
        if (r.content_type === 'message/rfc822') {
          if (name === 'subject' && typeof r.extra.subject === 'string') r.extra.subject = mask;
          if ((name === 'x-mailer' || name === 'user-agent') && r.user_agent) r.user_agent = mask;
          const b = getBody();
          const masked = maskMessageHeader(b.text, name, b.encoding === 'utf8' ? mask : Buffer.from(mask, 'utf8').toString('latin1'));
          if (masked !== b.text) {
            b.text = masked;
            bodyChanged = true;
          }
        }
        break;
      }
      case 'query': {
        if (r.query && Object.hasOwn(r.query, rule.name)) {
          originals.push(r.query[rule.name]!);
          r.query[rule.name] = mask;
        }
        const all = r.extra.query_all as Record<string, string[]> | undefined;
        if (all && Object.hasOwn(all, rule.name)) {
          originals.push(...all[rule.name]!);
          all[rule.name] = all[rule.name]!.map(() => mask);
        }
        const q = r.url.indexOf('?');
        if (q >= 0) {
          const hash = r.url.indexOf('#', q);
          const end = hash < 0 ? r.url.length : hash;
          const m = maskPairs(r.url.slice(q + 1, end), rule.name, mask);
          if (m.count) {
            r.url = r.url.slice(0, q + 1) + m.text + r.url.slice(end);
            count = m.count;
          }
        }
        break;
      }
      case 'form': {
        let fields = 0;
        if (r.form && Object.hasOwn(r.form, rule.name)) {
          const v = r.form[rule.name];
          fields = Array.isArray(v) ? v.length : 1;
          for (const one of Array.isArray(v) ? v : [v]) if (typeof one === 'string') originals.push(one);
          r.form[rule.name] = Array.isArray(v) ? v.map(() => mask) : mask;
        }
        if (r.body.length && r.content_type) {
          const b = getBody();
          if (isUrlencoded(r.content_type)) {
            const m = maskPairs(b.text, rule.name, mask);
            if (m.count) {
              b.text = m.text;
              bodyChanged = true;
              count = m.count;
            }
          } else {
            const boundary = boundaryOf(r.content_type);
            if (boundary) {
              const maskText = b.encoding === 'utf8' ? mask : Buffer.from(mask, 'utf8').toString('latin1');
              const m = maskMultipartField(b.text, boundary, rule.name, maskText);
              if (m.count) {
                b.text = m.body;
                bodyChanged = true;
                count = m.count;
              }
            }
          }
        }
        count = Math.max(count, fields);
        break;
      }
      case 'json': {
        const b = getBody();
        const start = b.text.trimStart()[0];
        if (start !== '{' && start !== '[') break;
        let doc: unknown;
        try {
          doc = JSON.parse(b.text);
        } catch {
          break;
        }
        try {
          const hits = JSONPath({ path: rule.path, json: doc as object, resultType: 'all', eval: 'safe', wrap: true }) as Array<{
            parent: Record<string, unknown> | unknown[] | null;
            parentProperty: string | number | null;
          }>;
          for (const h of hits) {
            if (h.parent === null || h.parentProperty === null || typeof h.parent !== 'object') continue;
            const parent = h.parent as Record<string | number, unknown>;
            collectLeaves(parent[h.parentProperty], originals);
            parent[h.parentProperty] = mask;
            count++;
          }
        } catch (e) {
          error = `the JSONPath could not be evaluated on this body (${(e as Error).message}); the body is masked whole`;
          b.text = mask;
          bodyChanged = true;
          count++;
          break;
        }
        if (count) {
          b.text = /\n/.test(b.text) ? JSON.stringify(doc, null, 2) : JSON.stringify(doc);
          bodyChanged = true;
        }
        break;
      }
      case 'regex':
      case 'preset': {
        const text = c.text!;
        // One watchdog budget per rule and request, however many texts it searches: once spent,
        // every text it has not searched yet is masked whole (never stored unsearched).
        const deadline = performance.now() + REGEX_TIMEOUT_MS;
        everywhere((t) => {
          if (!t) return t;
          const left = Math.floor(deadline - performance.now());
          try {
            if (rule.kind === 'regex' && (error || left < 1)) throw new RegexTimeout();
            return text(t, (n) => void (count += n), left);
          } catch (e) {
            if (!(e instanceof RegexTimeout)) throw e;
            error ??= e.message + '; the texts it had not searched are masked whole';
            count++;
            return mask;
          }
        });
        break;
      }
    }
    // A value a named rule masked is masked wherever else the request holds it too (the body
    // echoing a header, an action's output or the response it built), so no part shows it;
    // percent-encoded too (a URL in a JSON body, a header quoting a query string).
    const echoes = originals.filter((v) => v.length >= MIN_ECHO_LENGTH && v !== mask);
    if (echoes.length) {
      const forms = new Set(echoes.flatMap((v) => [v, ...encodedForms(v)]));
      const re = new RegExp(
        [...forms]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join('|'),
        'g',
      );
      everywhere((t) =>
        t.replace(re, () => {
          count++;
          return mask;
        }),
      );
    }
    if (count || error) {
      const entry: RedactionEntry = { source: c.source, rule: c.index, kind: rule.kind, target: targetOf(rule), count };
      if (c.action) entry.action = c.action;
      if (error) entry.error = error;
      entries.push(entry);
    }
  }
  if (bodyChanged && body) {
    r.body = Buffer.from((body as { text: string }).text, (body as { encoding: BufferEncoding }).encoding);
    r.size = r.body.length;
  }
  const previous = Array.isArray(r.extra.redactions) ? (r.extra.redactions as RedactionEntry[]) : [];
  r.extra.redactions = [...previous, ...entries];
  return { files: outFiles, entries };
}

/** Replaces the value (with its folded lines) of every `name` header in the head of a MIME message. */
function maskMessageHeader(message: string, name: string, mask: string): string {
  const m = /\r?\n\r?\n/.exec(message);
  const headEnd = m ? m.index : message.length;
  const lines = message.slice(0, headEnd).split(/(?<=\n)/);
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (skipping && /^[ \t]/.test(line)) continue;
    skipping = false;
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) {
      const eol = /\r?\n$/.exec(line)?.[0] ?? '';
      out.push(`${line.slice(0, colon)}: ${mask}${eol}`);
      skipping = true;
    } else out.push(line);
  }
  return out.join('') + message.slice(headEnd);
}

/** Applies a text mask to a URL's path and to each decoded query value (re-encoded when it changed). */
function maskUrlText(url: string, f: (s: string) => string): string {
  const q = url.indexOf('?');
  const head = f(q < 0 ? url : url.slice(0, q));
  if (q < 0) return head;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) {
        const k = decodeComponent(pair);
        const mk = f(k);
        return mk === k ? pair : encodeURIComponent(mk);
      }
      const key = pair.slice(0, eq);
      const value = decodeComponent(pair.slice(eq + 1));
      const masked = f(value);
      return masked === value ? pair : `${key}=${encodeURIComponent(masked)}`;
    });
  return `${head}?${pairs.join('&')}`;
}
