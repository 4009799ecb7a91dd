// Time zones for plugins that show dates: IANA names (through Intl) or fixed offsets
// (GMT-5, +02:00, UTC). One module, so every action reads a zone the same way.

export type Zone = { kind: 'fixed'; offset: number; name: string } | { kind: 'iana'; name: string };

export const UTC: Zone = { kind: 'fixed', offset: 0, name: 'UTC' };

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Zone names are user input: the cache of formatters stays bounded. */
const MAX_FORMATTERS = 500;

/** Parses a zone name or offset; throws an Error naming it when it is neither. */
export function parseZone(text: string): Zone {
  const t = text.trim();
  if (/^(z|utc|gmt)$/i.test(t)) return UTC;
  const m = /^(?:utc|gmt)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(t);
  if (m) {
    const offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
    if (Math.abs(offset) > 18 * 60) throw new Error(`the offset ${t} is out of range`);
    return { kind: 'fixed', offset, name: offsetText(offset, true) };
  }
  if (!formatters.has(t)) {
    let f: Intl.DateTimeFormat;
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: t, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', timeZoneName: 'short' });
    } catch {
      throw new Error(`unknown timezone ${JSON.stringify(text)}`);
    }
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(t, f);
  }
  return { kind: 'iana', name: t };
}

function formatter(name: string): Intl.DateTimeFormat {
  if (!formatters.has(name)) parseZone(name);
  return formatters.get(name)!;
}

/** Minutes east of UTC of `zone` at instant `ms`. */
export function offsetAt(zone: Zone, ms: number): number {
  if (zone.kind === 'fixed') return zone.offset;
  const parts = formatter(zone.name).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60000);
}

/** Short name of the zone at an instant (EST, CEST, UTC, +02:00). */
export function zoneAbbr(zone: Zone, ms: number): string {
  if (zone.kind === 'fixed') return zone.offset === 0 ? 'UTC' : offsetText(zone.offset, true);
  const parts = formatter(zone.name).formatToParts(new Date(ms));
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? zone.name;
}

/** +02:00 (colon) or +0200. */
export function offsetText(offset: number, colon: boolean): string {
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const hh = String(Math.floor(a / 60)).padStart(2, '0');
  const mm = String(a % 60).padStart(2, '0');
  return `${sign}${hh}${colon ? ':' : ''}${mm}`;
}
