// Date expressions (reference: webhook.site api/date-expressions.md), all in UTC:
//
//   now | * | <date> | <date>||   followed by any number of  +N<unit>  -N<unit>  /<unit>
//
// <date> is `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (separators `-`, `.` or `/`), optionally followed by
// ` HH:MM[:SS[.fff]]` or `THH:MM[:SS[.fff]]` and a zone (`Z`, `+02:00`, `+0200`; default UTC), or
// epoch milliseconds (9 or more digits). Math needs the `||` separator after a written date.
// Units: y M w d h H m s. `/unit` rounds down (weeks start on Monday). Adding months or years
// clamps the day to the end of the target month (Jan 31 + 1M = Feb 28/29).
//
// Besides an instant, an expression has a precision, which makes it a span [start, end):
// the last `/unit` if there is one, else the written date's own precision when no arithmetic was
// applied (`2022-01-01` is a whole day, `2022-01-01 10:00:00` a whole second), else 1 ms.
// values.ts uses spans so `created_at:2022-01-01` means that day and `[a TO 2022-12-31]` includes
// all of Dec 31, like Elasticsearch's rounding rules.
import { QuerySyntaxError, quote } from './errors.js';

export type DateUnit = 'y' | 'M' | 'w' | 'd' | 'h' | 'm' | 's' | 'ms';

export interface DateSpan {
  start: number;
  /** Exclusive. */
  end: number;
}

const FIXED_MS: Record<'w' | 'd' | 'h' | 'm' | 's' | 'ms', number> = {
  w: 7 * 86_400_000,
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
};

/** JS dates are valid within ±8.64e15 ms of the epoch. */
const MAX_TIME = 8.64e15;

const DATE = /^(\d{4})(?:[-./](\d{1,2})(?:[-./](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?$/;
const EPOCH_MS = /^\d{9,}$/;
const OP = /^(?:([+-])(\d{1,9})([yMwdhHms])|\/([yMwdhHms]))/;

/** Start of the expression's span, in epoch ms. */
export function resolveDate(expr: string, now: number, position = 0): number {
  return resolveDateSpan(expr, now, position).start;
}

export function resolveDateSpan(expr: string, now: number, position = 0): DateSpan {
  const fail = (): never => {
    throw new QuerySyntaxError(`Invalid date expression ${quote(expr)}`, position);
  };
  let time: number;
  let precision: DateUnit;
  let rest: string;

  if (expr.startsWith('now') || expr.startsWith('*')) {
    time = now;
    precision = 'ms';
    rest = expr.slice(expr.startsWith('now') ? 3 : 1);
  } else {
    const bar = expr.indexOf('||');
    const written = parseWrittenDate(bar >= 0 ? expr.slice(0, bar) : expr) ?? fail();
    time = written.time;
    precision = written.precision;
    rest = bar >= 0 ? expr.slice(bar + 2) : '';
  }

  let rounded = false;
  while (rest !== '') {
    const op = OP.exec(rest) ?? fail();
    rest = rest.slice(op[0].length);
    if (op[4] !== undefined) {
      const unit = normalize(op[4]);
      time = roundDown(time, unit);
      precision = unit;
      rounded = true;
    } else {
      const amount = Number(op[2]) * (op[1] === '-' ? -1 : 1);
      time = add(time, normalize(op[3]), amount);
      if (!rounded) precision = 'ms';
    }
    if (!Number.isFinite(time) || Math.abs(time) > MAX_TIME) fail();
  }
  const end = add(time, precision, 1);
  if (!Number.isFinite(end) || Math.abs(end) > MAX_TIME) fail();
  return { start: time, end };
}

function normalize(unit: string): DateUnit {
  return unit === 'H' ? 'h' : (unit as DateUnit);
}

function parseWrittenDate(text: string): { time: number; precision: DateUnit } | null {
  if (EPOCH_MS.test(text)) {
    const time = Number(text);
    return time <= MAX_TIME ? { time, precision: 'ms' } : null;
  }
  const m = DATE.exec(text);
  if (!m) return null;
  const [, y, mo = '1', d = '1', h = '0', mi = '0', s = '0', frac, zone] = m;
  const year = Number(y);
  const month = Number(mo) - 1;
  const day = Number(d);
  if (month > 11 || month < 0 || day < 1 || day > daysInMonth(year, month)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const ms = frac === undefined ? 0 : Number(frac.padEnd(3, '0').slice(0, 3));
  let time = utc(year, month, day, Number(h), Number(mi), Number(s), ms);
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.replace(':', '');
    const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
    if (Number(digits.slice(3, 5)) > 59) return null;
    time -= zone.startsWith('-') ? -offset : offset;
  }
  const precision: DateUnit = frac !== undefined ? 'ms' : m[6] !== undefined ? 's' : m[4] !== undefined ? 'm' : m[3] !== undefined ? 'd' : m[2] !== undefined ? 'M' : 'y';
  return { time, precision };
}

/** Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not. */
function utc(year: number, month: number, day: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, mi, s, ms);
  return d.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(utc(year, month + 1, 0)).getUTCDate();
}

function add(time: number, unit: DateUnit, amount: number): number {
  if (unit === 'y' || unit === 'M') {
    const d = new Date(time);
    const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + (unit === 'y' ? amount * 12 : amount);
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    const day = Math.min(d.getUTCDate(), daysInMonth(year, month));
    return utc(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  }
  return time + amount * FIXED_MS[unit];
}

function roundDown(time: number, unit: DateUnit): number {
  const d = new Date(time);
  switch (unit) {
    case 'y':
      return utc(d.getUTCFullYear(), 0, 1);
    case 'M':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'w': {
      const day = roundDown(time, 'd');
      const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
      return day - sinceMonday * FIXED_MS.d;
    }
    default: {
      const size = FIXED_MS[unit];
      return time - (((time % size) + size) % size);
    }
  }
}
