// string.md: general string functions and CSV (hashing, HTML, JSON, regex and XML are in their own modules).
import { randomInt, randomUUID } from 'node:crypto';
import { fail } from '../lang/errors.js';
import { WsArray, WsRegex, charCount, toText } from '../lang/values.js';
import type { Regexes } from './regex.js';
import { format } from './format.js';
import { arg, int, optInt, optStr, str, type Library } from './host.js';

const chars = (s: string) => Array.from(s);
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** PHP strtr with pairs: longest key first, replaced text is not searched again. */
function strtr(subject: string, pairs: Array<[string, string]>): string {
  const keys = pairs.filter(([k]) => k !== '').sort((a, b) => b[0].length - a[0].length);
  if (!keys.length) return subject;
  let out = '';
  let i = 0;
  outer: while (i < subject.length) {
    for (const [k, v] of keys) {
      if (subject.startsWith(k, i)) {
        out += v;
        i += k.length;
        continue outer;
      }
    }
    out += subject[i++];
  }
  return out;
}

/** PHP-style replacement ($1, \1, ${1}, $0) as a JavaScript replacement string. */
export function jsReplacement(r: string): string {
  return r.replace(/\$\{(\d+)\}|\\(\d+)|\$(\d+)|(\$)/g, (_m, a: string, b: string, c: string, dollar: string) => {
    if (dollar) return '$$';
    const n = a ?? b ?? c;
    return n === '0' ? '$&' : `$${n}`;
  });
}

function findIndex(subject: string, needle: string, last: boolean): number | false {
  const at = last ? subject.lastIndexOf(needle) : subject.indexOf(needle);
  if (at < 0) return false;
  return charCount(subject.slice(0, at));
}

