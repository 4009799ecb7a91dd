// Reads dates: ISO 8601 and common layouts, `now`, `@timestamp`, relative words (`next Thursday`,
// `first day of January 2008`, `Monday next week`) and `+4 day` modifiers that may follow any of
// them; or a layout of date format characters (to_date's input_format).
import { fail } from '../../lang/errors.js';
import { EN_LOCALE, type Locale } from './format.js';
import { UTC, instantOf, parseZone, wallOf, type Wall, type WsDate, type Zone } from './zone.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const UNITS: Record<string, string> = {
  sec: 'second',
  secs: 'second',
  second: 'second',
  seconds: 'second',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  hour: 'hour',
  hours: 'hour',
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  fortnight: 'fortnight',
  fortnights: 'fortnight',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
};
const ORD: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, last: -1, next: 1, previous: -1, this: 0 };

const monthIndex = (s: string) => MONTHS.findIndex((m) => m === s.toLowerCase() || (m.slice(0, 3) === s.toLowerCase().slice(0, 3) && s.length >= 3));
const dayIndex = (s: string) => DAYS.findIndex((d) => d === s.toLowerCase() || (s.length >= 3 && d.startsWith(s.toLowerCase())));

function fromWall(w: Wall, zone: Zone, micro = 0): WsDate {
  return { ms: instantOf(w, zone), micro, zone };
}

function midnight(d: WsDate): Wall {
  const w = wallOf(d);
  return { year: w.year, month: w.month, day: w.day, hour: 0, minute: 0, second: 0, ms: 0 };
}

/** Adds `n` units in wall time (months clamp like PHP: Jan 31 +1 month = Mar 3). */
export function addUnits(d: WsDate, n: number, unit: string): WsDate {
  const w = wallOf(d);
  const wall: Wall = { year: w.year, month: w.month, day: w.day, hour: w.hour, minute: w.minute, second: w.second, ms: w.ms };
  switch (unit) {
    case 'second':
      return { ...d, ms: d.ms + n * 1000 };
    case 'minute':
      return { ...d, ms: d.ms + n * 60000 };
    case 'hour':
      return { ...d, ms: d.ms + n * 3600000 };
    case 'day':
      wall.day += n;
      break;
    case 'week':
      wall.day += 7 * n;
      break;
    case 'fortnight':
      wall.day += 14 * n;
      break;
    case 'month':
      wall.month += n;
      break;
    case 'year':
      wall.year += n;
      break;
  }
  return { ms: instantOf(wall, d.zone), micro: d.micro, zone: d.zone };
}

function weekdayFrom(d: WsDate, weekday: number, direction: 1 | -1 | 0): WsDate {
  const base = midnight(d);
  const current = wallOf(d).weekday;
  let diff = weekday - current;
  if (direction === 1) diff = diff <= 0 ? diff + 7 : diff;
  else if (direction === -1) diff = diff >= 0 ? diff - 7 : diff;
  else diff = diff < 0 ? diff + 7 : diff;
  return fromWall({ ...base, day: base.day + diff }, d.zone);
}

function timeOfDay(text: string | undefined): [number, number, number, number] | null {
  if (!text) return [0, 0, 0, 0];
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(am|pm|a\.m\.|p\.m\.)?$/i.exec(text.trim());
  if (!m || (!m[2] && !m[5])) return null;
  let h = Number(m[1]);
  if (m[5]) {
    const pm = m[5][0].toLowerCase() === 'p';
    if (h === 12) h = pm ? 12 : 0;
    else if (pm) h += 12;
  }
  const frac = (m[4] ?? '').padEnd(9, '0');
  return [h, Number(m[2] ?? 0), Number(m[3] ?? 0), Number(frac.slice(0, 6))];
}

function valid(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && h <= 24 && mi < 60 && s <= 60;
}

