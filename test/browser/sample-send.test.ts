// "Send a sample delivery" on the token page, in Chromium: the dialog lists the providers and their
// events, sends a signed GitHub delivery into the token (its verify_signature step accepts it), the
// request arrives in the list live and the dialog links to it; a missing secret is shown at the
// field. Photographed at 1440 and 390 px wide, light and dark.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, unlabelled } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('sending a sample delivery from the token page', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let token: string;

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    token = (await srv.token({ actions: true })).uuid;
    const step = await srv.call('POST', `/token/${token}/actions`, { json: { type: 'verify_signature', parameters: { preset: 'github', secret: 'page-secret', reject: true } } });
    expect(step.status, step.text).toBe(200);
    ({ context: ctx, page, errors } = await openPage(shared.browser, { viewport: { width: 1440, height: 900 } }));
  }, 180_000);

  afterAll(async () => {
    await ctx?.close();
    await srv?.close();
  });

  async function openDialog() {
    await page.getByRole('button', { name: 'Send a sample delivery' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a sample delivery' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expect.poll(() => dialog.getByLabel('Provider').isEnabled()).toBe(true);
    return dialog;
  }

  it('sends a signed GitHub pull_request.opened into the token; it arrives live and the dialog links to it', async () => {
    await page.goto(`${srv.url}/#/${token}`);
    const dialog = await openDialog();
    const providers = await dialog.getByLabel('Provider').locator('option').allTextContents();
    expect(providers).toEqual(['GitHub', 'Stripe', 'Standard Webhooks', 'Svix', 'Slack', 'Shopify', 'Twilio']);
    await dialog.getByLabel('Event').selectOption('pull_request.opened');
    await dialog.getByLabel(/Signing secret/).fill('page-secret');
    expect(await dialog.textContent()).toContain('@octokit/webhooks-examples');
    expect(await unlabelled(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    const status = dialog.getByRole('status');
    await expect.poll(() => status.textContent()).toMatch(/Sent pull_request.opened: this token answered 200/);

    const list = await srv.call('GET', `/token/${token}/requests`);
    expect(list.data.total).toBe(1);
    const stored = list.data.data[0];
    expect(stored.headers['x-github-event']).toEqual(['pull_request']);
    expect(stored.custom_action_output[0]).toBe('[1 verify_signature] Signature valid (github)');
    // The list shows it live, behind the dialog.
    await expect.poll(() => page.locator(`a[href$="/${stored.uuid}"]`).count()).toBeGreaterThan(0);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1440, height: 900 });
      await screenshot(page, `sample-send-1440-${scheme}`);
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, `sample-send-390-${scheme}`);
      const box = await dialog.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });

    await dialog.getByRole('link', { name: 'Open the request' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => page.url()).toContain(stored.uuid);
    expect(errors).toEqual([]);
  });

  it('shows a missing secret at its field; Escape closes the dialog', async () => {
    await page.goto(`${srv.url}/#/${token}`);
    const dialog = await openDialog();
    await dialog.getByLabel('Provider').selectOption('stripe');
    expect(await dialog.getByLabel('Event').inputValue()).toBe('payment_intent.succeeded');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => dialog.locator('.field-error').textContent()).toBe('is required');
    expect(await dialog.getByLabel(/Signing secret/).getAttribute('aria-invalid')).toBe('true');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(errors.filter((e) => !/422/.test(e))).toEqual([]);
  });
});
