// date.md: dates are strings; these functions read them (see date/parse.ts) and write them.
import { WsArray, type Value } from '../lang/values.js';
import { formatDate, isoString, locale } from './date/format.js';
import { parseDate, parseWithFormat, requireDate } from './date/parse.js';
import { UTC, parseZone, wallOf, type WsDate, type Zone } from './date/zone.js';
import { arg, bool, optStr, str, type Host, type Library } from './host.js';

const DEFAULT_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Calendar difference between two dates (PHP DateInterval): from the earlier to the later. */
function interval(a: WsDate, b: WsDate) {
  const invert = b.ms < a.ms || (b.ms === a.ms && b.micro < a.micro);
  const [from, to] = invert ? [b, a] : [a, b];
  const f = wallOf({ ...from, zone: UTC });
  const t = wallOf({ ...to, zone: UTC });
  let micro = t.ms * 1000 + to.micro - (f.ms * 1000 + from.micro);
  let s = t.second - f.second;
  let i = t.minute - f.minute;
  let h = t.hour - f.hour;
  let d = t.day - f.day;
  let m = t.month - f.month;
  let y = t.year - f.year;
  if (micro < 0) ((micro += 1_000_000), s--);
  if (s < 0) ((s += 60), i--);
  if (i < 0) ((i += 60), h--);
  if (h < 0) ((h += 24), d--);
  if (d < 0) {
    d += new Date(Date.UTC(t.year, t.month - 1, 0)).getUTCDate();
    m--;
  }
  if (m < 0) ((m += 12), y--);
  const days = Math.floor((to.ms - from.ms) / 86400000);
  return { y, m, d, h, i, s, micro, days, invert };
}

function formatInterval(iv: ReturnType<typeof interval>, fmt: string): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  const map: Record<string, string> = {
    y: String(iv.y),
    Y: String(iv.y).padStart(4, '0'),
    m: String(iv.m),
    M: p2(iv.m),
    d: String(iv.d),
    D: p2(iv.d),
    a: String(iv.days),
    h: String(iv.h),
    H: p2(iv.h),
    i: String(iv.i),
    I: p2(iv.i),
    s: String(iv.s),
    S: p2(iv.s),
    f: String(iv.micro),
    F: String(iv.micro).padStart(6, '0'),
    R: iv.invert ? '-' : '+',
    r: iv.invert ? '-' : '',
    '%': '%',
  };
  return fmt.replace(/%(.)/g, (whole, c: string) => map[c] ?? whole);
}

const HUMAN: Record<string, { units: Record<string, [string, string]>; after: string; before: string; fromNow: string; ago: string }> = {
  en: {
    units: { year: ['year', 'years'], month: ['month', 'months'], week: ['week', 'weeks'], day: ['day', 'days'], hour: ['hour', 'hours'], minute: ['minute', 'minutes'], second: ['second', 'seconds'] },
    after: '%s after',
    before: '%s before',
    fromNow: '%s from now',
    ago: '%s ago',
  },
  es: {
    units: { year: ['año', 'años'], month: ['mes', 'meses'], week: ['semana', 'semanas'], day: ['día', 'días'], hour: ['hora', 'horas'], minute: ['minuto', 'minutos'], second: ['segundo', 'segundos'] },
    after: '%s después',
    before: '%s antes',
    fromNow: 'en %s',
    ago: 'hace %s',
  },
  de: {
    units: { year: ['Jahr', 'Jahre'], month: ['Monat', 'Monate'], week: ['Woche', 'Wochen'], day: ['Tag', 'Tage'], hour: ['Stunde', 'Stunden'], minute: ['Minute', 'Minuten'], second: ['Sekunde', 'Sekunden'] },
    after: '%s später',
    before: '%s zuvor',
    fromNow: 'in %s',
    ago: 'vor %s',
  },
  fr: {
    units: { year: ['an', 'ans'], month: ['mois', 'mois'], week: ['semaine', 'semaines'], day: ['jour', 'jours'], hour: ['heure', 'heures'], minute: ['minute', 'minutes'], second: ['seconde', 'secondes'] },
    after: '%s après',
    before: '%s avant',
    fromNow: 'dans %s',
    ago: 'il y a %s',
  },
  da: {
    units: { year: ['år', 'år'], month: ['måned', 'måneder'], week: ['uge', 'uger'], day: ['dag', 'dage'], hour: ['time', 'timer'], minute: ['minut', 'minutter'], second: ['sekund', 'sekunder'] },
    after: '%s efter',
    before: '%s før',
    fromNow: 'om %s',
    ago: '%s siden',
  },
};

