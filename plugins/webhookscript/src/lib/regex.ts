// string.md "Regex": preg_match, regex_extract, regex_extract_first, regex_match, regex_to_string.
// Every match runs through the SDK's regex watchdog, so a catastrophic pattern cannot block the process.
import { regexExec, regexMatchAll, regexReplace, regexTest } from '@capture/sdk/regex';
import { WsArray, WsRegex, type Value } from '../lang/values.js';
import { parseDelimited } from '../lang/regex.js';
import { arg, regex, str, type Library } from './host.js';

export interface Regexes {
  fromString(s: string): WsRegex;
  test(re: WsRegex, s: string): boolean;
  exec(re: WsRegex, s: string): RegExpExecArray | null;
  replace(re: WsRegex, s: string, replacement: string, all: boolean): string;
  split(re: WsRegex, s: string): string[];
}

const global = (re: RegExp) => (re.global ? re : new RegExp(re.source, re.flags + 'g'));

export const regexes: Regexes = {
  /** `/pattern/flags` is read with its delimiters; anything else is the pattern itself. */
  fromString(s) {
    if (/^\/[\s\S]*\/[a-zA-Z]*$/.test(s.trim()) && s.trim().length > 1) {
      const { pattern, flags } = parseDelimited(s);
      return new WsRegex(pattern, flags);
    }
    return new WsRegex(s);
  },
  test: (re, s) => regexTest(re.re, s),
  exec: (re, s) => regexExec(re.re, s),
  replace: (re, s, r, all) => regexReplace(all ? global(re.re) : re.re, s, r),
  split(re, s) {
    const out: string[] = [];
    let last = 0;
    for (const m of regexMatchAll(global(re.re), s)) {
      if (m[0] === '' && (m.index === 0 || m.index === s.length)) continue;
      out.push(s.slice(last, m.index));
      out.push(...m.slice(1).filter((g): g is string => g !== undefined));
      last = m.index + m[0].length;
    }
    out.push(s.slice(last));
    return out;
  },
};

/** Groups of a match as PHP gives them: numbered, plus the named ones. */
function groups(m: RegExpExecArray): WsArray {
  const a = new WsArray();
  m.forEach((g, i) => a.set(i, g ?? ''));
  for (const [name, g] of Object.entries(m.groups ?? {})) a.set(name, g ?? '');
  return a;
}

export function regexLibrary(): Library {
  const re = (a: Value[], i: number) => regex(a, i, regexes.fromString);
  return {
    preg_match: (_c, a) => {
      const pattern = arg(a, 0);
      const r =
        pattern instanceof WsRegex
          ? pattern
          : (() => {
              const { pattern: p, flags } = parseDelimited(str(a, 0));
              return new WsRegex(p, flags);
            })();
      const m = regexes.exec(r, str(a, 1));
      return m ? groups(m) : false;
    },
    regex_extract: (_c, a) => {
      const m = regexes.exec(re(a, 0), str(a, 1));
      return m ? groups(m) : false;
    },
    regex_extract_all: (_c, a) => {
      const r = re(a, 0);
      return WsArray.list(regexMatchAll(r.re, str(a, 1)).map(groups));
    },
    regex_extract_first: (_c, a) => {
      const m = regexes.exec(re(a, 0), str(a, 1));
      if (!m) return a.length > 2 ? arg(a, 2) : false;
      return m.length > 1 ? (m[1] ?? '') : m[0];
    },
    regex_match: (_c, a) => {
      const m = regexes.exec(re(a, 0), str(a, 1));
      return m ? m[0] : false;
    },
    regex_test: (_c, a) => regexes.test(re(a, 0), str(a, 1)),
    regex_to_string: (_c, a) => re(a, 0).source,
  };
}
