// Date format characters (date-format.markdown: Carbon's isoFormat, as Moment.js), with names
// from dayjs' locale files.
import { createRequire } from 'node:module';
import { fail } from '../../lang/errors.js';
import { offsetText, wallOf, zoneAbbr, type WsDate } from './zone.js';

interface Locale {
  name: string;
  months: string[];
  monthsShort: string[];
  weekdays: string[];
  weekdaysShort: string[];
  weekdaysMin: string[];
  ordinal(n: number, unit?: string): string;
  formats: Record<string, string>;
  meridiem(hour: number, minute: number, lower: boolean): string;
}

const EN: Locale = {
  name: 'en',
  months: 'January February March April May June July August September October November December'.split(' '),
  monthsShort: 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' '),
  weekdays: 'Sunday Monday Tuesday Wednesday Thursday Friday Saturday'.split(' '),
  weekdaysShort: 'Sun Mon Tue Wed Thu Fri Sat'.split(' '),
  weekdaysMin: 'Su Mo Tu We Th Fr Sa'.split(' '),
  ordinal: (n) => {
    const s = ['th', 'st', 'nd', 'rd'];
    const v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  },
  formats: { LT: 'h:mm A', LTS: 'h:mm:ss A', L: 'MM/DD/YYYY', LL: 'MMMM D, YYYY', LLL: 'MMMM D, YYYY h:mm A', LLLL: 'dddd, MMMM D, YYYY h:mm A' },
  meridiem: (h, _m, lower) => (h < 12 ? (lower ? 'am' : 'AM') : lower ? 'pm' : 'PM'),
};

const require = createRequire(import.meta.url);
const locales = new Map<string, Locale>([['en', EN]]);

type Names = string[] | (((...a: unknown[]) => string) & { s?: string[]; f?: string[]; format?: string[]; standalone?: string[] });
const names = (v: unknown, fallback: string[]): string[] => {
  if (Array.isArray(v)) return v as string[];
  const f = v as Names | undefined;
  if (f && typeof f === 'function') return f.f ?? f.format ?? f.s ?? f.standalone ?? fallback;
  if (f && typeof f === 'object') {
    const o = f as { format?: string[]; standalone?: string[] };
    return o.format ?? o.standalone ?? fallback;
  }
  return fallback;
};

/** A locale by name (`da`, `es`, `pt_BR`); English for null, "", "en". */
export function locale(name: string | null): Locale {
  const key = (name ?? 'en').trim().toLowerCase().replace(/_/g, '-') || 'en';
  const known = locales.get(key);
  if (known) return known;
  if (!/^[a-z]{2,3}(-[a-z0-9]{2,4})?$/.test(key)) fail(`unknown locale ${JSON.stringify(name)}`);
  let raw: Record<string, unknown>;
  try {
    const mod = require(`dayjs/locale/${key}.js`) as Record<string, unknown> & { default?: Record<string, unknown> };
    raw = (mod.default ?? mod) as Record<string, unknown>;
  } catch {
    const short = key.split('-')[0];
    if (short !== key) return locale(short);
    return fail(`unknown locale ${JSON.stringify(name)}`);
  }
  const ordinal = raw.ordinal as ((n: number, unit?: string) => string) | undefined;
  const meridiem = raw.meridiem as ((h: number, m: number, lower: boolean) => string) | undefined;
  const l: Locale = {
    name: key,
    months: names(raw.months, EN.months),
    monthsShort: names(
      raw.monthsShort,
      names(raw.months, EN.months).map((m) => m.slice(0, 3)),
    ),
    weekdays: names(raw.weekdays, EN.weekdays),
    weekdaysShort: names(
      raw.weekdaysShort,
      names(raw.weekdays, EN.weekdays).map((d) => d.slice(0, 3)),
    ),
    weekdaysMin: names(
      raw.weekdaysMin,
      names(raw.weekdays, EN.weekdays).map((d) => d.slice(0, 2)),
    ),
    ordinal: ordinal
      ? (n, unit) =>
          String(ordinal(n, unit))
            .replace(/^\[|\]$/g, '')
            .replace(/\[|\]/g, '')
      : EN.ordinal,
    formats: { ...EN.formats, ...((raw.formats as Record<string, string>) ?? {}) },
    meridiem: meridiem ?? EN.meridiem,
  };
  locales.set(key, l);
  return l;
}

const TOKENS =
  /\[([^\]]*)\]|\\(.)|O[DMYHhms]|S{1,9}|Y{5,6}|YYYY|YY|Y|Qo|Q|MMMM|MMM|Mo|MM|M|DDDo|DDDD|DDD|Do|DD|D|dddd|ddd|do|dd|d|E|e|HH|H|hh|h|kk|k|mm|m|ss|s|A|a|x|X|ZZ|Z|zz|z|GGGGG|GGGG|GGG|GG|G|ggggg|gggg|ggg|gg|g|WW|Wo|W|ww|wo|w|LTS|LT|LLLL|LLL|LL|L|llll|lll|ll|l/g;

const pad = (n: number, w: number) => (n < 0 ? '-' + String(-n).padStart(w, '0') : String(n).padStart(w, '0'));

