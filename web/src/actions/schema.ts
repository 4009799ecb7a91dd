// An action type's JSON Schema (GET /action-types) as form fields: what control each parameter
// gets, its label, help and bounds. The schemas come from zod's input side, so a field is often a
// union (`anyOf`, `type: ["string", "null"]`) that is flattened here before a control is chosen.
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  writeOnly?: boolean;
}

/** An action type as GET /action-types lists it. */
export interface ActionType {
  type: string;
  title: string;
  category: string;
  description: string;
  /** Variables the type sets, with placeholders such as `<variable_name>` for its parameters. */
  sets: string[];
  creatable: boolean;
  /** False for types that only make sense inline (Don't Save, Rate Limit, Modify Response). */
  queueable?: boolean;
  plugin: string;
  schema: JsonSchema;
}

export type FieldKind = 'text' | 'textarea' | 'secret' | 'select' | 'toggle' | 'number' | 'provider' | 'database' | 'object' | 'list' | 'json';

export interface FieldSpec {
  name: string;
  label: string;
  help?: string;
  kind: FieldKind;
  required: boolean;
  options?: string[];
  min?: number;
  max?: number;
  integer?: boolean;
  /** The fields of an object, or of each item of a list. */
  fields?: FieldSpec[];
  /** A number field that also accepts text (a `$variable$`). */
  httpStatus?: boolean;
  /** The schema's default, shown as the placeholder of an empty text field. */
  placeholder?: string;
  /** A select's options in words (`eq` -> "is equal to"). */
  optionLabels?: Record<string, string>;
  /** One sentence per option, shown under the select, when the choice needs explaining. */
  optionHelp?: Record<string, string>;
}

/** The comparison operators in words, as @capture/sdk/operators (OPERATOR_LABELS) and webhook.site name them. */
export const OPERATOR_LABELS: Record<string, string> = {
  eq: 'is equal to',
  neq: 'is not equal to',
  sw: 'starts with',
  ew: 'ends with',
  ct: 'contains',
  nct: 'does not contain',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  lt: 'is less than',
  lte: 'is less than or equal to',
  regex: 'matches regex',
  ex: 'exists',
  null: 'is null',
  nnull: 'is not null',
  true: 'is true',
  false: 'is false',
  num: 'is numeric',
  int: 'is integer',
  float: 'is float',
  json: 'is JSON',
  email: 'is an e-mail address',
  domain: 'is a domain',
  url: 'is a URL',
};

/** What a Condition does with its result (plugins/logic, outcomeSchema). */
const OUTCOMES: Record<string, [string, string]> = {
  noop: ['Use the result', 'Only records whether it passed: later steps can run only when it passed, or only when it did not.'],
  stop: ['Stop if it passes', 'Stops the chain when it passes; otherwise the chain goes on.'],
  continue: ['Continue only if it passes', 'The chain goes on only when it passes; otherwise it stops here.'],
};

/** How Conditions combines its checks. */
const MODES: Record<string, [string, string]> = {
  all: ['All pass', 'Passes when every condition passes.'],
  one: ['At least one passes', 'Passes when one or more of the conditions pass.'],
  none: ['None passes', 'Passes when no condition passes.'],
};

/** Words for a select whose options are one of the known sets (operators, outcomes, modes). */
function optionWords(options: string[]): Pick<FieldSpec, 'optionLabels' | 'optionHelp'> {
  const all = (map: Record<string, unknown>) => options.every((o) => o in map);
  if (options.includes('eq') && all(OPERATOR_LABELS)) return { optionLabels: OPERATOR_LABELS };
  for (const map of [OUTCOMES, MODES]) {
    if (all(map)) return { optionLabels: Object.fromEntries(options.map((o) => [o, map[o]![0]])), optionHelp: Object.fromEntries(options.map((o) => [o, map[o]![1]])) };
  }
  return {};
}

/** The value a secret parameter shows as when one is stored; sent back, it keeps the stored value. */
export const SECRET_MARKER = '********';

/** Every branch of a union, nested ones included. */
function branches(s: JsonSchema): JsonSchema[] {
  const subs = s.anyOf ?? s.oneOf;
  if (subs) return subs.flatMap(branches).map((b) => ({ ...b, description: b.description ?? s.description, writeOnly: b.writeOnly || s.writeOnly }));
  return [s];
}

const typesOf = (b: JsonSchema): string[] => (Array.isArray(b.type) ? b.type : b.type ? [b.type] : []);

