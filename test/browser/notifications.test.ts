// Browser notifications of new requests: with permission granted and the option on, a capture to
// the open token while the page is in the background shows one, naming the request; none while
// the page is in view, none once the option is off; clicking one brings the request up.
// Headless Chromium never hides a page, so an init script stands in for the browser there: it
// decides `document.hidden` and records every Notification the page constructs (still the real
// one: the page must pass a title and options it accepts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, type OpenedPage } from './helpers.js';

const shared = builtPageAndBrowser();

interface Shown {
  title: string;
  body: string;
  tag: string;
}

declare global {
  interface Window {
    shownNotifications: Shown[];
    lastNotification: Notification | undefined;
    setPageHidden(hidden: boolean): void;
  }
}

describe.skipIf(!haveChromium)('browser notifications of new requests', () => {
  let srv: TestServer;
  let opened: OpenedPage;
  let token = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    token = (await srv.token({})).uuid;
    opened = await openPage(shared.browser, { viewport: { width: 1440, height: 900 } });
    await opened.context.grantPermissions(['notifications'], { origin: srv.url });
    await opened.context.addInitScript(() => {
      let hidden = false;
      Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
      Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
      window.setPageHidden = (h) => {
        hidden = h;
        document.dispatchEvent(new Event('visibilitychange'));
      };
      window.shownNotifications = [];
      const Real = window.Notification;
      window.Notification = class extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          window.shownNotifications.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
          window.lastNotification = this;
        }
      };
    });
  }, 180_000);

  afterAll(async () => {
    await opened?.context.close();
    await srv?.close();
  });

  const shown = () => opened.page.evaluate(() => window.shownNotifications);
  const rows = () => opened.page.locator('.req-list li');

  /** Captures a request and waits until the open list shows it (the live event was handled). */
  async function capture(path: string): Promise<string> {
    const before = await rows().count();
    const res = await fetch(`${srv.url}/${token}${path}`, { method: 'POST', body: 'hi' });
    expect(res.status).toBe(200);
    await expect.poll(() => rows().count()).toBe(before + 1);
    return res.headers.get('x-request-id')!;
  }

  it('notifies of a capture while the page is in the background, naming it; a click opens it', async () => {
    const { page } = opened;
    await page.goto(`${srv.url}/#/${token}`);
    const notify = page.getByRole('checkbox', { name: 'Notify' });
    await notify.check();
    // Granted already: no prompt, the option stays on.
    expect(await notify.isChecked()).toBe(true);
    await page.evaluate(() => window.setPageHidden(true));
    const id = await capture('/orders/7?paid=1');
    expect(await shown()).toEqual([{ title: 'POST /orders/7?paid=1', body: `New request on ${token}`, tag: id }]);
    await page.evaluate(() => window.lastNotification!.dispatchEvent(new Event('click')));
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/${token}/${id}`);
    await screenshot(page, 'notifications-clicked');
    expect(opened.errors).toEqual([]);
  });

  it('stays quiet while the page is in view', async () => {
    await opened.page.evaluate(() => window.setPageHidden(false));
    await capture('/in-view');
    expect(await shown()).toHaveLength(1);
  });

  it('stays quiet once the option is off, in the background too, and after a reload', async () => {
    const { page } = opened;
    await page.getByRole('checkbox', { name: 'Notify' }).uncheck();
    await page.evaluate(() => window.setPageHidden(true));
    await capture('/opted-out');
    expect(await shown()).toHaveLength(1);
    await page.reload();
    await rows().first().waitFor();
    expect(await page.getByRole('checkbox', { name: 'Notify' }).isChecked()).toBe(false);
    await page.evaluate(() => window.setPageHidden(true));
    await capture('/opted-out-again');
    expect(await shown()).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
