// The page leads to the documentation the service serves: **Docs** in the header opens the index,
// the search box links the search language, and the Actions tab the action types and workflow
// documents; each link opens a rendered page of docs/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, servePage } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('links from the page to the documentation', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    ({ context, page, errors } = await openPage(shared.browser, { viewport: { width: 1280, height: 900 } }));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await srv?.close();
  });

  /** Follows a link the way a reader does (the contextual ones open a new tab); the page's h1. */
  async function follow(link: ReturnType<Page['getByRole']>): Promise<string> {
    const href = await link.getAttribute('href');
    const target = await link.getAttribute('target');
    if (target === '_blank') {
      const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
      await tab.waitForLoadState();
      const title = await tab.locator('h1').first().textContent();
      expect(tab.url()).toBe(srv.url + href);
      await tab.close();
      return title ?? '';
    }
    await link.click();
    await page.waitForURL(srv.url + href!);
    const title = await page.locator('h1').first().textContent();
    await page.goBack();
    return title ?? '';
  }

  it('Docs in the header opens the index of the documentation', async () => {
    await page.goto(srv.url + '/');
    const docs = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Docs' });
    expect(await docs.getAttribute('href')).toBe('/docs/');
    expect(await follow(docs)).toBe('Documentation');
  });

  it('the search box links the search language; the Actions tab the action types and workflows', async () => {
    const token = await srv.token();
    await fetch(`${srv.url}/${token.uuid}/hook`, { method: 'POST', body: 'x' });
    await page.goto(`${srv.url}/#/${token.uuid}`);
    expect(await follow(page.getByRole('link', { name: 'Search language' }))).toBe('The search language');
    await page.goto(`${srv.url}/#/${token.uuid}/workflow`);
    expect(await follow(page.getByRole('link', { name: 'action types' }))).toBe('Action types');
    expect(await follow(page.getByRole('link', { name: 'workflow documents' }))).toBe('Workflow documents');
    expect(errors).toEqual([]);
  });
});