function human(a: WsDate, b: WsDate, relativeToNow: boolean, loc: string | null): string {
  const iv = interval(b, a);
  const words = HUMAN[(loc ?? 'en').toLowerCase().split(/[-_]/)[0]] ?? HUMAN.en;
  const weeks = Math.floor(iv.d / 7);
  const [n, unit] = iv.y ? [iv.y, 'year'] : iv.m ? [iv.m, 'month'] : weeks ? [weeks, 'week'] : iv.d ? [iv.d, 'day'] : iv.h ? [iv.h, 'hour'] : iv.i ? [iv.i, 'minute'] : [Math.max(iv.s, 1), 'second'];
  const text = `${n} ${words.units[unit][n === 1 ? 0 : 1]}`;
  const future = !iv.invert;
  const pattern = relativeToNow ? (future ? words.fromNow : words.ago) : future ? words.after : words.before;
  return pattern.replace('%s', text);
}

export function dateLibrary(host: Host): Library {
  const nowMs = () => host.ctx.services.clock.now();
  const zoneArg = (a: Value[], i: number): Zone | null => {
    const z = optStr(a, i);
    return z === null || z === '' ? null : parseZone(z);
  };
  const read = (text: string, zone: Zone = UTC) => requireDate(parseDate(text, zone, nowMs()), text);
  const inZone = (d: WsDate, zone: Zone | null): WsDate => (zone ? { ...d, zone } : d);
  return {
    now: (_c, a) => isoString({ ms: nowMs(), micro: 0, zone: zoneArg(a, 0) ?? UTC }),
    to_date: (_c, a) => {
      const text = str(a, 0);
      const format = optStr(a, 1);
      const loc = optStr(a, 2);
      const zone = zoneArg(a, 3) ?? UTC;
      const d = format ? parseWithFormat(text, format, zone, nowMs(), locale(loc)) : parseDate(text, zone, nowMs());
      if (!d) return null;
      return isoString(bool(a, 4) ? d : { ...d, zone: UTC });
    },
    date_format: (_c, a) => {
      const d = read(str(a, 0));
      return formatDate(inZone(d, zoneArg(a, 3)), optStr(a, 1) || DEFAULT_FORMAT, locale(optStr(a, 2)));
    },
    date_to_array: (_c, a) => {
      const d = read(str(a, 0));
      const w = wallOf(d);
      const doy = Math.round((Date.UTC(w.year, w.month - 1, w.day) - Date.UTC(w.year, 0, 1)) / 86400000) + 1;
      return WsArray.entries([
        ['year', w.year],
        ['month', w.month],
        ['day', w.day],
        ['dayOfWeek', w.weekday],
        ['dayOfYear', doy],
        ['hour', w.hour],
        ['minute', w.minute],
        ['second', w.second],
        ['micro', w.ms * 1000 + d.micro],
        ['timestamp', Math.floor(d.ms / 1000)],
        ['formatted', formatDate(d, DEFAULT_FORMAT)],
        ['timezone', d.zone.kind === 'fixed' && d.zone.offset === 0 ? 'Z' : d.zone.name],
      ]);
    },
    date_interval: (_c, a) => {
      const d1 = read(str(a, 0));
      const second = optStr(a, 1);
      const d2 = second === null ? { ms: nowMs(), micro: 0, zone: UTC } : read(second);
      const format = optStr(a, 2);
      if (format) return formatInterval(interval(d1, d2), format);
      return Math.trunc((d2.ms - d1.ms + (d2.micro - d1.micro) / 1000) / 1000);
    },
    date_interval_human: (_c, a) => {
      const d1 = read(str(a, 0));
      const second = optStr(a, 1);
      const d2 = second === null ? { ms: nowMs(), micro: 0, zone: UTC } : read(second);
      return human(d1, d2, second === null, optStr(a, 2));
    },
    date_add: (_c, a) => {
      const d = read(
        `${str(a, 0)} ${str(a, 1)
          .trim()
          .replace(/^(?=\d)/, '+')}`,
      );
      return isoString(d);
    },
    is_date: (_c, a) => typeof arg(a, 0) === 'string' && parseDate(str(a, 0), UTC, nowMs()) !== null,
  };
}
