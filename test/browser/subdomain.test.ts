// The token page with CAPTURE_DOMAIN set shows the subdomain form of the capture URL, and that URL
// works: Chromium resolves every *.localhost name to loopback, so `<uuid>.hooks.localhost` reaches
// the test server and the capture appears on the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, modulesWithPage, screenshot, unlabelled, watchErrors } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('subdomain capture URL on the page', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ CAPTURE_DOMAIN: 'hooks.localhost' }, { modules: await modulesWithPage(shared.dir) });
  }, 180_000);
  afterAll(async () => srv?.close());

  it('shows <token>.CAPTURE_DOMAIN next to the path form, and a visit to it is captured and listed', async () => {
    const t = await srv.token();
    const port = new URL(srv.url).port;
    const context = await shared.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const errors = watchErrors(page);
      await page.goto(`${srv.url}/#/${t.uuid}`);
      const field = page.getByLabel('Subdomain URL', { exact: true });
      await field.waitFor();
      const subUrl = await field.inputValue();
      expect(subUrl).toBe(`http://${t.uuid}.hooks.localhost:${port}`);
      expect(await page.getByLabel('Capture URL', { exact: true }).inputValue()).toBe(`${srv.url}/${t.uuid}`);
      expect(await unlabelled(page)).toEqual([]);

      // The browser itself calls the subdomain URL (another tab), and the page lists the capture.
      const visitor = await context.newPage();
      const answer = await visitor.goto(`${subUrl}/from-the-browser?via=subdomain`);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['x-token-id']).toBe(t.uuid);
      await visitor.close();
      await page.locator('.req-list a', { hasText: '/from-the-browser' }).waitFor({ timeout: 10_000 });
      // Chromium may fetch /favicon.ico from the subdomain too: that is captured as well.
      const list = await srv.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent('query.via:subdomain')}`);
      expect(list.data.total).toBe(1);
      expect(list.data.data[0]).toMatchObject({ method: 'GET', url: `${subUrl}/from-the-browser?via=subdomain`, hostname: `${t.uuid}.hooks.localhost` });
      await screenshot(page, '20-subdomain-url');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows no subdomain URL when CAPTURE_DOMAIN is unset', async () => {
    const plain = await startTestServer({}, { modules: await modulesWithPage(shared.dir) });
    const context = await shared.browser.newContext();
    try {
      const t = await plain.token();
      const page = await context.newPage();
      await page.goto(`${plain.url}/#/${t.uuid}`);
      await page.getByLabel('Capture URL', { exact: true }).waitFor();
      expect(await page.getByLabel('Subdomain URL', { exact: true }).count()).toBe(0);
    } finally {
      await context.close();
      await plain.close();
    }
  });
});

describe.skipIf(!haveChromium)('request location on the page', () => {
  it("shows a public sender's city, region and country in the request detail", async () => {
    // Behind a trusted proxy (the test's loopback peer), X-Forwarded-For names the sender.
    const srv = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1' }, { modules: await modulesWithPage(shared.dir) });
    const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const t = await srv.token();
      await srv.call('POST', `/${t.uuid}/from-uk`, { body: 'x', headers: { 'X-Forwarded-For': '81.2.69.142' } });
      await srv.call('POST', `/${t.uuid}/from-lan`, { body: 'y', headers: { 'X-Forwarded-For': '192.168.1.9' } });
      const page = await context.newPage();
      const errors = watchErrors(page);
      await page.goto(`${srv.url}/#/${t.uuid}`);
      await page.locator('.req-list a', { hasText: '/from-uk' }).click();
      await page.getByText('Bracknell, England, United Kingdom', { exact: true }).waitFor();
      await screenshot(page, '21-request-location');
      await page.locator('.req-list a', { hasText: '/from-lan' }).click();
      // The detail now shows the LAN request (its URL), which has no location.
      await page.locator('code.wrap', { hasText: '/from-lan' }).waitFor();
      expect(await page.getByText('Location', { exact: true }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await srv.close();
    }
  });
});
