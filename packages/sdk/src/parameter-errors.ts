// How an action's parameters are checked when an action is created: the action's zod schema, with
// fields holding `$variables$` left for run time. The host turns the answer into its 422; plugin
// tests (validateParams in ./testing.ts) get the same message without the host.
import type { AnyActionDefinition } from './types.js';

export type ParameterFieldErrors = Record<string, string[]>;

// A field holding `$variable$` can only be checked once the variable is replaced at run time.
const HAS_VARIABLE = /\$[^\s$][^$\n]*\$/;

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * Null when `params` (already an object) suits the action, else the first problem as a message
 * (`parameters.mode: ...`) and every problem by field.
 */
export function parameterErrors(definition: AnyActionDefinition, params: Record<string, unknown>): { message: string; errors: ParameterFieldErrors } | null {
  const result = definition.parameters.safeParse(params);
  if (result.success) return null;
  const errors: ParameterFieldErrors = {};
  for (const issue of result.error.issues) {
    const raw = valueAt(params, issue.path);
    if (typeof raw === 'string' && HAS_VARIABLE.test(raw)) continue;
    const key = ['parameters', ...issue.path.map(String)].join('.');
    (errors[key] ??= []).push(raw === undefined && issue.code !== 'custom' ? 'is required' : issue.message);
  }
  const first = Object.entries(errors)[0];
  return first ? { message: `${first[0]}: ${first[1][0]}`, errors } : null;
}
