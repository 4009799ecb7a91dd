// The header's link to the error log, in Chromium at desktop (1440 px) and phone (390 px) width:
// named "Errors, N unread" at both; the word and the count at 1440; a warning sign and the count at
// 390, on the header's one row (99+ for more than 99); no count when nothing is unread, and on a
// phone no link then.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorLogRecord } from '../../core/store/types.js';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, headerOffRow, openPage, screenshot, servePage } from './helpers.js';

const shared = builtPageAndBrowser();

const DEVICES = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} as const;

interface Seen {
  /** The links of the main navigation whose accessible name starts with "Errors". */
  names: string[];
  /** The count as shown ('' when none). */
  count: string;
  /** Whether the word "Errors" and the warning sign take room on the screen. */
  word: boolean;
  sign: boolean;
  offRow: string[];
  scrollWidth: number;
}

describe.skipIf(!haveChromium)("the header's unread errors at desktop and phone width", { timeout: 90_000 }, () => {
  let srv: TestServer;
  let owner: { id: number; key: string };

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    owner = await srv.user(false);
  }, 180_000);

  afterAll(async () => {
    await srv?.close();
  });

  async function fail(n: number): Promise<void> {
    const entry: Omit<ErrorLogRecord, 'id'> = {
      user_id: owner.id,
      source: 'action',
      token_id: null,
      request_id: null,
      action_id: null,
      action_type: 'javascript',
      schedule_id: null,
      schedule_name: null,
      message: 'kaput',
      read: false,
      created_at: Date.now(),
    };
    await srv.services.store.errorLog.add(
      Array.from({ length: n }, () => entry),
      100_000,
    );
  }

  /** The header of the token list as `device` shows it, photographed as header-errors-<name>-<device>. */
  async function header(device: keyof typeof DEVICES, name: string): Promise<Seen> {
    const { context, page, errors } = await openPage(shared.browser, { ...DEVICES[device], apiKey: owner.key });
    try {
      await page.goto(`${srv.url}/#/`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      // The link is drawn once the unread count has arrived (hidden on a phone when it is 0).
      const link = nav.locator('a.nav-errors');
      await link.waitFor({ state: 'attached' });
      const roomy = async (p: Page, selector: string) => p.evaluate((s) => [...document.querySelectorAll(s)].some((e) => e.getBoundingClientRect().width > 1 && e.getBoundingClientRect().height > 1), selector);
      const seen: Seen = {
        names: await nav.getByRole('link', { name: /^Errors/ }).evaluateAll((ls) => ls.filter((l) => l.getClientRects().length > 0).map((l) => l.getAttribute('aria-label') ?? '')),
        count: (await link.locator('.count').count()) ? (await link.locator('.count').innerText()).trim() : '',
        word: await roomy(page, '.nav-errors .label'),
        sign: await roomy(page, '.nav-errors svg'),
        offRow: await headerOffRow(page),
        scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth),
      };
      await screenshot(page, `header-errors-${name}-${device}`);
      expect(errors).toEqual([]);
      return seen;
    } finally {
      await context.close();
    }
  }

  it('names the link with the count at both widths; the word at 1440, a sign at 390, one row', async () => {
    expect(await header('desktop', 'none')).toEqual({ names: ['Errors'], count: '', word: true, sign: false, offRow: [], scrollWidth: 1440 });
    // Nothing unread: a phone's header has no room to spare for the link (Account lists the log).
    expect(await header('phone', 'none')).toEqual({ names: [], count: '', word: false, sign: false, offRow: [], scrollWidth: 390 });

    await fail(3);
    expect(await header('desktop', 'three')).toEqual({ names: ['Errors, 3 unread'], count: '3', word: true, sign: false, offRow: [], scrollWidth: 1440 });
    expect(await header('phone', 'three')).toEqual({ names: ['Errors, 3 unread'], count: '3', word: false, sign: true, offRow: [], scrollWidth: 390 });

    // Past 99 the pill says 99+ and keeps its width; the name still has the number.
    await fail(1231);
    expect(await header('desktop', 'many')).toEqual({ names: ['Errors, 1234 unread'], count: '99+', word: true, sign: false, offRow: [], scrollWidth: 1440 });
    expect(await header('phone', 'many')).toEqual({ names: ['Errors, 1234 unread'], count: '9+', word: false, sign: true, offRow: [], scrollWidth: 390 });
  });
});