export function humanize(name: string): string {
  const s = name.replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// Text that is usually longer than a line gets a text area.
const LONG_TEXT = /^(content|body|headers|script|code|query|text|html|message|template|json|sql|statement|schema|spec|payload|value|values|source|paths|command|expression|description)$/;

export function fieldFor(name: string, schema: JsonSchema, required: boolean): FieldSpec {
  const all = branches(schema);
  const types = new Set(all.flatMap(typesOf));
  const label = schema.title ?? humanize(name);
  const help = all.find((b) => b.description)?.description;
  const fallback = all.map((b) => b.default).find((d) => typeof d === 'string' || typeof d === 'number');
  const base = { name, label, required, ...(help ? { help } : {}), ...(fallback !== undefined ? { placeholder: String(fallback) } : {}) };
  if (all.some((b) => b.writeOnly)) return { ...base, kind: 'secret' };
  if (name === 'provider_id') return { ...base, kind: 'provider' };
  if (name === 'database_id') return { ...base, kind: 'database' };
  const enums = [...new Set(all.flatMap((b) => (b.enum ?? []).map(String)))];
  if (enums.length) return { ...base, kind: 'select', options: enums, ...optionWords(enums) };
  if (types.has('boolean')) return { ...base, kind: 'toggle' };
  const num = all.find((b) => typesOf(b).some((t) => t === 'number' || t === 'integer'));
  if (num) {
    return {
      ...base,
      kind: 'number',
      integer: typesOf(num).includes('integer'),
      ...(num.minimum !== undefined && num.minimum > -1e15 ? { min: num.minimum } : {}),
      ...(num.maximum !== undefined && num.maximum < 1e15 ? { max: num.maximum } : {}),
      ...(/HTTP status/i.test(help ?? '') ? { httpStatus: true } : {}),
    };
  }
  const obj = all.find((b) => typesOf(b).includes('object') && b.properties);
  if (obj) return { ...base, kind: 'object', fields: fieldsOf(obj) };
  const list = all.find((b) => typesOf(b).includes('array'));
  if (list) {
    const item = list.items ? branches(list.items).find((b) => typesOf(b).includes('object') && b.properties) : undefined;
    if (item && all.every((b) => !typesOf(b).includes('string'))) return { ...base, kind: 'list', fields: fieldsOf(item) };
    return { ...base, kind: 'json' };
  }
  if (types.has('object')) return { ...base, kind: 'json' };
  const long = LONG_TEXT.test(name) || /per line|one .* line/i.test(help ?? '');
  return { ...base, kind: long ? 'textarea' : 'text' };
}

/** The form fields of an object schema (an action type's parameters), in the schema's order. */
export function fieldsOf(schema: JsonSchema): FieldSpec[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, s]) => fieldFor(name, s, required.has(name)));
}

/** Whether `value` fits the control `field` would show; otherwise it is edited as JSON. */
export function fits(field: FieldSpec, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  switch (field.kind) {
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    case 'list':
      return Array.isArray(value) && value.every((v) => v && typeof v === 'object' && !Array.isArray(v));
    case 'toggle':
      return typeof value === 'boolean' || value === 'true' || value === 'false';
    case 'number':
      return typeof value === 'number' || (typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)?$/.test(value));
    case 'json':
      return true;
    default:
      return typeof value !== 'object';
  }
}

const joinOr = (xs: string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`);

/**
 * The server's message for a field in words a person understands, using what the schema says
 * (`Invalid input` on a status becomes "must be an HTTP status code between 100 and 599").
 */
export function explain(field: FieldSpec | undefined, message: string): string {
  const m = message.trim();
  if (/^is required$|^required$/i.test(m) || /received undefined/i.test(m)) return 'is required';
  if (!field) return m;
  if (field.kind === 'number') {
    const what = field.httpStatus ? 'an HTTP status code' : field.integer ? 'a whole number' : 'a number';
    if (field.min !== undefined && field.max !== undefined) return `must be ${what} between ${field.min} and ${field.max}`;
    if (field.min !== undefined) return `must be ${what} of at least ${field.min}`;
    if (field.max !== undefined) return `must be ${what} of at most ${field.max}`;
    return `must be ${what}`;
  }
  if (field.kind === 'select' && field.options && /invalid|expected/i.test(m)) return `must be one of ${joinOr(field.options.map((o) => field.optionLabels?.[o] ?? o))}`;
  if (field.kind === 'toggle' && /invalid|expected/i.test(m)) return 'must be on or off (true or false)';
  if (/^Invalid input$/i.test(m)) return 'is not valid here';
  if (/^Too small: expected string to have >=1 characters$/i.test(m)) return 'must not be empty';
  return m.replace(/^Invalid input: /i, '');
}
