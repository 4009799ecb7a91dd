// flow.md: stopping, not saving, the response, running code (exec, import), other actions
// (action) and code later (delay, as a queued job).
import { headerProblem, setResponseHeader } from '@capture/sdk/headers';
import { Halt, fail } from '../lang/errors.js';
import { jsonEncode, toPlain, toText, WsArray, type Value } from '../lang/values.js';
import { arg, arr, headerPairs, int, str, type Host, type Library } from './host.js';
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
    // Runs another action type now; its output and response changes join this action's. Returns
    // the variables it set (what e.g. auto_json or google_sheets_get_values set).
    action: async (_c, a) => {
      const type = str(a, 0).trim();
      // A WebhookScript run waits for its account's turn (AccountGate): one nested inside another would wait for itself.
      if (type === 'script') fail("action('script') cannot run from a script; use exec() or import() to run more WebhookScript");
      const params = a.length > 1 && arg(a, 1) !== null ? toPlain(arr(a, 1)) : {};
      if (Array.isArray(params) && params.length > 0) fail('the parameters must be an array with keys (["name": value])');
      const vars = await host.wait(ctx.runAction(type, Array.isArray(params) ? {} : (params as Record<string, unknown>)));
      return WsArray.entries(Object.entries(vars));
    },
    // Deprecated on webhook.site, still supported: the code runs `seconds` later as a queued job on
    // this request, without this run's variables; its output is added to the request, labelled.
    delay: (_c, a) => {
      const seconds = int(a, 0);
      if (seconds < 0 || seconds > 604_800) fail('the delay must be 0 to 604800 seconds (7 days)');
      ctx.later(seconds, 'script', { script: str(a, 1) });
      return null;
    },
  };
}
