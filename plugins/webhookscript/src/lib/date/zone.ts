// Dates are strings in the language; inside the library a date is an instant with microseconds
// and the zone it is shown in. Zones are IANA names (Intl) or fixed offsets (GMT-5, +02:00, UTC).
import { UTC, offsetAt, offsetText, parseZone as parseSdkZone, zoneAbbr, type Zone } from '@capture/sdk/time-zone';
import { fail } from '../../lang/errors.js';

export interface WsDate {
  /** Epoch milliseconds. */
  ms: number;
  /** Microseconds within the millisecond (0-999). */
  micro: number;
  zone: Zone;
}

export { UTC, offsetAt, offsetText, zoneAbbr, type Zone };

/** A zone from a script's argument; a bad one is a script error. */
export function parseZone(text: string): Zone {
  try {
    return parseSdkZone(text);
  } catch (e) {
    return fail((e as Error).message);
  }
}

export interface Wall {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/** The wall-clock fields of a date in its zone. */
export function wallOf(d: WsDate): Wall & { offset: number; weekday: number } {
  const offset = offsetAt(d.zone, d.ms);
  const t = new Date(d.ms + offset * 60000);
  return {
    year: t.getUTCFullYear(),
    month: t.getUTCMonth() + 1,
    day: t.getUTCDate(),
    hour: t.getUTCHours(),
    minute: t.getUTCMinutes(),
    second: t.getUTCSeconds(),
    ms: t.getUTCMilliseconds(),
    offset,
    weekday: t.getUTCDay(),
  };
}

/** The instant at which `zone` shows the wall time (fields may overflow: month 13, day 0...). */
export function instantOf(w: Wall, zone: Zone): number {
  const utc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms);
  if (zone.kind === 'fixed') return utc - zone.offset * 60000;
  let guess = utc - offsetAt(zone, utc) * 60000;
  guess = utc - offsetAt(zone, guess) * 60000;
  return guess;
}
