// An action's parameters for one run: variables replaced (templating.ts), then validated by the
// action's schema. For a step whose parameters are frozen (the steps cache hands out deep-frozen
// steps, core/workflows/steps-cache.ts: a step version never changes) the work is planned once:
// the strings that hold a `$` are found once, and the validated parameters of the last run are
// kept with the texts those strings gave. A run whose strings give the same texts (every run of a
// step without variables, and most runs of a chain reading the same kind of request) reuses them
// instead of copying the tree and validating it again. This assumes what every parameter schema is:
// a pure function of its input (no clock, no randomness in a default or transform). Kept results
// are deep-frozen, as the raw parameters already are, so an action cannot change them for the next run.
import { headerLineFields } from '../headers.js';
import type { AnyActionDefinition } from '../index.js';
import { template, templateHeaderLines, templateValue, type Resolver } from './templating.js';

export type StepParams = { success: true; data: Record<string, unknown> } | { success: false; path: PropertyKey[]; message: string };

/** One string of the parameters that holds a `$`. */
interface Slot {
  text: string;
  /** A top-level `headerLines()` parameter: templated line by line. */
  header: boolean;
}

interface Plan {
  def: AnyActionDefinition;
  slots: Slot[];
  /** The last run's slot texts and validated parameters (only plain data is kept), as the answer given. */
  last?: { texts: string[]; result: StepParams & { success: true } };
}

const plans = new WeakMap<object, Plan>();
/**
 * The most text one kept result may hold (its slot texts; the data holds about as much again). A
 * plan lives as long as its cached step, for up to 10,000 tokens: big bodies are not kept.
 */
const MAX_KEPT_TEXT = 8 * 1024;

/** Every string with a `$` that templateValue would replace, in the order it visits them. */
function findSlots(value: unknown, skip: readonly string[], headerLines: readonly string[]): Slot[] {
  const slots: Slot[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.includes('$')) slots.push({ text: v, header: false });
    } else if (Array.isArray(v)) {
      for (const x of v) visit(x);
    } else if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      for (const k of Object.keys(v)) visit((v as Record<string, unknown>)[k]);
    }
  };
  if (value && typeof value === 'object' && !Array.isArray(value) && (skip.length || headerLines.length)) {
    for (const k of Object.keys(value)) {
      const x = (value as Record<string, unknown>)[k];
      if (skip.includes(k)) continue;
      if (headerLines.includes(k) && typeof x === 'string') {
        if (x.includes('$')) slots.push({ text: x, header: true });
      } else visit(x);
    }
  } else visit(value);
  return slots;
}

/** Only plain objects, arrays and primitives (what can be frozen and shared safely). */
function isPlain(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return typeof v !== 'function' && typeof v !== 'symbol';
  if (Array.isArray(v)) return v.every(isPlain);
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) if (!isPlain((v as Record<string, unknown>)[k])) return false;
  return true;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function validate(def: AnyActionDefinition, templated: unknown): StepParams {
  const parsed = def.parameters.safeParse(templated);
  if (parsed.success) return { success: true, data: parsed.data as Record<string, unknown> };
  const issue = parsed.error.issues[0]!;
  return { success: false, path: issue.path, message: issue.message };
}

const NONE: readonly string[] = [];
/** Each definition's header-line parameters, found once from its schema. */
const headerFieldsOf = new WeakMap<AnyActionDefinition, string[]>();
function headerFields(def: AnyActionDefinition): string[] {
  let fields = headerFieldsOf.get(def);
  if (!fields) headerFieldsOf.set(def, (fields = headerLineFields(def.parameters)));
  return fields;
}

/**
 * The step's parameters with variables replaced (but for the definition's untemplated ones;
 * header-line ones line by line) and validated.
 */
export function stepParams(def: AnyActionDefinition, raw: Record<string, unknown>, resolve: Resolver): StepParams {
  const templated = () => templateValue(raw, resolve, def.untemplated ?? NONE, headerFields(def));
  // Parameters that may still change (a test's, a nested action's, opened secrets) are done in full.
  if (!Object.isFrozen(raw)) return validate(def, templated());
  let plan = plans.get(raw);
  if (!plan || plan.def !== def) plans.set(raw, (plan = { def, slots: findSlots(raw, def.untemplated ?? NONE, headerFields(def)) }));
  const texts = plan.slots.map((s) => (s.header ? templateHeaderLines(s.text, resolve) : template(s.text, resolve)));
  const last = plan.last;
  if (last && sameTexts(last.texts, texts)) return last.result;
  const result = validate(def, templated());
  // Frozen, answer and data: every run reusing it gets the same object.
  if (result.success && keptSize(texts) <= MAX_KEPT_TEXT && isPlain(result.data)) plan.last = { texts, result: Object.freeze({ success: true, data: deepFreeze(result.data) }) };
  return result;
}

function keptSize(texts: string[]): number {
  let n = 0;
  for (const t of texts) n += t.length;
  return n;
}

function sameTexts(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return a.length === b.length;
}
