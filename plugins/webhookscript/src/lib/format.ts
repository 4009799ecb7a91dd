// string_format(): `{}` placeholders, or PHP sprintf conversions (%s %d %05.2f %x %'*10s %1$s...).
import { fail } from '../lang/errors.js';
import { numberText, toText, type Value } from '../lang/values.js';
import { toNumber } from './math.js';

const SPEC = /%(?:(\d+)\$)?([-+ 0]|'.)*(\d+)?(?:\.(\d+))?([bcdeEfFgGosuxX%])/y;

export function format(template: string, items: Value[]): string {
  if (template.includes('{}')) {
    let i = 0;
    return template.replace(/\{\}/g, () => (i < items.length ? toText(items[i++]) : '{}'));
  }
  let out = '';
  let next = 0;
  let pos = 0;
  while (pos < template.length) {
    const at = template.indexOf('%', pos);
    if (at < 0) {
      out += template.slice(pos);
      break;
    }
    out += template.slice(pos, at);
    SPEC.lastIndex = at;
    const m = SPEC.exec(template);
    if (!m) {
      // Not a conversion ("50% off"): keep it as written.
      out += '%';
      pos = at + 1;
      continue;
    }
    pos = SPEC.lastIndex;
    const conv = m[5];
    if (conv === '%') {
      out += '%';
      continue;
    }
    const flagText = m[0].slice(1 + (m[1] ? m[1].length + 1 : 0), m[0].length - 1 - (m[4] !== undefined ? m[4].length + 1 : 0) - (m[3]?.length ?? 0));
    let left = false;
    let plus = false;
    let pad = ' ';
    for (let i = 0; i < flagText.length; i++) {
      const f = flagText[i];
      if (f === '-') left = true;
      else if (f === '+') plus = true;
      else if (f === '0') pad = '0';
      else if (f === ' ') pad = ' ';
      else if (f === "'") pad = flagText[++i];
    }
    const index = m[1] ? Number(m[1]) - 1 : next++;
    if (index >= items.length) fail(`string_format: ${items.length} item(s) given, the format needs more`);
    const v = items[index];
    const precision = m[4] !== undefined ? Number(m[4]) : undefined;
    let s: string;
    const n = () => toNumber(v);
    switch (conv) {
      case 's':
        s = toText(v);
        if (precision !== undefined) s = s.slice(0, precision);
        break;
      case 'd':
      case 'u': {
        const x = Math.trunc(n());
        s = (plus && x >= 0 ? '+' : '') + String(x);
        break;
      }
      case 'f':
      case 'F': {
        const x = n();
        s = (plus && x >= 0 ? '+' : '') + x.toFixed(precision ?? 6);
        break;
      }
      case 'e':
      case 'E': {
        const x = n();
        s = x.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$1$2');
        if (conv === 'E') s = s.toUpperCase();
        break;
      }
      case 'g':
      case 'G':
        s = numberText(Number(n().toPrecision(precision || 6)));
        break;
      case 'b':
        s = Math.trunc(n()).toString(2);
        break;
      case 'o':
        s = Math.trunc(n()).toString(8);
        break;
      case 'x':
        s = Math.trunc(n()).toString(16);
        break;
      case 'X':
        s = Math.trunc(n()).toString(16).toUpperCase();
        break;
      case 'c':
        s = String.fromCodePoint(Math.trunc(n()));
        break;
      default:
        s = '';
    }
    const width = m[3] ? Number(m[3]) : 0;
    if (s.length < width) {
      const fill = (left && pad === '0' ? ' ' : pad).repeat(width - s.length);
      if (left) s += fill;
      else if (pad === '0' && /^[+-]/.test(s) && conv !== 's') s = s[0] + fill + s.slice(1);
      else s = fill + s;
    }
    out += s;
  }
  return out;
}
