// Runs a script against an action context: parses it, builds the library over the context and
// interprets it within the limits. stop()/respond()/dd() end it quietly; errors are thrown.
import { ScriptOutput } from '@capture/sdk/output';
import { regexReplace, regexTest } from '@capture/sdk/regex';
import { Halt, WsLimitError } from './lang/errors.js';
import { Interpreter } from './lang/interpreter.js';
import { DEFAULT_LIMITS, type Limits } from './lang/limits.js';
import { parse } from './lang/parser.js';
import { WsArray, type Value } from './lang/values.js';
import type { Host, ScriptContext } from './lib/host.js';
import { buildLibrary } from './lib/index.js';

export interface ScriptResult {
  /** The script's top-level `return` value (or the last expression's). */
  value: Value;
  steps: number;
}

export async function runScript(source: string, ctx: ScriptContext, overrides: Partial<Limits> = {}): Promise<ScriptResult> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...overrides };
  const program = parse(source);
  let requests = 0;
  const output = new ScriptOutput({ maxBytes: limits.maxOutputBytes, maxLineBytes: limits.maxOutputLineBytes, maxLines: limits.maxOutputLines }, (line) => ctx.log(line));
  const host: Host = {
    ctx,
    limits,
    output(line) {
      output.write(line);
    },
    wait: (work) => interpreter.waitFor(work),
    countRequest() {
      if (++requests > limits.maxHttpRequests) throw new WsLimitError(`A script may send at most ${limits.maxHttpRequests} HTTP requests`);
    },
  };
  const interpreter = new Interpreter({
    builtins: buildLibrary(host),
    limits,
    checkpoint() {
      if (ctx.signal.aborted || ctx.timeLeftMs() <= 0) throw new WsLimitError("The actions' time budget was spent while the script ran");
    },
    regexTest: (re, s) => regexTest(re, s),
    regexReplace: (re, s, r) => regexReplace(re, s, r),
  });
  interpreter.global.set('variables', WsArray.entries(Object.entries(ctx.vars.all())));
  try {
    const value = await interpreter.run(program);
    return { value, steps: interpreter.steps };
  } catch (e) {
    if (e instanceof Halt) return { value: null, steps: interpreter.steps };
    throw e;
  }
}
