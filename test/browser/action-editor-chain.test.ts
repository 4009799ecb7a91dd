// The action editor as webhook.site's: a typeahead that knows what the chain sets (and, after a
// test, every name with its value), editing where Enter never saves and a draft survives a tab
// switch, a chain saved on a token whose actions are off offering to switch them on, and
// conditions in words. Screenshots at 1440 and 390 px wide, light and dark.
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { ARTIFACTS, builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, watchEverything } from './helpers.js';

const shared = builtPageAndBrowser();

async function addAction(page: Page, search: string, title: string) {
  await page.getByRole('button', { name: '+ Add action' }).click();
  await page.getByLabel('Find an action type').fill(search);
  await page
    .getByRole('region', { name: 'Action types' })
    .getByRole('button', { name: new RegExp(`^${title} `) })
    .click();
}

const step = (page: Page, n: number): Locator => page.locator('.ae-step').nth(n - 1);
const suggestions = (page: Page) => page.getByRole('listbox', { name: 'Variables' }).locator('visible=true').getByRole('option');

describe.skipIf(!haveChromium)('action editor: chain-aware typeahead, safe editing, conditions in words', () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let seen: string[];
  let token = '';
  let key = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    key = (await srv.user(true)).key;
    token = (await srv.token({ actions: false, default_content: 'kept' }, key)).uuid;
    await srv.call('POST', `/${token}/orders`, { json: { order: { total: 42 }, customer: 'ann' } });
    ({ context, page } = await openPage(shared.browser, { viewport: { width: 1440, height: 900 }, apiKey: key }));
    seen = watchEverything(page);
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await srv?.close();
  });

  it('offers what earlier steps set, then after a test every name with its value, keys after a prefix', async () => {
    await page.goto(`${srv.url}/#/${token}/workflow`);
    await page.getByRole('button', { name: 'Visual', pressed: true }).waitFor();
    await addAction(page, 'extract json', 'Extract JSON');
    await addAction(page, 'set variable', 'Set Variable');
    const value = step(page, 2).getByRole('textbox', { name: 'Value' });

    // Before any test: the declared outputs of step 1 (its default prefix `json`), first.
    await value.pressSequentially('$js');
    expect((await suggestions(page).allTextContents()).slice(0, 2)).toEqual([expect.stringMatching(/^jsonSet by step 1 \(Extract JSON\)/), expect.stringMatching(/^json\.…Set by step 1/)]);
    await value.press('Escape');
    await value.fill('');

    await page.getByRole('button', { name: 'Test until here: steps 1 to 1' }).click();
    await page.getByRole('region', { name: 'Test result: steps 1 to 1' }).getByText('$json.order.total$').waitFor();

    // After the test: `$json.` completes the keys the test found, each with its value, modifiers after.
    await value.pressSequentially('$json.');
    const texts = await suggestions(page).allTextContents();
    const total = texts.findIndex((t) => t.startsWith('json.order.total'));
    expect(total).toBeGreaterThanOrEqual(0);
    expect(texts[total]).toContain('42');
    expect(texts.findIndex((t) => t.startsWith('.json'))).toBeGreaterThan(total);
    await screenshot(page, 'chain-typeahead-desktop-light');
    await suggestions(page)
      .filter({ hasText: /^json\.order\.total/ })
      .click();
    expect(await value.inputValue()).toBe('$json.order.total$');

    // A field of the next step lists, in order: the chain's variables, globals, then the request's.
    const other = step(page, 2).getByLabel('Name (required)');
    await other.fill('');
    await value.press('End');
    await value.pressSequentially(' $');
    const all = await suggestions(page).allTextContents();
    const first = (re: RegExp) => all.findIndex((t) => re.test(t));
    expect(first(/^json/)).toBe(0);
    expect(first(/^request\./)).toBeGreaterThan(first(/^json\.order\.total/));
    expect(all[first(/^request\.method/)]).toContain('POST');
    await value.press('Escape');
    await value.fill('$json.order.total$');
  }, 90_000);

  it('never saves on Enter; marks unsaved changes and keeps them through a tab switch', async () => {
    const name = step(page, 2).getByLabel('Name (required)');
    await name.fill('total');
    await name.press('Enter');
    await step(page, 1).getByLabel('Name (optional)').fill('parse');
    await step(page, 1).getByLabel('Name (optional)').press('Enter');
    await page.getByText('Unsaved changes', { exact: true }).waitFor();
    // Nothing reached the server: no document, no message.
    expect((await srv.call('GET', `/token/${token}/workflow?format=json`, { key })).data.spec.steps).toEqual([]);
    expect(await page.getByText(/Workflow saved|Not saved/).count()).toBe(0);

    const tabs = page.getByRole('navigation', { name: 'Token' });
    await tabs.getByRole('link', { name: 'Requests' }).click();
    expect(await tabs.getByRole('link', { name: /^Actions/ }).textContent()).toContain('(unsaved changes)');
    await tabs.getByRole('link', { name: /^Actions/ }).click();
    await expect.poll(() => step(page, 2).getByRole('textbox', { name: 'Value' }).inputValue()).toBe('$json.order.total$');
    expect(await step(page, 1).getByLabel('Name (optional)').inputValue()).toBe('parse');
    await page.getByText('Unsaved changes', { exact: true }).waitFor();
  });

  it('saves with Ctrl+S and, actions being off, offers to switch them on in one click', async () => {
    const header = page.getByRole('region', { name: 'Token addresses' });
    expect(await header.getByText('Custom actions off').count()).toBe(1);
    await step(page, 2).getByLabel('Name (required)').focus();
    await page.keyboard.press('Control+s');
    await page.getByText('Workflow saved.').waitFor();
    expect(await page.getByText('Unsaved changes', { exact: true }).count()).toBe(0);
    const offer = page.getByRole('alert').filter({ hasText: 'the chain you saved does not run' });
    await offer.waitFor();
    await screenshot(page, 'chain-actions-off-offer');
    await offer.getByRole('button', { name: 'Turn custom actions on' }).click();
    await header.getByText('Custom actions on').waitFor();
    const t = (await srv.call('GET', `/token/${token}`, { key })).data;
    expect([t.actions, t.default_content]).toEqual([true, 'kept']);
    // The chain now runs on a capture.
    const res = await fetch(`${srv.url}/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order":{"total":7}}' });
    expect(res.status).toBe(200);
    const latest = (await srv.call('GET', `/token/${token}/request/latest`, { key })).data;
    expect(JSON.stringify(latest.custom_action_output)).toContain('Set runtime variable $total$ to \\"7\\"');
  });

  it('words conditions: operators as webhook.site names them, each outcome and mode in a sentence, Markdown rendered', async () => {
    await addAction(page, 'condition', 'Condition');
    const cond = step(page, 3);
    const operators = await cond.getByLabel('Operator').locator('option').allTextContents();
    expect(operators).toEqual(expect.arrayContaining(['is equal to', 'is not equal to', 'starts with', 'ends with', 'contains', 'matches regex', 'exists', 'is null', 'is not null']));
    expect(operators.join(' ')).not.toMatch(/\b(eq|neq|sw|ew|ct)\b/);
    expect(await cond.getByLabel('Action').locator('option').allTextContents()).toEqual(['Choose…', 'Stop if it passes', 'Continue only if it passes', 'Use the result']);
    expect(await cond.locator('.ae-option-help li').allTextContents()).toEqual([
      'Stop if it passes: Stops the chain when it passes; otherwise the chain goes on.',
      'Continue only if it passes: The chain goes on only when it passes; otherwise it stops here.',
      'Use the result: Only records whether it passed: later steps can run only when it passed, or only when it did not.',
    ]);
    // The description's Markdown is rendered: code in code, no backticks shown.
    const desc = cond.locator('.ae-desc');
    expect(await desc.locator('code').allTextContents()).toEqual(expect.arrayContaining(['stop', 'null']));
    expect(await desc.textContent()).not.toContain('`');
    // The picker shows each description whole.
    await page.getByRole('button', { name: '+ Add action' }).click();
    const clipped = await page.locator('.ae-type .hint').evaluateAll((els) => els.filter((e) => e.scrollHeight > e.clientHeight + 1).length);
    expect(clipped).toBe(0);
    expect(await page.locator('.ae-type .hint').allTextContents()).not.toContainEqual(expect.stringContaining('`'));
    await screenshot(page, 'chain-picker-desktop');
    await page.keyboard.press('Escape');
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`shows the typeahead with values at ${name} width in ${scheme} mode, nothing wider than the screen`, async () => {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${srv.url}/#/${token}/workflow`);
        await page.reload();
        await step(page, 2).waitFor();
        await page.getByRole('button', { name: 'Test until here: steps 1 to 1' }).click();
        await page.getByRole('region', { name: 'Test result: steps 1 to 1' }).waitFor();
        const value = step(page, 2).getByRole('textbox', { name: 'Value' });
        await value.fill('');
        await value.pressSequentially('$json.');
        await suggestions(page).first().waitFor();
        await value.evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await page.screenshot({ path: path.join(ARTIFACTS, `chain-typeahead-${name}-${scheme}.png`) });
        await value.press('Escape');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      });
    }
  }

  it('has no console error and no failed request on the way, for a user with a key', async () => {
    // Every account screen too: Databases are not configured here, and the page does not ask.
    for (const section of ['overview', 'keys', 'providers', 'templates', 'databases', 'variables', 'groups', 'errors']) {
      await page.goto(`${srv.url}/#/account/${section}`);
      await page.locator('main h1').first().waitFor();
    }
    await page.getByTestId('databases-off').count();
    for (const tab of ['', '/settings', '/workflow', '/replay', '/form']) {
      await page.goto(`${srv.url}/#/${token}${tab}`);
      await page.getByRole('navigation', { name: 'Token' }).waitFor();
    }
    await page.waitForTimeout(1000);
    expect(seen).toEqual([]);
  }, 90_000);

  it('has none for an anonymous user either, on every tab of an anonymous token', async () => {
    const { context: anon, page: p } = await openPage(shared.browser, { viewport: { width: 1440, height: 900 } });
    const errors = watchEverything(p);
    const t = (await srv.token({})).uuid;
    await srv.call('POST', `/${t}`, { json: { a: 1 } });
    for (const tab of ['', '/settings', '/workflow', '/replay', '/form']) {
      await p.goto(`${srv.url}/#/${t}${tab}`);
      await p.getByRole('navigation', { name: 'Token' }).waitFor();
      await p.waitForTimeout(500);
    }
    await p.goto(`${srv.url}/#/${t}/workflow`);
    await p.getByRole('button', { name: 'Visual', pressed: true }).waitFor();
    await p.locator('.ae-toolbar').waitFor();
    await p.waitForTimeout(1000);
    await p.goto(`${srv.url}/#/`);
    await p.waitForTimeout(1000);
    await anon.close();
    expect(errors).toEqual([]);
  }, 90_000);
});