function absolute(text: string, zone: Zone, now: WsDate): WsDate | null {
  const t = text.trim();
  const lower = t.toLowerCase();
  if (lower === '' || lower === 'now') return now;
  if (lower === 'today' || lower === 'midnight') return fromWall(midnight(now), zone);
  if (lower === 'noon') return fromWall({ ...midnight(now), hour: 12 }, zone);
  if (lower === 'tomorrow') return fromWall({ ...midnight(now), day: midnight(now).day + 1 }, zone);
  if (lower === 'yesterday') return fromWall({ ...midnight(now), day: midnight(now).day - 1 }, zone);

  let m = /^@(-?\d+)(?:\.(\d{1,6}))?$/.exec(t);
  if (m) {
    const micro = Number((m[2] ?? '').padEnd(6, '0'));
    return { ms: Number(m[1]) * 1000 + Math.floor(micro / 1000), micro: micro % 1000, zone: UTC };
  }

  // ISO 8601 and YYYY/MM/DD, with an optional time and offset.
  m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:(?:T|\s+)(\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:\s*[ap]\.?m\.?)?))?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?|[A-Za-z]+\/[A-Za-z_/+-]+)?$/i.exec(t);
  if (m) return build(Number(m[1]), Number(m[2]), Number(m[3]), m[4], m[5], zone);
  // Compact ISO: 20200105T123015Z
  m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(t);
  if (m && t.length >= 8) return build(Number(m[1]), Number(m[2]), Number(m[3]), m[4] ? `${m[4]}:${m[5]}:${m[6] ?? '00'}` : undefined, m[7], zone);
  // American m/d/y, European d-m-y and d.m.y.
  m = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2,4})(?:\s+(.+?))?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (m) {
    const year = m[4].length === 2 ? 2000 + Number(m[4]) - (Number(m[4]) >= 70 ? 100 : 0) : Number(m[4]);
    const [mo, d] = m[2] === '/' ? [Number(m[1]), Number(m[3])] : [Number(m[3]), Number(m[1])];
    return build(year, mo, d, m[5], m[6], zone);
  }
  // "5 July 2008", "July 5, 2008", "Sat, 05 Jul 2008 18:26:25 +0000", with a time after.
  m = /^(?:[a-z]+,?\s+)?(\d{1,2})(?:st|nd|rd|th)?[\s-]+([a-z]+)\.?,?[\s-]+(\d{4})(?:,?\s+(?:at\s+)?(.+?))?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (m && monthIndex(m[2]) >= 0) return build(Number(m[3]), monthIndex(m[2]) + 1, Number(m[1]), m[4], m[5], zone);
  m = /^(?:[a-z]+,?\s+)?([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:,?\s+(?:at\s+)?(.+?))?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (m && monthIndex(m[1]) >= 0) return build(Number(m[3]), monthIndex(m[1]) + 1, Number(m[2]), m[4], m[5], zone);
  return relative(lower, zone, now);
}

function build(y: number, mo: number, d: number, time: string | undefined, offset: string | undefined, zone: Zone): WsDate | null {
  const tod = timeOfDay(time);
  if (!tod) return null;
  const [h, mi, s, micro] = tod;
  if (!valid(y, mo, d, h, mi, s)) return null;
  const z = offset ? parseZone(offset) : zone;
  return fromWall({ year: y, month: mo, day: d, hour: h, minute: mi, second: s, ms: Math.floor(micro / 1000) }, z, micro % 1000);
}

/** Relative words: next/last <weekday>, <weekday> next week, first/last day of <month> [year]... */
function relative(text: string, zone: Zone, now: WsDate): WsDate | null {
  let m = /^(next|last|previous|this)\s+([a-z]+)$/.exec(text);
  if (m) {
    const day = dayIndex(m[2]);
    if (day >= 0) return weekdayFrom(now, day, m[1] === 'next' ? 1 : m[1] === 'this' ? 0 : -1);
    const unit = UNITS[m[2]];
    if (unit) return addUnits(now, m[1] === 'next' ? 1 : m[1] === 'this' ? 0 : -1, unit);
  }
  m = /^([a-z]+)\s+(next|last|previous|this)\s+week$/.exec(text);
  if (m && dayIndex(m[1]) >= 0) {
    const week = addUnits(now, m[2] === 'next' ? 7 : m[2] === 'this' ? 0 : -7, 'day');
    const w = wallOf(week);
    const monday = fromWall({ ...midnight(week), day: w.day - ((w.weekday + 6) % 7) }, zone);
    return addUnits(monday, (dayIndex(m[1]) + 6) % 7, 'day');
  }
  if (dayIndex(text) >= 0 && /^[a-z]+$/.test(text)) return weekdayFrom(now, dayIndex(text), 0);
  // first/last day of [next month | <month> [year]]
  m = /^(first|last) day of\s+(.+)$/.exec(text);
  if (m) {
    const month = monthOf(m[2], zone, now);
    if (!month) return null;
    const w = wallOf(month);
    const day = m[1] === 'first' ? 1 : new Date(Date.UTC(w.year, w.month, 0)).getUTCDate();
    return fromWall({ year: w.year, month: w.month, day, hour: 0, minute: 0, second: 0, ms: 0 }, zone);
  }
  // first Saturday of July 2008, last friday of next month, first monday august 2019
  m = /^(first|second|third|fourth|fifth|last)\s+([a-z]+)\s+(?:of\s+)?(.+)$/.exec(text);
  if (m && dayIndex(m[2]) >= 0) {
    const month = monthOf(m[3], zone, now);
    if (!month) return null;
    const w = wallOf(month);
    const day = dayIndex(m[2]);
    if (m[1] === 'last') {
      const lastDay = new Date(Date.UTC(w.year, w.month, 0));
      const back = (lastDay.getUTCDay() - day + 7) % 7;
      return fromWall({ year: w.year, month: w.month, day: lastDay.getUTCDate() - back, hour: 0, minute: 0, second: 0, ms: 0 }, zone);
    }
    const firstDow = new Date(Date.UTC(w.year, w.month - 1, 1)).getUTCDay();
    const first = 1 + ((day - firstDow + 7) % 7);
    return fromWall({ year: w.year, month: w.month, day: first + 7 * (ORD[m[1]] - 1), hour: 0, minute: 0, second: 0, ms: 0 }, zone);
  }
  return null;
}

