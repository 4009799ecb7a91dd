// Every error of a workflow document at once (the API stops at the first failing step): its
// structure and, for a TokenActions document, each step's parameters by the step's action type; a
// document of another registered kind (Schedule) by its kind's own rules. Used by `workflows validate` and before `workflows apply`.
import type { ActionRegistry } from '../actions/registry.js';
import { ValidationError, type FieldErrors } from '../errors.js';
import '../scheduler/document.js'; // registers the Schedule kind
import { TokenActionsKind, normaliseDocument } from './document.js';
import { kindOf } from './kernel.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The field errors `check` throws as a ValidationError; none when it passes. */
function errorsOf(check: () => unknown): FieldErrors {
  try {
    check();
    return {};
  } catch (e) {
    if (e instanceof ValidationError) return e.errors ?? { _: [e.message] };
    throw e;
  }
}

export async function documentErrors(input: unknown, registry: Pick<ActionRegistry, 'validate' | 'ready'>): Promise<FieldErrors> {
  const kind = kindOf(input);
  if (kind && kind !== TokenActionsKind) return errorsOf(() => kind.validate(input));
  const errors = errorsOf(() => normaliseDocument(input));
  const steps = isObject(input) && isObject(input.spec) && Array.isArray(input.spec.steps) ? (input.spec.steps as unknown[]) : [];
  // Checking parameters needs each type's plugin imported (deferred loading).
  await registry.ready(steps.flatMap((s) => (isObject(s) && typeof s.type === 'string' ? [s.type] : [])));
  steps.forEach((step, i) => {
    // A step without a type or with parameters that are not a map has a structure error already.
    if (!isObject(step) || typeof step.type !== 'string' || !isObject(step.parameters ?? {})) return;
    const own = errorsOf(() => registry.validate(step.type as string, step.parameters ?? {}, { allowDeprecated: true }));
    for (const [field, messages] of Object.entries(own)) (errors[`spec.steps.${i}.${field}`] ??= []).push(...messages);
  });
  return errors;
}
