// Share links and the error log on the page, in Chromium: the owner makes a share link on the token's
// Settings tab; someone without a key opens it and watches requests arrive live, view-only, until the
// link is revoked. A failing action shows up in the header's error count and on the error log screen,
// which searches and marks entries read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, unlabelled, watchErrors } from './helpers.js';

async function signIn(page: Page, key: string): Promise<void> {
  const field = page.getByRole('textbox', { name: 'API key', exact: true });
  if (!(await field.isVisible())) await page.getByRole('button', { name: /^API key/ }).click();
  await field.fill(key);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect.poll(() => page.getByRole('button', { name: /^API key/ }).getAttribute('title')).toMatch(/Signed in/);
  await page.locator('#apikey').waitFor({ state: 'detached' });
}

/** At phone width nothing scrolls sideways; photographed, then back to desktop width. */
async function fitsPhone(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, name);
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > 391)
      .map((el) => `${el.tagName}.${el.className}`)
      .slice(0, 5),
  );
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} scrolls sideways at 390 px: ${wide.join(', ')}`).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 900 });
}

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('share links and the error log on the page', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let owner: { id: number; key: string };
  let ownerCtx: BrowserContext;
  let viewerCtx: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    owner = await srv.user(false);
    ({ context: ownerCtx, page, errors } = await openPage(shared.browser));
    viewerCtx = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
    page.on('dialog', (d) => void d.accept());
  }, 180_000);

  afterAll(async () => {
    await ownerCtx?.close();
    await viewerCtx?.close();
    await srv?.close();
  });

  it('makes a share link; the link shows the requests live, view-only, until it is revoked', async () => {
    const token = await srv.token({}, owner.key);
    await fetch(`${srv.url}/${token.uuid}/before`, { method: 'POST', body: 'captured before sharing' });
    await page.goto(`${srv.url}/#/${token.uuid}/settings`);
    await signIn(page, owner.key);
    const panel = page.getByRole('region', { name: 'Share link' });
    await expect.poll(() => panel.locator('#share-state').textContent()).toBe('Not shared.');
    await panel.getByRole('button', { name: 'Make a share link' }).click();
    const url = await panel.getByRole('textbox', { name: 'Share link' }).inputValue();
    expect(url).toMatch(new RegExp(`/#/share/${token.uuid}/shr_`));
    await expect.poll(() => panel.locator('#share-state').textContent()).toMatch(/^Shared since/);
    expect(await unlabelled(page)).toEqual([]);

    // Someone without any key opens the link.
    const viewer = await viewerCtx.newPage();
    viewer.setDefaultTimeout(10_000);
    const viewerErrors = watchErrors(viewer);
    await viewer.goto(url);
    await viewer.getByRole('heading', { name: 'Shared requests' }).waitFor();
    await viewer.getByRole('link', { name: /POST \/before/ }).waitFor();
    await expect.poll(() => viewer.locator('.live-state').textContent()).toBe('Live');
    // Nothing to change: no settings, actions or delete controls.
    expect(await viewer.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: /Delete/ }).count()).toBe(0);

    await fetch(`${srv.url}/${token.uuid}/live-one?x=1`, { method: 'POST', body: '{"live":true}', headers: { 'content-type': 'application/json' } });
    await viewer.getByRole('link', { name: /POST \/live-one/ }).click();
    const detail = viewer.getByRole('article');
    await expect.poll(() => detail.textContent()).toMatch(/"live"/);
    await expect.poll(() => viewer.locator('#share-total').textContent()).toBe('2');
    expect(await unlabelled(viewer)).toEqual([]);
    await screenshot(viewer, 'share-view');
    await fitsPhone(viewer, 'share-view-phone');

    // Revoked from the token's page: the viewer's page says the link no longer works.
    await panel.getByRole('button', { name: 'Revoke the link' }).click();
    await expect.poll(() => panel.locator('#share-state').textContent()).toBe('Not shared.');
    await viewer.getByRole('heading', { name: 'This share link no longer works' }).waitFor({ timeout: 15_000 });
    expect(viewerErrors).toEqual([]);
    await viewer.close();
  });

  it('XHR Redirect on a share link sends each new request on from the browser', async () => {
    // A target on "the viewer's machine" that allows cross-origin requests, as the docs ask.
    const got: Array<{ method: string; url: string; body: string; kind: string | undefined }> = [];
    const target = http.createServer((req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', '*');
      res.setHeader('Access-Control-Allow-Methods', '*');
      if (req.method === 'OPTIONS') return void res.end();
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ method: req.method!, url: req.url!, body, kind: req.headers['x-kind'] as string | undefined });
        res.statusCode = 202;
        res.end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const token = await srv.token({}, owner.key);
      const share = await fetch(`${srv.url}/token/${token.uuid}/share`, { method: 'POST', headers: { 'Api-Key': owner.key } }).then((r) => r.json() as Promise<{ url: string }>);
      const viewer = await viewerCtx.newPage();
      viewer.setDefaultTimeout(10_000);
      await viewer.goto(share.url);
      await expect.poll(() => viewer.locator('.live-state').textContent()).toBe('Live');
      const panel = viewer.getByRole('region', { name: 'XHR Redirect' });
      expect(await panel.locator('#xhr-status').textContent()).toBe('Off.');
      await panel.getByRole('textbox', { name: 'Target URL' }).fill(`http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`);
      await panel.getByRole('button', { name: 'Start redirecting' }).click();
      await fetch(`${srv.url}/${token.uuid}/order`, { method: 'PUT', headers: { 'X-Kind': 'order', 'Content-Type': 'application/json' }, body: '{"id":7}' });
      await expect.poll(() => panel.locator('#xhr-status').textContent()).toBe('Last request redirected: the target answered 202.');
      expect(got).toEqual([{ method: 'PUT', url: '/hook', body: '{"id":7}', kind: 'order' }]);
      expect(await unlabelled(viewer)).toEqual([]);
      await panel.getByRole('button', { name: 'Stop redirecting' }).click();
      await fetch(`${srv.url}/${token.uuid}/later`, { method: 'POST', body: 'not sent on' });
      await viewer.getByRole('link', { name: /POST \/later/ }).waitFor();
      expect(got).toHaveLength(1);
      await viewer.close();
    } finally {
      target.close();
    }
  });

  it('shows failed actions in the header count and on the error log screen; marking read clears the count', async () => {
    const token = await srv.token({ actions: true }, owner.key);
    const add = await srv.call('POST', `/token/${token.uuid}/actions`, { key: owner.key, json: { order: 1, type: 'javascript', parameters: { script: "throw new Error('kaput in the browser test')" } } });
    expect(add.status).toBe(200);
    await fetch(`${srv.url}/${token.uuid}/hook`, { method: 'POST', body: 'x' });
    await expect.poll(async () => (await srv.call('GET', '/errors/unread', { key: owner.key })).data.unread).toBe(1);

    await page.goto(`${srv.url}/#/account/errors`);
    await page.reload();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect.poll(() => nav.getByRole('link', { name: /Errors/ }).textContent()).toBe('Errors1');
    const screen = page.getByRole('region', { name: 'Error log' }).or(page.locator('section[aria-labelledby="errors-title"]'));
    await expect.poll(() => screen.textContent()).toMatch(/kaput in the browser test/);
    await expect.poll(() => page.locator('#errors-unread').textContent()).toBe('1 unread');
    await expect.poll(() => screen.textContent()).toMatch(/Action javascript on token/);

    await page.getByRole('searchbox', { name: 'Search' }).fill('no such words');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => screen.textContent()).toMatch(/Nothing matches/);
    await page.getByRole('searchbox', { name: 'Search' }).fill('KAPUT');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => screen.textContent()).toMatch(/kaput in the browser test/);
    expect(await unlabelled(page)).toEqual([]);
    await screenshot(page, 'error-log');
    await fitsPhone(page, 'error-log-phone');

    await page.getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(() => page.locator('#errors-unread').textContent()).toBe('0 unread');
    await expect.poll(() => nav.getByRole('link', { name: /Errors/ }).textContent()).toBe('Errors');
    expect((await srv.call('GET', '/errors/unread', { key: owner.key })).data.unread).toBe(0);
    expect(errors).toEqual([]);
  });
});
