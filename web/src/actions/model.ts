// The workflow document as the visual editor holds it: the whole document (unknown fields kept)
// with its steps as a list of items that keep a stable key through moves and saves.
import { parse, stringify } from 'yaml';

export type Step = Record<string, unknown> & { type?: string; id?: string; name?: string; parameters?: Record<string, unknown>; disabled?: boolean; condition?: string | null };

export interface Item {
  key: string;
  step: Step;
}

export interface Model {
  /** The document without `spec.steps`, exactly as read. */
  doc: Record<string, unknown>;
  items: Item[];
}

/** A v4 UUID, also where crypto.randomUUID is missing (a page served over plain http). */
export function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

let counter = 0;
const keyFor = (step: Step) => (typeof step.id === 'string' && step.id ? step.id : `new-${++counter}`);

/** Reads YAML text as a model; a message instead when the visual editor cannot show it. */
export function fromText(text: string): { model: Model } | { error: string } {
  let data: unknown;
  try {
    data = parse(text) ?? {};
  } catch (e) {
    return { error: `The YAML has a syntax error: ${(e as Error).message.split('\n')[0]}` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { error: 'The document must be a mapping (apiVersion, kind, metadata, spec).' };
  const doc = data as Record<string, unknown>;
  const spec = doc.spec ?? {};
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return { error: '`spec` must be a mapping holding `steps`.' };
  const steps = (spec as Record<string, unknown>).steps ?? [];
  if (!Array.isArray(steps)) return { error: '`spec.steps` must be a list.' };
  const bad = steps.findIndex((s) => typeof s !== 'object' || s === null || Array.isArray(s));
  if (bad !== -1) return { error: `Step ${bad + 1} must be a mapping with a type.` };
  return { model: { doc, items: (steps as Step[]).map((step) => ({ key: keyFor(step), step })) } };
}

/** The document the model stands for, as the API takes it. */
export function toDocument(model: Model): Record<string, unknown> {
  const spec = (typeof model.doc.spec === 'object' && model.doc.spec) || {};
  return { ...model.doc, spec: { ...spec, steps: model.items.map((i) => i.step) } };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** YAML text for the model; the previous text as it was (comments and all) when nothing changed. */
export function toText(model: Model, previous: string): string {
  try {
    if (same(parse(previous), toDocument(model))) return previous;
  } catch {
    /* the previous text did not parse: write the model */
  }
  return stringify(toDocument(model), { lineWidth: 0 });
}

export function newItem(type: string): Item {
  const id = uuid();
  return { key: id, step: { id, type, parameters: {} } };
}

export function move(items: Item[], from: number, to: number): Item[] {
  if (to < 0 || to >= items.length || from === to) return items;
  const next = [...items];
  const [it] = next.splice(from, 1);
  next.splice(to, 0, it!);
  return next;
}

/** A copy right after the original, with an ID and name of its own. */
export function duplicate(items: Item[], at: number): Item[] {
  const copy = structuredClone(items[at]!.step);
  const id = uuid();
  copy.id = id;
  if (typeof copy.name === 'string') {
    const names = new Set(items.map((i) => i.step.name));
    let n = 2;
    while (names.has(`${items[at]!.step.name} ${n}`)) n++;
    copy.name = `${items[at]!.step.name} ${n}`;
  }
  return [...items.slice(0, at + 1), { key: id, step: copy }, ...items.slice(at + 1)];
}

/** Removes a step; steps that ran only after it (its `condition`) no longer depend on it. */
export function remove(items: Item[], at: number): Item[] {
  const gone = items[at]!.step;
  const refs = new Set([gone.id, gone.name].filter((x): x is string => typeof x === 'string'));
  return items
    .filter((_, i) => i !== at)
    .map((it) => {
      if (typeof it.step.condition !== 'string' || !refs.has(it.step.condition)) return it;
      const { condition: _c, condition_action: _a, ...rest } = it.step;
      return { ...it, step: rest as Step };
    });
}

/** How a `condition` can name a step: its name when it has one, else its ID. */
export const refOf = (step: Step): string => (typeof step.name === 'string' && step.name ? step.name : String(step.id ?? ''));

export const isCondition = (step: Step) => step.type === 'condition' || step.type === 'conditions';

/** A server field path (`spec.steps.2.parameters.status`) as step index and the rest of the path. */
export function stepPath(path: string): { step: number; field: string } | null {
  const m = /^(?:\/)?spec[./]steps[./[](\d+)\]?(?:[./](.*))?$/.exec(path);
  if (!m) return null;
  return { step: Number(m[1]), field: (m[2] ?? '').replace(/\//g, '.') };
}
