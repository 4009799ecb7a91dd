// Request location end to end: a capture from a public address (through a trusted proxy, since tests
// run on loopback) is stored with country, region and city, which the search language finds; a
// private sender gets none; GEOIP_DATABASES=off looks nothing up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const from = (ip: string) => ({ 'X-Forwarded-For': ip });

describe('request location', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1' });
  });
  afterAll(async () => srv?.close());

  it('fills country, region and city for public senders, searchable; nothing for private ones', async () => {
    const t = await srv.token();
    expect((await srv.call('POST', `/${t.uuid}/uk`, { body: 'a', headers: from('81.2.69.142') })).status).toBe(200);
    expect((await srv.call('POST', `/${t.uuid}/office`, { body: 'b', headers: from('192.168.4.20') })).status).toBe(200);
    expect((await srv.call('POST', `/${t.uuid}/de`, { body: 'c', headers: from('2a00:1450:4001:82a::200e') })).status).toBe(200);

    const uk = (await srv.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent('url:*uk')}`)).data.data[0];
    expect(uk).toMatchObject({ ip: '81.2.69.142', country: 'United Kingdom', country_code: 'GB', region: 'England', city: 'Bracknell' });
    const latest = (await srv.call('GET', `/token/${t.uuid}/request/latest`)).data;
    expect(latest.ip).toBe('2a00:1450:4001:82a::200e');
    expect(latest).toMatchObject({ country: 'Germany', country_code: 'DE' });

    const search = async (q: string) => {
      const r = await srv.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
      return r.data.data.map((x: { content: string }) => x.content).sort();
    };
    expect(await search('country_code:GB')).toEqual(['a']);
    expect(await search('city:bracknell')).toEqual(['a']);
    expect(await search('country:"united kingdom" OR country:germany')).toEqual(['a', 'c']);
    expect(await search('region:england')).toEqual(['a']);
    expect(await search('_exists_:country')).toEqual(['a', 'c']);
    expect(await search('NOT _exists_:country')).toEqual(['b']);
    const priv = (await srv.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent('content:b')}`)).data.data[0];
    expect(priv.ip).toBe('192.168.4.20');
    for (const k of ['country', 'country_code', 'region', 'city']) expect(priv, k).not.toHaveProperty(k);
  });
});

describe('GEOIP_DATABASES=off', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1', GEOIP_DATABASES: 'off' });
  });
  afterAll(async () => srv?.close());

  it('stores public senders without location', async () => {
    const t = await srv.token();
    await srv.call('POST', `/${t.uuid}`, { body: 'a', headers: from('81.2.69.142') });
    const r = (await srv.call('GET', `/token/${t.uuid}/request/latest`)).data;
    expect(r.ip).toBe('81.2.69.142');
    expect(r).not.toHaveProperty('country');
  });
});
