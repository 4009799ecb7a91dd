// Every screen of the page, reviewed: the requests list and a request of each kind (HTTP JSON,
// form, binary, e-mail, DNS), the action editor with a chain, schedules, the settings (API keys,
// groups, queue profiles, variables, databases), the error log and a share link's view; at desktop
// and phone width, light and dark, for someone without a key and for a user with one. No screen
// logs a console error or has a request of the page's fail (4xx/5xx), none scrolls sideways at
// 390 px, and each is saved as test/artifacts/screens-<who>-<device>-<scheme>-<screen>.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, headerOffRow, openPage, screenshot, servePage, storeMailAndDns, watchEverything } from './helpers.js';

const shared = builtPageAndBrowser();

interface Screen {
  name: string;
  hash: string;
  /** What shows once the screen has loaded. */
  ready: (page: Page) => Promise<unknown>;
}

const DEVICES = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} as const;

describe.skipIf(!haveChromium)('every screen, both widths, both schemes, with and without a key', () => {
  let srv: TestServer;
  let key = '';
  const tokens: Record<'anonymous' | 'user', { uuid: string; requests: Record<string, string> }> = { anonymous: { uuid: '', requests: {} }, user: { uuid: '', requests: {} } };
  let shareHash = '';

  /** One capture of each kind on `token`; their ids by kind. */
  async function captures(token: string): Promise<Record<string, string>> {
    const send = async (path: string, init: RequestInit) => {
      const res = await fetch(`${srv.url}/${token}${path}`, init);
      await res.arrayBuffer();
      return res.headers.get('x-request-id')!;
    };
    const ids: Record<string, string> = {};
    ids.json = await send('/orders?id=7', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: { id: 7, items: [{ sku: 'A-1', qty: 2 }], note: 'a longer note that has to wrap on a phone screen without pushing anything sideways' } }),
    });
    ids.form = await send('/signup', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=Ann+Example&email=ann%40example.test&plan=pro' });
    ids.binary = await send('/upload.bin', { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256)) });
    Object.assign(ids, await storeMailAndDns(srv, token, { text: 'See https://example.test/report now.', html: '<p>See <b>the report</b>.</p>' }));
    return ids;
  }

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    key = (await srv.user(true)).key;
    const call = async (method: string, path: string, json?: unknown) => {
      const r = await srv.call(method, path, { key, ...(json === undefined ? {} : { json }) });
      expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
      return r.data;
    };
    // A user with something on every screen.
    const mine = (await srv.token({ actions: true }, key)).uuid;
    const profile = await call('POST', '/queue-profiles', { name: 'CRM API', rate_limit: 100, rate_period: 60 });
    for (const action of [
      { type: 'auto_json', name: 'Read the order', parameters: { variable_name: 'order' } },
      { type: 'javascript', name: 'Check stock', parameters: { script: "throw new Error('out of stock')" } },
      { type: 'log', parameters: { text: 'order $order.order.id$ queued' }, queue: true, queue_profile: profile.id },
    ]) {
      await call('POST', `/token/${mine}/actions`, action);
    }
    await call('POST', '/groups', { name: 'Shop hooks' });
    await call('POST', '/global-variables', { name: 'shop_url', value: 'https://shop.example.test' });
    await call('POST', '/schedules', { name: 'Nightly stock check', interval: 'daily', request_url: `${srv.url}/${mine}/nightly`, request_method: 'GET' });
    tokens.user = { uuid: mine, requests: await captures(mine) };
    const share = await call('POST', `/token/${mine}/share`);
    shareHash = new URL(share.url).hash;
    // Someone without a key: a token of their own.
    const theirs = (await srv.token({ actions: true })).uuid;
    for (const action of [
      { type: 'auto_json', name: 'Read the order', parameters: { variable_name: 'order' } },
      { type: 'log', parameters: { text: 'order $order.order.id$' } },
    ]) {
      const r = await srv.call('POST', `/token/${theirs}/actions`, { json: action });
      expect(r.status, r.text).toBe(200);
    }
    tokens.anonymous = { uuid: theirs, requests: await captures(theirs) };
  }, 180_000);

  afterAll(async () => {
    await srv?.close();
  });

  function screens(who: 'anonymous' | 'user'): Screen[] {
    const t = tokens[who];
    const detail = (kind: string, text: RegExp | string): Screen => ({
      name: `request-${kind}`,
      hash: `#/${t.uuid}/${t.requests[kind]}`,
      ready: (p) => p.getByRole('article').getByText(text).first().waitFor(),
    });
    const account = (section: string, heading: RegExp): Screen => ({ name: `settings-${section}`, hash: `#/account/${section}`, ready: (p) => p.getByRole('heading', { name: heading }).first().waitFor() });
    return [
      { name: 'requests', hash: `#/${t.uuid}`, ready: (p) => p.locator('.req-list a').nth(4).waitFor() },
      detail('json', '"sku"'),
      detail('form', 'Ann Example'),
      detail('binary', /300 B|300 bytes/),
      detail('email', 'Quarterly numbers'),
      detail('dns', `probe.${t.uuid}.dns.localhost`),
      { name: 'action-editor', hash: `#/${t.uuid}/workflow`, ready: (p) => p.locator('.ae-step').nth(1).waitFor() },
      {
        name: 'schedules',
        hash: '#/schedules',
        ready: (p) =>
          p
            .getByRole('heading', { name: /Schedules/ })
            .first()
            .waitFor(),
      },
      account('keys', /API keys/),
      account('groups', /Groups/),
      account('queue-profiles', /Queue profiles/),
      account('variables', /Global variables/),
      account('databases', /Databases/),
      account('errors', /Error log/),
      { name: 'share', hash: shareHash, ready: (p) => p.getByRole('heading', { name: 'Shared requests' }).waitFor() },
    ];
  }

  for (const who of ['anonymous', 'user'] as const) {
    for (const [device, options] of Object.entries(DEVICES)) {
      for (const scheme of ['light', 'dark'] as const) {
        it(`${who}, ${device}, ${scheme}`, async () => {
          const { context, page } = await openPage(shared.browser, { ...options, colorScheme: scheme, ...(who === 'user' ? { apiKey: key } : {}) });
          const seen = watchEverything(page);
          const problems: string[] = [];
          try {
            for (const screen of screens(who)) {
              const before = seen.length;
              await page.goto(`${srv.url}/${screen.hash}`);
              await screen.ready(page).catch((e: Error) => problems.push(`${screen.name}: never ready: ${e.message.split('\n')[0]}`));
              // Late loads (counts, lists, the live feed) settle.
              await page.waitForTimeout(300);
              await screenshot(page, `screens-${who}-${device}-${scheme}-${screen.name}`);
              problems.push(...seen.slice(before).map((s) => `${screen.name}: ${s}`));
              if (device === 'phone') {
                const wide = await page.evaluate(() => document.documentElement.scrollWidth);
                if (wide > 390) problems.push(`${screen.name}: ${wide} px wide`);
                // The header is one row: every entry shown sits at the height of the brand.
                const offRow = await headerOffRow(page);
                if (offRow.length) problems.push(`${screen.name}: header wraps (${offRow.join(', ')} on another row)`);
              }
            }
          } finally {
            await context.close();
          }
          expect(problems).toEqual([]);
        }, 120_000);
      }
    }
  }

  it('shows the control characters of an error quoting a binary body as \\xNN, in the error log and the request', async () => {
    const { context, page, errors } = await openPage(shared.browser, { apiKey: key });
    try {
      await page.goto(`${srv.url}/#/account/errors`);
      const quoting = page.locator('.error-log-message', { hasText: 'not valid JSON' });
      await quoting.first().waitFor();
      const texts = await quoting.allTextContents();
      expect(texts.some((t) => t.includes('\\x00'))).toBe(true);
      expect(texts.join('')).not.toMatch(/[\u0000-\u0008]/);
      await page.goto(`${srv.url}/#/${tokens.user.uuid}/${tokens.user.requests.binary}`);
      const output = page.getByRole('article').locator('.action-output-lines');
      await output.waitFor();
      expect(await output.textContent()).toContain('\\x00');
      expect(await page.getByRole('article').locator('.action-errors').textContent()).toContain('\\x00');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
