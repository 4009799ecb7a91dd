// Regexes are written in PCRE syntax (as in PHP); they run as JavaScript regexes in Unicode mode.
// The common differences are translated; every match goes through the SDK's watchdog (see lib/).
import { WsRuntimeError } from './errors.js';

const SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''));

/** Translates a PCRE pattern to JavaScript; inline flags at the start become flags. */
export function translatePcre(pattern: string, flags: string): { source: string; flags: string } {
  const out: string[] = [];
  const set = new Set(flags.split(''));
  let i = 0;
  const lead = /^\(\?([imsxUu]+)\)/.exec(pattern);
  if (lead) {
    for (const f of lead[1]) set.add(f);
    i = lead[0].length;
  }
  const extended = set.has('x');
  let inClass = false;
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) {
        out.push('\\\\');
        break;
      }
      i++;
      if (/[A-Za-z0-9]/.test(n)) {
        if (n === 'A' && !inClass) out.push('^');
        else if ((n === 'z' || n === 'Z') && !inClass) out.push('$');
        else if (n === 'h') out.push(inClass ? ' \\t' : '[ \\t]');
        else if (n === 'R' && !inClass) out.push('(?:\\r\\n|\\n|\\r)');
        else if (n === 'Q') {
          const end = pattern.indexOf('\\E', i + 1);
          const lit = pattern.slice(i + 1, end < 0 ? undefined : end);
          out.push(lit.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'));
          i = end < 0 ? pattern.length : end + 1;
        } else if (n === 'x' && pattern[i + 1] === '{') {
          const end = pattern.indexOf('}', i);
          out.push(`\\u{${pattern.slice(i + 2, end)}}`);
          i = end;
        } else out.push('\\' + n);
      } else if (SYNTAX.has(n) || (inClass && n === '-')) out.push('\\' + n);
      else out.push(n);
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out.push(c);
      continue;
    }
    if (c === '[') {
      inClass = true;
      out.push(c);
      if (pattern[i + 1] === '^') out.push(pattern[++i]);
      if (pattern[i + 1] === ']') out.push('\\' + pattern[++i]);
      continue;
    }
    if (extended && /\s/.test(c)) continue;
    if (extended && c === '#') {
      while (i < pattern.length && pattern[i] !== '\n') i++;
      continue;
    }
    if (c === '(' && pattern.startsWith('(?P<', i)) {
      out.push('(?<');
      i += 3;
      continue;
    }
    if (c === '(' && pattern.startsWith('(?P=', i)) {
      const end = pattern.indexOf(')', i);
      out.push(`\\k<${pattern.slice(i + 4, end)}>`);
      i = end;
      continue;
    }
    if (c === '(' && pattern.startsWith('(?>', i)) {
      out.push('(?:');
      i += 2;
      continue;
    }
    // Possessive quantifiers (a++, a*+, a?+, a{2}+) have no JavaScript form: drop the "+".
    if (c === '+' && out.length && /^[*+?}]$/.test(out[out.length - 1]) && !(out.length > 1 && out[out.length - 2] === '\\')) continue;
    out.push(c);
  }
  const js = [...set].filter((f) => 'ims'.includes(f)).join('');
  return { source: out.join(''), flags: js };
}

/** Compiles a PCRE pattern; a pattern JavaScript rejects in Unicode mode is tried without it. */
export function compilePattern(pattern: string, flags = ''): RegExp {
  const t = translatePcre(pattern, flags);
  try {
    return new RegExp(t.source, t.flags + 'u');
  } catch {
    try {
      return new RegExp(t.source, t.flags);
    } catch (e) {
      throw new WsRuntimeError(`Invalid regex ${JSON.stringify(pattern)}: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
  }
}

/** Reads PHP's delimited notation `/pattern/flags` (any non-alphanumeric delimiter, or brackets). */
export function parseDelimited(text: string): { pattern: string; flags: string } {
  const s = text.trim();
  const open = s[0];
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
  if (!open || /[A-Za-z0-9\\\s]/.test(open)) throw new WsRuntimeError(`The regex ${JSON.stringify(text)} needs delimiters, e.g. "/pattern/i"`);
  const close = pairs[open] ?? open;
  const end = s.lastIndexOf(close);
  if (end <= 0) throw new WsRuntimeError(`The regex ${JSON.stringify(text)} has no ending delimiter ${JSON.stringify(close)}`);
  const flags = s.slice(end + 1);
  if (!/^[a-zA-Z]*$/.test(flags)) throw new WsRuntimeError(`Unknown regex modifier in ${JSON.stringify(flags)}`);
  return { pattern: s.slice(1, end), flags };
}
