// Runs scripts the way the chain does (runAction), with small limits where a test asks for them.
import { runAction, type RunActionOptions, type RunActionResult } from '@capture/sdk/testing';
import type { Limits } from '../src/lang/limits.js';
import { createScriptAction, script } from '../src/script.js';

export async function run(source: string, options: RunActionOptions & { limits?: Partial<Limits> } = {}): Promise<RunActionResult> {
  const { limits, ...rest } = options;
  return runAction(limits ? createScriptAction(limits) : script, { script: source }, rest);
}

/** The dump() of one expression, e.g. `[0: 1, 1: 2]` or `"text"`; throws the script's error. */
export async function value(expr: string, options: RunActionOptions = {}): Promise<string> {
  const r = await run(`dump(${expr})`, options);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  return r.output[0];
}

/** The output lines of a script that must not fail. */
export async function output(source: string, options: RunActionOptions & { limits?: Partial<Limits> } = {}): Promise<string[]> {
  const r = await run(source, options);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  return r.output;
}

/** The error of a script that must fail. */
export async function error(source: string, options: RunActionOptions & { limits?: Partial<Limits> } = {}): Promise<string> {
  const r = await run(source, options);
  if (!r.errors.length) throw new Error(`expected an error, got output ${JSON.stringify(r.output)}`);
  return r.errors[0];
}
