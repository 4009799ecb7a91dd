// Secret action parameters (marked with `secret()` from the SDK, i.e. `writeOnly` in the action's
// JSON Schema): sealed with the providers' key (core/auth/sealing.ts) before a chain is stored,
// shown as SECRET_MARKER by the API and in exports, opened only when the chain runs. Values stored
// before secrets were sealed are read as they are and sealed on the chain's next save.
import { SealError, type Sealer } from '../auth/sealing.js';
import { ValidationError } from '../errors.js';

/** What the API and exports show instead of a secret; sent back, it keeps the stored value. */
export const SECRET_MARKER = '********';

const SEALED = 'sealed:';

/** A parameter's place: property names, `*` for every item of an array. */
export type SecretPath = string[];

/** The places of `writeOnly` values in an action's JSON Schema (properties, items, anyOf...). */
export function secretPaths(schema: unknown, at: SecretPath = []): SecretPath[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Record<string, unknown>;
  if (s.writeOnly === true) return [at];
  const found: SecretPath[] = [];
  for (const [name, sub] of Object.entries((s.properties as Record<string, unknown> | undefined) ?? {})) found.push(...secretPaths(sub, [...at, name]));
  if (s.items) found.push(...secretPaths(s.items, [...at, '*']));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const sub of (s[key] as unknown[] | undefined) ?? []) found.push(...secretPaths(sub, at));
  }
  // The same field may appear in several branches of a union.
  return [...new Map(found.map((p) => [p.join('\0'), p])).values()];
}

type Params = Record<string, unknown>;

/** Calls `fn` on every value at `path` (objects copied on the way, so `params` is not changed). */
function mapAt(node: unknown, path: SecretPath, fn: (value: unknown, at: Array<string | number>) => unknown, at: Array<string | number> = []): unknown {
  if (!path.length) return fn(node, at);
  const [head, ...rest] = path;
  if (head === '*') return Array.isArray(node) ? node.map((item, i) => mapAt(item, rest, fn, [...at, i])) : node;
  if (!node || typeof node !== 'object' || Array.isArray(node) || !(head! in node)) return node;
  return { ...(node as Params), [head!]: mapAt((node as Params)[head!], rest, fn, [...at, head!]) };
}

function valueAt(node: unknown, at: Array<string | number>): unknown {
  let cur = node;
  for (const key of at) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

const isSet = (v: unknown) => v !== undefined && v !== null && v !== '';
const isSealed = (v: unknown): v is string => typeof v === 'string' && v.startsWith(SEALED);
const holdsSealed = (v: unknown): boolean => isSealed(v) || (!!v && typeof v === 'object' && Object.values(v).some(holdsSealed));

/** What re-sealing did to one secret (SECRET_KEY rotation); `field` names a failed one. */
export type ResealOutcome = { status: 'resealed' | 'current' } | { status: 'failed'; field: string; reason: string };

export class ParameterSecrets {
  constructor(
    // What it needs of the registry: each type's secret paths (registry.ts imports this module).
    private readonly registry: { get(type: string): unknown; secretsOf(type: string): SecretPath[] },
    private readonly sealer: Sealer,
  ) {}

  private each(type: string, params: Params, fn: (value: unknown, at: Array<string | number>) => unknown): Params {
    const paths = this.registry.secretsOf(type);
    return paths.reduce<Params>((p, path) => mapAt(p, path, fn) as Params, params);
  }

  private openValue(value: unknown): unknown {
    return isSealed(value) ? this.sealer.open(value.slice(SEALED.length)) : value;
  }

  /**
   * Parameters from the API or a document, made ready to validate: a marker becomes the secret
   * stored at the same place of `stored` (the step being replaced, when of the same type). A 422
   * names the field when there is none, or when a value is given already sealed (only the store
   * holds sealed values; accepting one would let a copied value be opened for someone else).
   */
  resolve(type: string, input: Params, stored?: { type: string; parameters: Params }): Params {
    const previous = stored?.type === type ? stored.parameters : undefined;
    return this.each(type, input, (value, at) => {
      const field = ['parameters', ...at].join('.');
      if (isSealed(value)) throw new ValidationError(`${field}: must not be a sealed value`, { [field]: ['must not be a sealed value'] });
      if (value !== SECRET_MARKER) return value;
      const kept = previous === undefined ? undefined : valueAt(previous, at);
      if (!isSet(kept)) {
        const message = `"${SECRET_MARKER}" stands for a stored secret, but none is stored here: enter the value (or a $global.variable$)`;
        throw new ValidationError(`${field}: ${message}`, { [field]: [message] });
      }
      return this.openValue(kept);
    });
  }

  /** For storage: every set secret sealed. Values already sealed (read from the store) stay. */
  seal(type: string, params: Params): Params {
    return this.each(type, params, (value) => (isSet(value) && !isSealed(value) ? SEALED + this.sealer.seal(value) : value));
  }

  /** For the API and exports: every set secret shown as the marker. */
  mask(type: string, params: Params): Params {
    return this.each(type, params, (value) => (isSet(value) ? SECRET_MARKER : value));
  }

  /** For the run: sealed secrets opened, plain ones (stored before sealing) as they are. Throws SealError. */
  open(type: string, params: Params): Params {
    return this.each(type, params, (value) => this.openValue(value));
  }

  /**
   * For a SECRET_KEY rotation: secrets sealed under an older key, opened and sealed under the
   * current one. A value that cannot be opened stays as it is and its outcome says why.
   */
  reseal(type: string, params: Params): { parameters: Params; outcomes: ResealOutcome[] } {
    const outcomes: ResealOutcome[] = [];
    if (!this.registry.get(type)) {
      // Without the action's schema its secrets cannot be told from other values.
      if (holdsSealed(params)) outcomes.push({ status: 'failed', field: 'parameters', reason: `action type "${type}" is not loaded (PLUGINS), so its secrets cannot be found` });
      return { parameters: params, outcomes };
    }
    const parameters = this.each(type, params, (value, at) => {
      if (!isSealed(value)) return value;
      const sealed = value.slice(SEALED.length);
      if (this.sealer.isCurrent(sealed)) {
        outcomes.push({ status: 'current' });
        return value;
      }
      try {
        const resealed = SEALED + this.sealer.seal(this.sealer.open(sealed));
        outcomes.push({ status: 'resealed' });
        return resealed;
      } catch (e) {
        if (!(e instanceof SealError)) throw e;
        outcomes.push({ status: 'failed', field: ['parameters', ...at].join('.'), reason: e.message });
        return value;
      }
    });
    return { parameters, outcomes };
  }

  /** How many set secrets `params` holds (an export warns that they are left out). */
  count(type: string, params: Params): number {
    let n = 0;
    this.each(type, params, (value) => (isSet(value) && n++, value));
    return n;
  }
}