/** Parses CSV; false when a quoted field never ends. */
export function parseCsv(text: string, delimiter: string, enclosure: string, escape: string): string[][] | false {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  let fieldStarted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (escape && c === escape && escape !== enclosure && text[i + 1] === enclosure) {
        field += c + enclosure;
        i += 2;
      } else if (c === enclosure) {
        if (text[i + 1] === enclosure) {
          field += enclosure;
          i += 2;
        } else {
          quoted = false;
          i++;
        }
      } else field += text[i++];
      continue;
    }
    if (c === enclosure && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i++;
    } else if (c === delimiter) {
      row.push(field);
      field = '';
      fieldStarted = false;
      i++;
    } else if (c === '\n' || c === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      fieldStarted = false;
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      fieldStarted = true;
      i++;
    }
  }
  if (quoted) return false;
  if (fieldStarted || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

function title(s: string): string {
  return s.toLowerCase().replace(/(^|[^\p{L}\p{N}'’])(\p{L})/gu, (_m, pre: string, l: string) => pre + l.toUpperCase());
}

function shuffle<T>(list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = randomInt(0, i + 1);
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

export { shuffle };

export function stringLibrary(rx: Regexes): Library {
  const toRegex = rx.fromString;
  return {
    string_contains: (_c, a) => {
      const s = str(a, 0);
      const v = arg(a, 1);
      if (v instanceof WsRegex) return rx.test(v, s);
      return s.includes(str(a, 1));
    },
    string_find_first: (_c, a) => findIndex(str(a, 0), str(a, 1), false),
    string_find_last: (_c, a) => findIndex(str(a, 0), str(a, 1), true),
    string_format: (_c, a) => format(str(a, 0), a.slice(1)),
    string_length: (_c, a) => charCount(str(a, 0)),
    string_lower: (_c, a) => str(a, 0).toLowerCase(),
    string_upper: (_c, a) => str(a, 0).toUpperCase(),
    string_title: (_c, a) => title(str(a, 0)),
    /** One argument: the string's number; two: how often the second occurs in the first. */
    string_number_of: (_c, a) => {
      const s = str(a, 0);
      if (a.length < 2) {
        const n = Number(s.trim());
        return s.trim() !== '' && Number.isFinite(n) ? n : 0;
      }
      const needle = str(a, 1);
      return needle === '' ? 0 : s.split(needle).length - 1;
    },
    string_random: (_c, a) => {
      const n = optInt(a, 0, 16);
      if (n < 0 || n > 1_000_000) fail('the length must be between 0 and 1000000');
      let out = '';
      for (let i = 0; i < n; i++) out += ALNUM[randomInt(0, ALNUM.length)];
      return out;
    },
    string_replace: (_c, a) => {
      const subject = str(a, 0);
      const search = arg(a, 1);
      if (search instanceof WsArray && a.length < 3) {
        return strtr(
          subject,
          [...search.map].map(([k, v]) => [String(k), toText(v)]),
        );
      }
      const replace = arg(a, 2);
      if (search instanceof WsRegex) return rx.replace(search, subject, jsReplacement(str(a, 2)), true);
      if (search instanceof WsArray) {
        const list = search.values();
        const reps = replace instanceof WsArray ? replace.values() : null;
        let out = subject;
        list.forEach((s, i) => {
          const r = reps ? toText(reps[i] ?? '') : str(a, 2);
          if (s instanceof WsRegex) out = rx.replace(s, out, jsReplacement(r), true);
          else if (toText(s) !== '') out = out.split(toText(s)).join(r);
        });
        return out;
      }
      const needle = str(a, 1);
      return needle === '' ? subject : subject.split(needle).join(str(a, 2));
    },
    string_reverse: (_c, a) => chars(str(a, 0)).reverse().join(''),
    string_slice: (_c, a) => {
      const list = chars(str(a, 0));
      const from = int(a, 1);
      const to = optInt(a, 2);
      return list.slice(from, to ?? undefined).join('');
    },
    string_shuffle: (_c, a) => shuffle(chars(str(a, 0))).join(''),
    string_split: (_c, a) => {
      const s = str(a, 0);
      const d = arg(a, 1);
      if (d instanceof WsRegex) return WsArray.list(rx.split(d, s));
      const delim = optStr(a, 1, '');
      return WsArray.list(delim === '' ? chars(s) : s.split(delim));
    },
    string_starts_with: (_c, a) => str(a, 0).startsWith(str(a, 1)),
    string_ends_with: (_c, a) => str(a, 0).endsWith(str(a, 1)),
    string_repeat: (_c, a) => {
      const n = int(a, 1);
      if (n < 0) fail('the count must not be negative');
      const s = str(a, 0);
      if (s.length * n > 5_000_000) fail('the result would be too long');
      return s.repeat(n);
    },
    trim: (_c, a) => {
      const s = str(a, 0);
      const set = optStr(a, 1);
      if (set === null) return s.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');
      const cs = new Set(chars(set));
      const list = chars(s);
      let i = 0;
      let j = list.length;
      while (i < j && cs.has(list[i])) i++;
      while (j > i && cs.has(list[j - 1])) j--;
      return list.slice(i, j).join('');
    },
    to_string: (_c, a) => toText(arg(a, 0)),
    to_regex: (_c, a) => {
      const v = arg(a, 0);
      return v instanceof WsRegex ? v : toRegex(str(a, 0));
    },
    uuid: () => randomUUID(),
    csv_to_array: (_c, a) => {
      const content = str(a, 0);
      const delimiter = optStr(a, 1, ',');
      const header = optInt(a, 2);
      const enclosure = optStr(a, 3, '"');
      const escape = optStr(a, 4, '\\');
      if ([...delimiter].length !== 1 || [...enclosure].length !== 1 || [...escape].length > 1) fail('the delimiter, enclosure and escape must be single characters');
      const rows = parseCsv(content, delimiter, enclosure, escape);
      if (rows === false) return false;
      if (header === null) return WsArray.list(rows.map((r) => WsArray.list(r)));
      const names = rows[header];
      if (!names) return WsArray.list([]);
      return WsArray.list(
        rows.slice(header + 1).map((r) => {
          const row = new WsArray();
          names.forEach((n, i) => row.set(n, r[i] ?? null));
          r.slice(names.length).forEach((v) => row.push(v));
          return row;
        }),
      );
    },
    convert_kana: (_c, a) => convertKana(str(a, 0), optStr(a, 1, 'KV')),
  };
}

// ---- convert_kana (mb_convert_kana) -------------------------------------------------------------

const HALF = 'ｦｧｨｩｪｫｬｭｮｯｰｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜﾝ';
const FULL = 'ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン';
const PUNCT_HALF = '｡｢｣､･';
const PUNCT_FULL = '。「」、・';
const VOICEABLE = 'カキクケコサシスセソタチツテトハヒフヘホウ';
const SEMI = 'ハヒフヘホ';

function convertKana(s: string, mode: string): string {
  const has = (f: string) => mode.includes(f);
  let out = '';
  const list = chars(s);
  for (let i = 0; i < list.length; i++) {
    let c = list[i];
    const cp = c.codePointAt(0)!;
    // r/R: letters, n/N: digits, a/A: all of U+0021..U+007E, s/S: space.
    const ascii = cp >= 0x21 && cp <= 0x7e;
    const full = cp >= 0xff01 && cp <= 0xff5e;
    const isDigit = (x: number) => x >= 0x30 && x <= 0x39;
    const isLetter = (x: number) => (x >= 0x41 && x <= 0x5a) || (x >= 0x61 && x <= 0x7a);
    if (full) {
      const h = cp - 0xfee0;
      if (has('a') || (has('r') && isLetter(h)) || (has('n') && isDigit(h))) c = String.fromCodePoint(h);
    } else if (ascii) {
      if (has('A') || (has('R') && isLetter(cp)) || (has('N') && isDigit(cp))) c = String.fromCodePoint(cp + 0xfee0);
    } else if (c === ' ' && has('S')) c = '\u3000';
    else if (c === '\u3000' && has('s')) c = ' ';
    const hi = HALF.indexOf(c);
    const pi = PUNCT_HALF.indexOf(c);
    if ((has('K') || has('H')) && (hi >= 0 || pi >= 0)) {
      if (pi >= 0) c = PUNCT_FULL[pi];
      else {
        let k = FULL[hi];
        const mark = list[i + 1];
        if (has('V') && mark === 'ﾞ' && VOICEABLE.includes(k)) {
          k = k === 'ウ' ? 'ヴ' : String.fromCodePoint(k.codePointAt(0)! + 1);
          i++;
        } else if (has('V') && mark === 'ﾟ' && SEMI.includes(k)) {
          k = String.fromCodePoint(k.codePointAt(0)! + 2);
          i++;
        }
        c = has('H') && k !== 'ー' && k !== 'ヴ' ? String.fromCodePoint(k.codePointAt(0)! - 0x60) : k;
      }
    } else if (has('k') || has('h')) {
      const fromHira = has('h') && cp >= 0x3041 && cp <= 0x3096;
      const kata = fromHira ? String.fromCodePoint(cp + 0x60) : c;
      const fi = FULL.indexOf(kata);
      if ((has('k') || fromHira) && fi >= 0) c = HALF[fi];
      else if (has('k') || fromHira) {
        const base = String.fromCodePoint(kata.codePointAt(0)! - 1);
        const base2 = String.fromCodePoint(kata.codePointAt(0)! - 2);
        if (VOICEABLE.includes(base) && FULL.includes(base) && kata !== 'ヴ') c = HALF[FULL.indexOf(base)] + 'ﾞ';
        else if (SEMI.includes(base2)) c = HALF[FULL.indexOf(base2)] + 'ﾟ';
        else if (kata === 'ヴ') c = 'ｳﾞ';
        const p = PUNCT_FULL.indexOf(c);
        if (p >= 0) c = PUNCT_HALF[p];
      }
    }
    if (has('C') && cp >= 0x3041 && cp <= 0x3096) c = String.fromCodePoint(cp + 0x60);
    else if (has('c') && cp >= 0x30a1 && cp <= 0x30f6) c = String.fromCodePoint(cp - 0x60);
    out += c;
  }
  return out;
}