function dayOfYear(y: number, m: number, d: number): number {
  return Math.round((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / 86400000) + 1;
}

/** ISO week number and ISO week year. */
function isoWeek(y: number, m: number, d: number): { week: number; year: number } {
  const t = new Date(Date.UTC(y, m - 1, d));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day);
  const year = t.getUTCFullYear();
  const week = Math.ceil(((t.getTime() - Date.UTC(year, 0, 1)) / 86400000 + 1) / 7);
  return { week, year };
}

export function formatDate(d: WsDate, fmt: string, loc: Locale = EN, depth = 0): string {
  const w = wallOf(d);
  const micro = w.ms * 1000 + d.micro;
  const h12 = w.hour % 12 || 12;
  const iso = isoWeek(w.year, w.month, w.day);
  const doy = dayOfYear(w.year, w.month, w.day);
  return fmt.replace(TOKENS, (tok, bracket: string | undefined, escaped: string | undefined) => {
    if (bracket !== undefined) return bracket;
    if (escaped !== undefined) return escaped;
    if (/^S+$/.test(tok)) return String(micro).padStart(6, '0').padEnd(9, '0').slice(0, tok.length);
    if (tok[0] === 'O') tok = tok[1] === 'D' ? 'D' : tok[1] === 'M' ? 'M' : tok[1] === 'Y' ? 'YYYY' : tok[1];
    switch (tok) {
      case 'YYYYYY':
        return (w.year < 0 ? '-' : '+') + pad(Math.abs(w.year), 6);
      case 'YYYYY':
        return pad(w.year, 5);
      case 'YYYY':
        return pad(w.year, 4);
      case 'YY':
        return pad(w.year % 100, 2);
      case 'Y':
        return String(w.year);
      case 'Q':
        return String(Math.ceil(w.month / 3));
      case 'Qo':
        return loc.ordinal(Math.ceil(w.month / 3), 'Q');
      case 'MMMM':
        return loc.months[w.month - 1];
      case 'MMM':
        return loc.monthsShort[w.month - 1];
      case 'Mo':
        return loc.ordinal(w.month, 'M');
      case 'MM':
        return pad(w.month, 2);
      case 'M':
        return String(w.month);
      case 'DDDo':
        return loc.ordinal(doy, 'DDD');
      case 'DDDD':
        return pad(doy, 3);
      case 'DDD':
        return String(doy);
      case 'Do':
        return loc.ordinal(w.day, 'D');
      case 'DD':
        return pad(w.day, 2);
      case 'D':
        return String(w.day);
      case 'dddd':
        return loc.weekdays[w.weekday];
      case 'ddd':
        return loc.weekdaysShort[w.weekday];
      case 'dd':
        return loc.weekdaysMin[w.weekday];
      case 'do':
        return loc.ordinal(w.weekday, 'd');
      case 'd':
      case 'e':
        return String(w.weekday);
      case 'E':
        return String(w.weekday || 7);
      case 'HH':
        return pad(w.hour, 2);
      case 'H':
        return String(w.hour);
      case 'hh':
        return pad(h12, 2);
      case 'h':
        return String(h12);
      case 'kk':
        return pad(w.hour || 24, 2);
      case 'k':
        return String(w.hour || 24);
      case 'mm':
        return pad(w.minute, 2);
      case 'm':
        return String(w.minute);
      case 'ss':
        return pad(w.second, 2);
      case 's':
        return String(w.second);
      case 'A':
        return loc.meridiem(w.hour, w.minute, false);
      case 'a':
        return loc.meridiem(w.hour, w.minute, true);
      case 'x':
        return String(d.ms);
      case 'X':
        return String(Math.floor(d.ms / 1000));
      case 'Z':
        return offsetText(w.offset, true);
      case 'ZZ':
        return offsetText(w.offset, false);
      case 'z':
      case 'zz':
        return zoneAbbr(d.zone, d.ms);
      case 'G':
      case 'g':
        return String(iso.year);
      case 'GG':
      case 'gg':
        return pad(iso.year % 100, 2);
      case 'GGG':
      case 'ggg':
        return pad(iso.year, 3);
      case 'GGGG':
      case 'gggg':
        return pad(iso.year, 4);
      case 'GGGGG':
      case 'ggggg':
        return pad(iso.year, 5);
      case 'W':
      case 'w':
        return String(iso.week);
      case 'WW':
      case 'ww':
        return pad(iso.week, 2);
      case 'Wo':
      case 'wo':
        return loc.ordinal(iso.week, 'W');
      case 'LT':
      case 'LTS':
      case 'L':
      case 'LL':
      case 'LLL':
      case 'LLLL':
        return depth > 2 ? '' : formatDate(d, loc.formats[tok] ?? EN.formats[tok], loc, depth + 1);
      case 'l':
      case 'll':
      case 'lll':
      case 'llll': {
        const long = loc.formats[tok] ?? loc.formats[tok.toUpperCase()].replace(/MMMM/g, 'MMM').replace(/dddd/g, 'ddd');
        return depth > 2 ? '' : formatDate(d, long, loc, depth + 1);
      }
    }
    return tok;
  });
}

/** `2020-01-02T04:02:01.000000Z` (UTC) or `...-05:00`. */
export function isoString(d: WsDate): string {
  const s = formatDate(d, 'YYYY-MM-DD[T]HH:mm:ss.SSSSSS');
  const w = wallOf(d);
  return s + (d.zone.kind === 'fixed' && d.zone.offset === 0 ? 'Z' : offsetText(w.offset, true));
}

export const EN_LOCALE = EN;
export type { Locale };
