// The small things webhook.site announced: failed-action requests highlighted, search for a value
// from the request view, Copy as API URL and a Postman collection, opt-in notifications, an expiry
// countdown with its warning, form fields by name, links in e-mail text, the default response one
// click from its editor, and the keyboard shortcuts listed.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('conveniences of the request view', () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let token = '';
  let key = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    key = (await srv.user(true)).key;
    // Expires in under a day: the header warns.
    token = (await srv.token({ actions: true, expiry: 3 * 3600 }, key)).uuid;
    await srv.call('POST', `/${token}/ok?x=1`, { body: 'zeta=1&alpha=2&mid=3', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-trace': 'abc 123' } });
    // The chain (failing) runs from here on: the first request has no action error.
    await srv.call('PUT', `/token/${token}/workflow`, {
      key,
      json: { apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token }, spec: { steps: [{ type: 'javascript', name: 'boom', parameters: { script: "throw new Error('nope')" } }] } },
    });
    await srv.call('POST', `/${token}/bad?fail=1`, { json: { a: 1 } });
    ({ context, page, errors } = await openPage(shared.browser, { viewport: { width: 1440, height: 900 }, acceptDownloads: true, permissions: ['clipboard-read', 'clipboard-write', 'notifications'], apiKey: key }));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await srv?.close();
  });

  it('highlights requests whose actions failed, and counts down to expiry with a warning', async () => {
    await page.goto(`${srv.url}/#/${token}`);
    await page.locator('.req-list a').nth(1).waitFor();
    const rows = page.locator('.req-list li');
    expect(await rows.evaluateAll((els) => els.map((e) => e.classList.contains('failed')))).toEqual([true, false]);
    expect(await rows.first().textContent()).toContain('actions failed');
    const expiry = page.locator('.token-facts .expiry');
    expect(await expiry.textContent()).toMatch(/^Expires in 2 h \d+ min/);
    expect(await expiry.getAttribute('class')).toContain('warn');
    // The default response is one click from its editor.
    await page.getByRole('link', { name: 'Edit the default response' }).click();
    await page.getByRole('heading', { name: 'Default response' }).waitFor();
  });

  it('sorts form fields by name and searches for a value from the request view', async () => {
    await page.goto(`${srv.url}/#/${token}`);
    await page.locator('.req-list a').nth(1).click();
    const form = page.getByRole('region', { name: /^Form fields/ });
    expect(await form.locator('th').allTextContents()).toEqual(['alpha', 'mid', 'zeta']);
    await screenshot(page, 'conveniences-detail');
    await page.getByRole('button', { name: 'Search requests for x-trace abc 123' }).click();
    await expect.poll(() => page.getByRole('searchbox', { name: 'Search requests' }).inputValue()).toBe('headers.x-trace:"abc 123"');
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('1 matching of 2 total');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('2');
  });

  it('copies the API URL and exports a Postman collection of the request', async () => {
    await page.locator('.req-list a').nth(1).click();
    await page.getByRole('button', { name: 'Copy as API URL' }).click();
    const id = (await page.locator('.req-list a').nth(1).getAttribute('data-request-id'))!;
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${srv.url}/token/${token}/request/${id}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Open in Postman' }).click()]);
    const collection = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(collection.info.schema).toMatch(/collection\/v2\.1\.0/);
    expect(collection.item[0].request).toMatchObject({ method: 'POST', url: { raw: `${srv.url}/${token}/ok?x=1` }, body: { mode: 'raw', raw: 'zeta=1&alpha=2&mid=3' } });
    expect(collection.item[0].request.header).toContainEqual({ key: 'x-trace', value: 'abc 123' });
  });

  it('lists the keyboard shortcuts, and Alt+S / Alt+A / Alt+R do what they say', async () => {
    await page.getByText('Keyboard shortcuts').click();
    expect(await page.locator('.shortcut-list dd').allTextContents()).toEqual(expect.arrayContaining(['Requests', 'Search the requests', 'Actions']));
    await screenshot(page, 'conveniences-shortcuts');
    await page.getByText('Keyboard shortcuts').click();
    await page.keyboard.press('Alt+KeyA');
    await page.getByRole('heading', { name: 'Custom actions' }).waitFor();
    await page.keyboard.press('Alt+KeyS');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('search');
    await page.keyboard.press('Alt+KeyA');
    await page.keyboard.press('Alt+KeyR');
    await page.locator('.req-list').waitFor();
  });

  it('offers browser notifications, off until chosen', async () => {
    const notify = page.getByRole('checkbox', { name: 'Notify' });
    expect(await notify.isChecked()).toBe(false);
    await notify.check();
    expect(await page.evaluate(() => localStorage.getItem('capture.notify'))).toBe('1');
  });

  it('makes links in e-mail text clickable', async () => {
    const t = (await srv.token({})).uuid;
    const now = Date.now();
    const raw = Buffer.from('From: ann@example.test\r\nSubject: Link\r\n\r\nRead https://example.test/path?a=1 now.\r\n');
    await srv.services.store.requests.insert(
      {
        token_id: t,
        team_id: null,
        user_agent: '',
        query: null,
        form: null,
        files: [],
        custom_action_output: [],
        custom_action_errors: [],
        time: 0,
        note: null,
        created_at: now,
        updated_at: now,
        uuid: randomUUID(),
        type: 'email',
        ip: '192.0.2.7',
        hostname: 'email.localhost',
        method: 'SMTP',
        url: `mailto:${t}@email.localhost`,
        content_type: 'message/rfc822',
        body: raw,
        size: raw.length,
        headers: { from: ['ann@example.test'], subject: ['Link'] },
        sorting: now * 1000 + 1,
        extra: { sender: 'ann@example.test', subject: 'Link', destinations: [`${t}@email.localhost`], text_content: 'Read https://example.test/path?a=1 now.' },
      },
      10_000,
    );
    expect((await srv.call('GET', `/token/${t}/requests`)).data.total).toBe(1);
    await page.goto(`${srv.url}/#/${t}`);
    await page.reload();
    await page.locator('.req-list a', { hasText: 'Link' }).click();
    const link = page.getByLabel('Message text').getByRole('link', { name: 'https://example.test/path?a=1' });
    expect(await link.getAttribute('href')).toBe('https://example.test/path?a=1');
    expect(await link.getAttribute('rel')).toContain('noopener');
  });

  it('imports a curl command into the HTTP Request action, and formats its JSON body', async () => {
    const t = (await srv.token({ actions: true }, key)).uuid;
    await page.goto(`${srv.url}/#/${t}/workflow`);
    await page.getByRole('button', { name: 'Visual', pressed: true }).waitFor();
    await page.getByRole('button', { name: '+ Add action' }).click();
    await page.getByLabel('Find an action type').fill('http request');
    await page
      .getByRole('region', { name: 'Action types' })
      .getByRole('button', { name: /^HTTP Request / })
      .click();
    const step = page.locator('.ae-step').first();
    await step.getByRole('button', { name: 'Import from cURL' }).click();
    await step.getByLabel('curl command').fill(`curl -X PUT https://api.example.test/orders -H 'Content-Type: application/json' -d '{"total":42}'`);
    await step.getByRole('button', { name: 'Import', exact: true }).click();
    expect(await step.getByRole('combobox', { name: /^Url/ }).inputValue()).toBe('https://api.example.test/orders');
    expect(await step.getByLabel('Method').inputValue()).toBe('PUT');
    expect(await step.getByRole('textbox', { name: 'Headers' }).inputValue()).toBe('Content-Type: application/json');
    await step.getByRole('button', { name: 'JSON Format' }).click();
    expect(await step.getByRole('textbox', { name: 'Content' }).inputValue()).toBe('{\n  "total": 42\n}');
    await screenshot(page, 'conveniences-curl-import');
  }, 90_000);

  it('logged no page error', () => {
    expect(errors).toEqual([]);
  });
});
