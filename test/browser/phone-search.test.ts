// The request list at phone and desktop width: every tab in sight, a way back from a request,
// rows of one height, and a search box that keeps its query per token and says when nothing
// matches or the query is wrong; `files` finds uploads as docs/search.md says.
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { ARTIFACTS, builtPageAndBrowser, haveChromium, openPage, screenshot, servePage } from './helpers.js';

const shared = builtPageAndBrowser();

const rowHeights = (page: Page) => page.locator('.req-list a').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));

describe.skipIf(!haveChromium)('request list at phone width, and search', () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let token = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    token = (await srv.token({})).uuid;
    for (let i = 0; i < 6; i++) await srv.call('POST', `/${token}/orders/${i}?n=${i}`, { json: { i }, headers: { 'user-agent': `agent-${'x'.repeat(i * 9)}` } });
    const form = new FormData();
    form.append('attachment', new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'invoice.pdf');
    await fetch(`${srv.url}/${token}/upload`, { method: 'POST', body: form });
    ({ context, page, errors } = await openPage(shared.browser, { viewport: { width: 390, height: 844 } }));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await srv?.close();
  });

  it('shows every tab at 390 px, and a request has a way back to the list', async () => {
    await page.goto(`${srv.url}/#/${token}`);
    await page.locator('.req-list a').first().waitFor();
    const tabs = page.getByRole('navigation', { name: 'Token' }).getByRole('link');
    for (const box of await tabs.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right))) expect(box).toBeLessThanOrEqual(390);
    expect(await tabs.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Form Builder')]));
    // Rows are one height: nothing wraps unevenly.
    expect(new Set(await rowHeights(page)).size).toBe(1);
    await screenshot(page, 'phone-list-light');

    await page.locator('.req-list a').nth(5).click();
    const back = page.getByRole('link', { name: '← All requests' });
    await back.waitFor();
    // The back link is on screen (below the sticky top bar), not scrolled away.
    const top = await back.evaluate((el) => el.getBoundingClientRect().top);
    expect(top).toBeGreaterThan(0);
    expect(top).toBeLessThan(844);
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-request-light.png') });
    await back.click();
    await page.locator('.req-list').waitFor();
  });

  it('keeps the last search of the token across a reload, and says when nothing matches or the query is wrong', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const box = page.getByRole('searchbox', { name: 'Search requests' });
    // A query being typed takes the pane's whole width, not a fixed 200 px.
    await box.focus();
    expect(await box.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(340);
    await box.fill('query.n:3');
    await box.press('Enter');
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('1 matching of 7 total');
    await page.reload();
    await expect.poll(() => box.inputValue()).toBe('query.n:3');
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('1 matching of 7 total');

    await box.fill('query.n:99');
    await box.press('Enter');
    await page.getByRole('region', { name: 'Request details' }).getByText('No request matches this search.').waitFor();
    await box.fill('method:(POST');
    await box.press('Enter');
    await page.getByRole('region', { name: 'Request details' }).getByText('The search could not run').waitFor();
    await screenshot(page, 'search-error-desktop');

    // `files` alone: any upload (docs/search.md).
    await box.fill('_exists_:files');
    await box.press('Enter');
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('1 matching of 7 total');
    await box.fill('files:*.pdf');
    await box.press('Enter');
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('1 matching of 7 total');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('7');
    expect(new Set(await rowHeights(page)).size).toBe(1);
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`looks right at ${name} width in ${scheme} mode`, async () => {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${srv.url}/#/${token}`);
        await page.reload();
        await page.locator('.req-list a').first().waitFor();
        await screenshot(page, `list-${name}-${scheme}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      });
    }
  }

  it('logged no page error', () => {
    expect(errors).toEqual([]);
  });
});
