// Dates are strings in the language; inside the library a date is an instant with microseconds
// and the zone it is shown in. Zones are IANA names (Intl) or fixed offsets (GMT-5, +02:00, UTC).
import { fail } from '../../lang/errors.js';

export interface WsDate {
  /** Epoch milliseconds. */
  ms: number;
  /** Microseconds within the millisecond (0-999). */
  micro: number;
  zone: Zone;
}

export type Zone = { kind: 'fixed'; offset: number; name: string } | { kind: 'iana'; name: string };

export const UTC: Zone = { kind: 'fixed', offset: 0, name: 'UTC' };

const formatters = new Map<string, Intl.DateTimeFormat>();

export function parseZone(text: string): Zone {
  const t = text.trim();
  if (/^(z|utc|gmt)$/i.test(t)) return UTC;
  const m = /^(?:utc|gmt)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(t);
  if (m) {
    const offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
    if (Math.abs(offset) > 18 * 60) fail(`the offset ${t} is out of range`);
    return { kind: 'fixed', offset, name: offsetText(offset, true) };
  }
  if (!formatters.has(t)) {
    try {
      formatters.set(t, new Intl.DateTimeFormat('en-US', { timeZone: t, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', timeZoneName: 'short' }));
    } catch {
      fail(`unknown timezone ${JSON.stringify(text)}`);
    }
  }
  return { kind: 'iana', name: t };
}

/** Minutes east of UTC of `zone` at instant `ms`. */
export function offsetAt(zone: Zone, ms: number): number {
  if (zone.kind === 'fixed') return zone.offset;
  const parts = formatters.get(zone.name)!.formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60000);
}

/** Short name of the zone at an instant (EST, CEST, UTC, +02:00). */
export function zoneAbbr(zone: Zone, ms: number): string {
  if (zone.kind === 'fixed') return zone.offset === 0 ? 'UTC' : offsetText(zone.offset, true);
  const parts = formatters.get(zone.name)!.formatToParts(new Date(ms));
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? zone.name;
}

export function offsetText(offset: number, colon: boolean): string {
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const hh = String(Math.floor(a / 60)).padStart(2, '0');
  const mm = String(a % 60).padStart(2, '0');
  return `${sign}${hh}${colon ? ':' : ''}${mm}`;
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
