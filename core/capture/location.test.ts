// Request location from the bundled GeoLite2 City database (real files, no stand-ins).
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { isPublicAddress, refusalReason } from '../net/outbound.js';
import { bundledDatabases, createLocator, locationDatabases, locationOf } from './location.js';

const files = bundledDatabases();

describe('request location', () => {
  it('is installed with the service', () => {
    expect(files).not.toBeNull();
    expect(locationDatabases([])).toEqual(files);
  });

  it('finds country, region and city of public IPv4 and IPv6 addresses', async () => {
    const locator = createLocator(files!, silentLogger);
    // MaxMind's own test address (Bracknell, England).
    expect(await locator.locate('81.2.69.142')).toEqual({ country: 'United Kingdom', country_code: 'GB', region: 'England', city: 'Bracknell' });
    // Loaded now: later lookups answer without waiting.
    const v6 = locator.locate('2a00:1450:4001:82a::200e');
    expect(v6).not.toBeInstanceOf(Promise);
    expect(v6).toMatchObject({ country: 'Germany', country_code: 'DE' });
    expect(locator.locate('::ffff:81.2.69.142')).toMatchObject({ country_code: 'GB' });
  });

  it('gives nothing, without reading the files, for private, loopback and reserved senders', () => {
    const locator = createLocator(['/nonexistent/never-read.mmdb'], silentLogger);
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '172.16.9.9', '192.168.1.10', '100.64.0.1', 'fd00::1', 'fe80::1', '169.254.1.1', '0.0.0.0', '', 'not-an-ip']) {
      expect(locator.locate(ip), ip).toBeNull();
    }
  });

  it('answers a sender seen before from memory, the same as the first time', async () => {
    const locator = createLocator(files!, silentLogger);
    const first = await locator.locate('81.2.69.142');
    const again = locator.locate('81.2.69.142');
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual(first);
    expect(locator.locate('127.0.0.1')).toBeNull();
    expect(locator.locate('127.0.0.1')).toBeNull();
    // Past the bound the memory starts over: every address still gets its own answer.
    for (let i = 0; i < 5000; i++) locator.locate(`81.2.${i % 250}.${Math.floor(i / 250)}`);
    expect(locator.locate('81.2.69.142')).toEqual(first);
    expect(locator.locate('10.0.0.1')).toBeNull();
  });

  it('reads the MaxMind GeoIP2 record shape too', () => {
    expect(locationOf({ country: { iso_code: 'DK', names: { en: 'Denmark' } }, subdivisions: [{ names: { en: 'Capital Region' } }], city: { names: { en: 'Copenhagen' } } })).toEqual({
      country: 'Denmark',
      country_code: 'DK',
      region: 'Capital Region',
      city: 'Copenhagen',
    });
    expect(locationOf({ country_code: 'US', state1: '', city: '' })).toEqual({ country: 'United States', country_code: 'US' });
    expect(locationOf({ country_code: '' })).toBeNull();
  });

  it('GEOIP_DATABASES: off turns it off; a missing file stops start-up with its name', () => {
    expect(locationDatabases(['off'])).toBeNull();
    expect(() => locationDatabases(['/nope/city.mmdb'])).toThrow(/GEOIP_DATABASES: \/nope\/city.mmdb does not exist/);
  });

  it('a database that cannot be read leaves requests without location', async () => {
    const locator = createLocator(['/nonexistent/city.mmdb'], silentLogger);
    expect(await locator.locate('81.2.69.142')).toBeNull();
    expect(locator.locate('81.2.69.142')).toBeNull();
  });
});

describe('isPublicAddress (which senders are looked up)', () => {
  it('draws the range boundaries where the outbound policy does', () => {
    const pub = ['1.1.1.1', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255', '2a00:1450::1'];
    const not = [
      '172.16.0.1',
      '172.31.255.255',
      '100.64.0.0',
      '100.127.255.255',
      '198.18.0.0',
      '198.19.255.255',
      '224.0.0.1',
      '255.255.255.255',
      '0.1.2.3',
      '::',
      '::ffff:10.0.0.1',
      'fc00::1',
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '1..2.3',
    ];
    for (const ip of pub) expect(isPublicAddress(ip), ip).toBe(true);
    for (const ip of not) expect(isPublicAddress(ip), ip).toBe(false);
  });

  it('agrees with the strict outbound policy on 20,000 random IPv4 addresses', () => {
    const strict = { allowLoopback: false, allowPrivate: false };
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    for (let i = 0; i < 20_000; i++) {
      const ip = [next(), next(), next(), next()].join('.');
      const reason = refusalReason(ip, strict);
      // Metadata services are refused by the policy but are public addresses.
      const refusedAsRange = reason !== null && !/metadata|host service/.test(reason);
      expect(isPublicAddress(ip), ip).toBe(!refusedAsRange);
    }
  });
});
