// Date mode of Set Variable: an input date (absolute, relative or both) and an output format.
// Input dates without a zone are UTC; the output is shown in a chosen zone (UTC by default).
import { UTC, offsetAt, offsetText, zoneAbbr, type Zone } from '@capture/sdk/time-zone';

const UNITS: Record<string, string> = {
  s: 'second',
  sec: 'second',
  secs: 'second',
  second: 'second',
  seconds: 'second',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  h: 'hour',
  hour: 'hour',
  hours: 'hour',
  d: 'day',
  day: 'day',
  days: 'day',
  w: 'week',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  y: 'year',
  year: 'year',
  years: 'year',
};
const RELATIVE = /([+-]?)\s*(\d+)\s*(seconds?|secs?|s|minutes?|mins?|hours?|h|days?|d|weeks?|w|months?|years?|y)\b(\s+ago)?/gi;
const MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };

function midnight(t: number, days = 0): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days);
}

function addMonths(t: number, months: number): number {
  const d = new Date(t);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

function parseBase(text: string, now: number): number {
  const s = text.trim().toLowerCase();
  if (s === '' || s === 'now') return now;
  if (s === 'today' || s === 'midnight') return midnight(now);
  if (s === 'tomorrow') return midnight(now, 1);
  if (s === 'yesterday') return midnight(now, -1);
  const unix = /^@?(\d{1,16})(\.\d+)?$/.exec(s);
  if (unix) return unix[1].length >= 13 ? Number(unix[1]) : Number(unix[1] + (unix[2] ?? '')) * 1000;
  // "2024-01-02 03:04:05" and "2024-01-02" without a zone are UTC.
  const iso = /^\d{4}-\d\d-\d\d([ t]\d\d:\d\d(:\d\d(\.\d+)?)?)?$/.test(s) ? text.trim().replace(' ', 'T') + (s.length > 10 ? 'Z' : '') : text.trim();
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`Unrecognised date ${JSON.stringify(text)}`);
  return t;
}

/** "now", "2024-01-02", "1704164645", "-30 days", "tomorrow +2 hours", "3 days ago"... */
export function parseDateInput(input: string, now: number): number {
  let offsetMs = 0;
  let months = 0;
  const rest = input.replace(RELATIVE, (_m, sign: string, n: string, unit: string, ago: string | undefined) => {
    const u = UNITS[unit.toLowerCase()];
    const amount = Number(n) * (sign === '-' ? -1 : 1) * (ago ? -1 : 1);
    if (u === 'month') months += amount;
    else if (u === 'year') months += amount * 12;
    else offsetMs += amount * MS[u];
    return ' ';
  });
  return addMonths(parseBase(rest, now), months) + offsetMs;
}

const pad = (n: number, w = 2) => String(Math.trunc(Math.abs(n))).padStart(w, '0');
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function isoWeek(d: Date): { week: number; year: number } {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  return { week: Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7), year: t.getUTCFullYear() };
}

/** PHP date() format characters, shown in `zone` (UTC by default); `\x` writes x. */
export function formatPhpDate(t: number, format: string, zone: Zone = UTC): string {
  const offset = offsetAt(zone, t);
  // The wall clock of the zone, read with the UTC getters.
  const d = new Date(t + offset * 60_000);
  const Y = d.getUTCFullYear(),
    m = d.getUTCMonth(),
    j = d.getUTCDate(),
    w = d.getUTCDay();
  const H = d.getUTCHours(),
    i = d.getUTCMinutes(),
    s = d.getUTCSeconds(),
    ms = d.getUTCMilliseconds();
  const leap = (Y % 4 === 0 && Y % 100 !== 0) || Y % 400 === 0;
  const dayOfYear = Math.floor((Date.UTC(Y, m, j) - Date.UTC(Y, 0, 1)) / 86_400_000);
  const suffix = j % 10 === 1 && j !== 11 ? 'st' : j % 10 === 2 && j !== 12 ? 'nd' : j % 10 === 3 && j !== 13 ? 'rd' : 'th';
  const chars: Record<string, () => string> = {
    d: () => pad(j),
    D: () => DAYS[w].slice(0, 3),
    j: () => String(j),
    l: () => DAYS[w],
    N: () => String(w || 7),
    S: () => suffix,
    w: () => String(w),
    z: () => String(dayOfYear),
    W: () => pad(isoWeek(d).week),
    F: () => MONTHS[m],
    m: () => pad(m + 1),
    M: () => MONTHS[m].slice(0, 3),
    n: () => String(m + 1),
    t: () => String(new Date(Date.UTC(Y, m + 1, 0)).getUTCDate()),
    L: () => (leap ? '1' : '0'),
    o: () => String(isoWeek(d).year),
    Y: () => String(Y),
    y: () => pad(Y % 100),
    a: () => (H < 12 ? 'am' : 'pm'),
    A: () => (H < 12 ? 'AM' : 'PM'),
    g: () => String(H % 12 || 12),
    G: () => String(H),
    h: () => pad(H % 12 || 12),
    H: () => pad(H),
    i: () => pad(i),
    s: () => pad(s),
    u: () => pad(ms * 1000, 6),
    v: () => pad(ms, 3),
    e: () => zone.name,
    T: () => zoneAbbr(zone, t),
    P: () => offsetText(offset, true),
    p: () => (offset ? offsetText(offset, true) : 'Z'),
    O: () => offsetText(offset, false),
    Z: () => String(offset * 60),
    I: () => (isDst(zone, t, offset) ? '1' : '0'),
    c: () => formatPhpDate(t, 'Y-m-d\\TH:i:sP', zone),
    r: () => formatPhpDate(t, 'D, d M Y H:i:s O', zone),
    U: () => String(Math.floor(t / 1000)),
  };
  let out = '';
  for (let k = 0; k < format.length; k++) {
    const ch = format[k];
    if (ch === '\\' && k + 1 < format.length) out += format[++k];
    else out += chars[ch]?.() ?? ch;
  }
  return out;
}

/** Daylight saving time: the offset now is larger than the zone's smallest in the year. */
function isDst(zone: Zone, t: number, offset: number): boolean {
  if (zone.kind === 'fixed') return false;
  const year = new Date(t).getUTCFullYear();
  return offset > Math.min(offsetAt(zone, Date.UTC(year, 0, 1)), offsetAt(zone, Date.UTC(year, 6, 1)));
}

export const DATE_FORMATS = ['iso8601', 'mysql', 'unix', 'unixmicro', 'user'] as const;

export function formatDate(t: number, format: (typeof DATE_FORMATS)[number], userFormat = '', zone: Zone = UTC): string {
  switch (format) {
    case 'iso8601':
      return formatPhpDate(t, 'Y-m-d\\TH:i:sP', zone);
    case 'mysql':
      return formatPhpDate(t, 'Y-m-d H:i:s', zone);
    case 'unix':
      return String(Math.floor(t / 1000));
    case 'unixmicro':
      return String(Math.floor(t) * 1000);
    case 'user':
      return formatPhpDate(t, userFormat, zone);
  }
}