function monthOf(text: string, zone: Zone, now: WsDate): WsDate | null {
  const t = text.trim();
  if (t === 'this month') return now;
  if (t === 'next month') return addUnits(fromWall({ ...midnight(now), day: 1 }, zone), 1, 'month');
  if (t === 'last month' || t === 'previous month') return addUnits(fromWall({ ...midnight(now), day: 1 }, zone), -1, 'month');
  const m = /^([a-z]+)(?:\s+(\d{4}))?$/.exec(t);
  if (!m || monthIndex(m[1]) < 0) return null;
  const year = m[2] ? Number(m[2]) : wallOf(now).year;
  return fromWall({ year, month: monthIndex(m[1]) + 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0 }, zone);
}

/**
 * Parses `text`; a date without an offset is taken in `zone`. Returns null when it cannot be read.
 * `nowMs` is the current time (the action's clock).
 */
export function parseDate(text: string, zone: Zone, nowMs: number): WsDate | null {
  let rest = text.trim();
  const mods: Array<[number, string]> = [];
  // Trailing modifiers: "+1 hour", "-2 months", "+1 week 2 days", "3 days ago".
  for (;;) {
    const m = /(?:^|\s)([+-]?\s*\d+)\s*([a-z]+)(\s+ago)?\s*$/i.exec(rest);
    if (!m || !UNITS[m[2].toLowerCase()]) break;
    const before = rest.slice(0, m.index).trim();
    // Unsigned numbers are modifiers only alone or after another one ("1 week 2 days"), so that
    // "5 July" style dates stay dates.
    const signed = /^[+-]/.test(m[1]) || !!m[3];
    const afterModifier = !!UNITS[(/([a-z]+)$/i.exec(before)?.[1] ?? '').toLowerCase()] && /\d\s*[a-z]+$/i.test(before);
    if (!signed && before !== '' && !afterModifier) break;
    mods.unshift([Number(m[1].replace(/\s+/g, '')) * (m[3] ? -1 : 1), UNITS[m[2].toLowerCase()]]);
    rest = before;
  }
  const now: WsDate = { ms: nowMs, micro: 0, zone };
  let d = absolute(rest, zone, now);
  if (!d && mods.length === 0) {
    // Last resort: the JavaScript engine's reading of RFC 2822 and similar English dates.
    const hasZone = /(Z|UTC|GMT|[+-]\d{2}:?\d{2}|\b[ECMP][SD]T)\s*$/i.test(rest);
    const ms = Date.parse(hasZone ? rest : `${rest} UTC`);
    if (Number.isFinite(ms) && /\d/.test(rest)) d = hasZone ? { ms, micro: 0, zone: UTC } : fromWall(wallOf({ ms, micro: 0, zone: UTC }), zone);
  }
  if (!d) return null;
  for (const [n, unit] of mods) d = addUnits(d, n, unit);
  return d;
}

