// variables.md: var()/get() read action variables and Global Variables, set() exports a variable
// to the next actions, store() saves a Global Variable and delete() removes one. (`variables` is
// set up by the action.)
import { fail } from '../lang/errors.js';
import { WsArray, jsonEncode, toText, type Value } from '../lang/values.js';
import { arg, str, type Host, type Library } from './host.js';

/** `$name$` and `name` name the same variable. */
export const variableName = (s: string) => s.trim().replace(/^\$(.+)\$$/, '$1');

/** What set()/store() write: text, arrays as JSON. */
export const variableText = (v: Value) => (v instanceof WsArray ? jsonEncode(v, false) : toText(v));

export function variablesLibrary(host: Host): Library {
  const read = (a: Value[]) => {
    const value = host.ctx.vars.get(variableName(str(a, 0)));
    return value === undefined ? arg(a, 1) : value;
  };
  const write = (a: Value[]) => {
    const name = variableName(str(a, 0));
    if (!name) fail('the variable name is empty');
    host.ctx.vars.set(name, variableText(arg(a, 1)));
    return arg(a, 1);
  };
  return {
    var: (_c, a) => read(a),
    get: (_c, a) => read(a),
    get_variable: (_c, a) => read(a),
    set: (_c, a) => write(a),
    set_variable: (_c, a) => write(a),
    store: async (_c, a) => {
      const name = variableName(str(a, 0));
      if (!name) fail('the Global Variable name is empty');
      await host.wait(host.ctx.services.globals.set(name, variableText(arg(a, 1))));
      return arg(a, 1);
    },
    // Deletes a Global Variable; true when there was one.
    delete: async (_c, a) => {
      const name = variableName(str(a, 0));
      if (!name) fail('the Global Variable name is empty');
      return await host.wait(host.ctx.services.globals.delete(name));
    },
  };
}
