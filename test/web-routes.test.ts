// The page's hash routes and token aliases share one namespace (`#/<alias>` opens a token), so the
// server must refuse an alias that is one of the page's own first segments.
import { describe, expect, it } from 'vitest';
import { RESERVED_SEGMENTS } from '../core/tokens/tokens.schema.js';
import { PAGE_SEGMENTS, href, parseRoute } from '../web/src/route.js';
import { startTestServer } from './helpers/server.js';

describe("the page's hash routes", () => {
  it('are all reserved, so no alias can take them', () => {
    for (const s of PAGE_SEGMENTS) expect(RESERVED_SEGMENTS.has(s), s).toBe(true);
  });

  it('name the page views, not tokens', () => {
    expect(parseRoute('#/account')).toEqual({ view: 'account', section: 'overview' });
    expect(parseRoute('#/account/databases/0f0e')).toEqual({ view: 'account', section: 'databases', id: '0f0e' });
    expect(parseRoute('#/welcome')).toEqual({ view: 'welcome' });
    expect(href({ view: 'account', section: 'variables' })).toBe('#/account/variables');
    for (const s of PAGE_SEGMENTS) expect(parseRoute(`#/${s}`).view).not.toBe('token');
  });

  it('an alias "account" is refused with a 422 naming the field', async () => {
    const srv = await startTestServer();
    try {
      const { key } = await srv.user(true);
      for (const alias of ['account', 'welcome']) {
        const r = await srv.call('POST', '/token', { key, json: { alias } });
        expect(r.status, alias).toBe(422);
        expect(r.data.errors.alias).toEqual(['is reserved']);
      }
    } finally {
      await srv.close();
    }
  });
});
