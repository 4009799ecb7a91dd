// flow.md: stopping, not saving, the response, and running code (exec, import).
import { headerProblem, setResponseHeader } from '../../../../core/sdk/index.js';
import { Halt, fail } from '../lang/errors.js';
import { jsonEncode, toText, WsArray, type Value } from '../lang/values.js';
import { arg, headerPairs, int, str, type Host, type Library } from './host.js';
import { fetchText } from './network.js';

function content(v: Value): string {
  return v instanceof WsArray ? jsonEncode(v, false) : toText(v);
}

export function flowLibrary(host: Host): Library {
  const { ctx } = host;
  const status = (a: Value[], i: number) => {
    const s = int(a, i);
    if (s < 100 || s > 599) fail(`${s} is not an HTTP status code (100-599)`);
    return s;
  };
  const setHeader = (name: string, value: string) => {
    const problem = headerProblem(name, value);
    if (problem) fail(problem);
    setResponseHeader(ctx.response, name, value);
  };
  const setResponse = (a: Value[]) => {
    if (a.length > 0 && arg(a, 0) !== null) ctx.response.content = content(arg(a, 0));
    if (a.length > 1 && arg(a, 1) !== null) ctx.response.status = status(a, 1);
    if (a.length > 2) for (const [n, v] of headerPairs(arg(a, 2))) setHeader(n, v);
    return null;
  };
  return {
    stop: () => {
      ctx.stop();
      throw new Halt();
    },
    dont_save: () => {
      ctx.dontSave();
      return null;
    },
    respond: (_c, a) => {
      setResponse(a);
      ctx.stop();
      throw new Halt();
    },
    set_response: (_c, a) => setResponse(a),
    set_content: (_c, a) => {
      ctx.response.content = content(arg(a, 0));
      return null;
    },
    set_status: (_c, a) => {
      ctx.response.status = status(a, 0);
      return null;
    },
    set_header: (_c, a) => {
      setHeader(str(a, 0).trim(), str(a, 1));
      return null;
    },
    note: (_c, a) => {
      host.output(`Note: ${str(a, 0)}`);
      return null;
    },
    exec: (c, a) => c.run(str(a, 0)),
    import: async (c, a) => c.run(await fetchText(host, str(a, 0))),
    action: () => fail('running other actions from a script is not supported here; add the action to the chain after this one instead'),
    delay: () => fail('delay() is deprecated and not supported; mark the action as queued instead'),
  };
}