/** Reads `text` laid out as `format` (date format characters, `\x` and `[...]` literal). */
export function parseWithFormat(text: string, format: string, zone: Zone, nowMs: number, loc: Locale = EN_LOCALE): WsDate | null {
  const fields: Record<string, string> = {};
  const order: string[] = [];
  let re = '';
  const tokens = /\[([^\]]*)\]|\\(.)|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|dd|HH|H|hh|h|kk|k|mm|m|ss|s|S{1,9}|A|a|X|x|ZZ|Z|./g;
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const names = (list: string[]) =>
    list
      .map(esc)
      .sort((a, b) => b.length - a.length)
      .join('|');
  for (const m of format.matchAll(tokens)) {
    const tok = m[0];
    if (m[1] !== undefined) re += esc(m[1]);
    else if (m[2] !== undefined) re += esc(m[2]);
    else {
      const group = (p: string) => {
        order.push(tok);
        re += `(${p})`;
      };
      switch (tok) {
        case 'YYYY':
          group('[+-]?\\d{4,6}');
          break;
        case 'YY':
          group('\\d{2}');
          break;
        case 'MMMM':
          group(names([...loc.months, ...EN_LOCALE.months]));
          break;
        case 'MMM':
          group(names([...loc.monthsShort, ...EN_LOCALE.monthsShort]));
          break;
        case 'MM':
        case 'DD':
        case 'HH':
        case 'hh':
        case 'kk':
        case 'mm':
        case 'ss':
          group('\\d{2}');
          break;
        case 'M':
        case 'D':
        case 'H':
        case 'h':
        case 'k':
        case 'm':
        case 's':
          group('\\d{1,2}');
          break;
        case 'Do':
          group('\\d{1,2}(?:st|nd|rd|th|\\.)?');
          break;
        case 'dddd':
        case 'ddd':
        case 'dd':
          group('[^\\s\\d,.]+');
          break;
        case 'A':
        case 'a':
          group('[aApP]\\.?[mM]\\.?');
          break;
        case 'X':
          group('-?\\d+(?:\\.\\d+)?');
          break;
        case 'x':
          group('-?\\d+');
          break;
        case 'Z':
        case 'ZZ':
          group('Z|[+-]\\d{2}:?\\d{2}');
          break;
        default:
          if (/^S+$/.test(tok)) group(`\\d{${tok.length}}`);
          else re += esc(tok);
      }
    }
  }
  const m = new RegExp(`^\\s*${re}\\s*$`, 'i').exec(text);
  if (!m) return null;
  order.forEach((tok, i) => (fields[tok] = m[i + 1]));
  if (fields.X !== undefined) return parseDate('@' + fields.X, UTC, nowMs);
  if (fields.x !== undefined) return { ms: Number(fields.x), micro: 0, zone: UTC };
  const today = wallOf({ ms: nowMs, micro: 0, zone });
  let year = today.year;
  if (fields.YYYY) year = Number(fields.YYYY);
  else if (fields.YY) year = 2000 + Number(fields.YY) - (Number(fields.YY) >= 70 ? 100 : 0);
  let month = fields.YYYY || fields.YY ? 1 : today.month;
  const find = (list: string[], v: string) => list.findIndex((x) => x.toLowerCase() === v.toLowerCase());
  if (fields.MMMM) month = Math.max(find(loc.months, fields.MMMM), find(EN_LOCALE.months, fields.MMMM)) + 1;
  else if (fields.MMM) month = Math.max(find(loc.monthsShort, fields.MMM), find(EN_LOCALE.monthsShort, fields.MMM)) + 1;
  else if (fields.MM ?? fields.M) month = Number(fields.MM ?? fields.M);
  const day = Number(fields.DD ?? fields.D ?? parseInt(fields.Do ?? '', 10) ?? NaN) || (fields.YYYY || fields.MM || fields.M ? 1 : today.day);
  let hour = Number(fields.HH ?? fields.H ?? fields.hh ?? fields.h ?? fields.kk ?? fields.k ?? 0);
  const ampm = fields.A ?? fields.a;
  if (ampm) {
    const pm = ampm[0].toLowerCase() === 'p';
    if (hour === 12) hour = pm ? 12 : 0;
    else if (pm) hour += 12;
  }
  if ((fields.kk ?? fields.k) !== undefined && hour === 24) hour = 0;
  const minute = Number(fields.mm ?? fields.m ?? 0);
  const second = Number(fields.ss ?? fields.s ?? 0);
  const fracTok = order.find((t) => /^S+$/.test(t));
  const micro = fracTok ? Number(fields[fracTok].padEnd(6, '0').slice(0, 6)) : 0;
  if (!valid(year, month, day, hour, minute, second)) return null;
  const z = (fields.Z ?? fields.ZZ) ? parseZone(fields.Z ?? fields.ZZ) : zone;
  return fromWall({ year, month, day, hour, minute, second, ms: Math.floor(micro / 1000) }, z, micro % 1000);
}

export function requireDate(d: WsDate | null, text: string): WsDate {
  return d ?? fail(`could not read the date ${JSON.stringify(text)}`);
}
