// The visual action editor in Chromium: build a chain from the action-type picker and generated
// forms (variables typeahead included) without touching YAML, test it until a step, see field
// errors, save, and see a capture run it; toggling YAML <-> visual keeps everything.
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { TestServer } from '../helpers/server.js';
import { ARTIFACTS, builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, unlabelled } from './helpers.js';

const shared = builtPageAndBrowser();

/** Adds an action type from the picker by searching for it. */
async function addAction(page: Page, search: string, title: string) {
  await page.getByRole('button', { name: '+ Add action' }).click();
  await page.getByLabel('Find an action type').fill(search);
  await page
    .getByRole('region', { name: 'Action types' })
    .getByRole('button', { name: new RegExp(`^${title}`) })
    .click();
}

const step = (page: Page, n: number): Locator => page.locator('.ae-step').nth(n - 1);

/** Types into a field, then picks a suggestion of the variables typeahead. */
async function typeAndPick(field: Locator, text: string, option: string | RegExp) {
  await field.pressSequentially(text);
  const listbox = field.page().getByRole('listbox', { name: 'Variables' }).locator('visible=true');
  await listbox.getByRole('option', { name: option }).first().click();
}

describe.skipIf(!haveChromium)('visual action editor in Chromium', () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let token = '';
  let ownerKey = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    const owner = await srv.user(true);
    ownerKey = owner.key;
    token = (await srv.token({ actions: true }, owner.key)).uuid;
    await srv.call('POST', `/${token}/orders`, { json: { customer: 'ann', total: 42 } });
    ({ context, page, errors } = await openPage(shared.browser, { viewport: { width: 1280, height: 900 }, apiKey: owner.key }));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await srv?.close();
  });

  it('builds a three-step chain with the picker, generated forms and the variables typeahead', async () => {
    await page.goto(`${srv.url}/#/${token}/workflow`);
    await page.getByRole('button', { name: 'Visual', pressed: true }).waitFor();
    await page.getByText('No actions yet').waitFor();

    // The picker groups types by category and searches descriptions too.
    await page.getByRole('button', { name: '+ Add action' }).click();
    const picker = page.getByRole('region', { name: 'Action types' });
    await picker.getByRole('heading', { name: 'Behaviour' }).waitFor();
    const all = await picker.getByRole('button').count();
    await page.getByLabel('Find an action type').fill('status code');
    await expect.poll(() => picker.getByRole('button').allTextContents()).toContainEqual(expect.stringMatching(/^Modify Response/));
    expect(await picker.getByRole('button').count()).toBeLessThan(all / 4);
    await screenshot(page, 'action-editor-picker');
    await page.keyboard.press('Escape');

    await addAction(page, 'json', 'Extract JSON');
    await step(page, 1).getByLabel('Variable name').fill('order');

    await addAction(page, 'set variable', 'Set Variable');
    await step(page, 2).getByLabel('Name (required)').fill('greeting');
    const value = step(page, 2).getByRole('textbox', { name: 'Value' });
    await typeAndPick(value, 'hi $ord', /^order\.…/);
    expect(await value.inputValue()).toBe('hi $order.');
    await value.pressSequentially('customer$');
    expect(await value.inputValue()).toBe('hi $order.customer$');
    // Enums are selects, listing the type's modes.
    expect(await step(page, 2).getByLabel('Mode').locator('option').allTextContents()).toEqual(['(default)', 'text', 'random', 'date', 'math']);

    await addAction(page, 'response', 'Modify Response');
    const content = step(page, 3).getByRole('textbox', { name: 'Content' });
    await content.pressSequentially('$gree');
    // The typeahead's listbox of the variables set above, announced through aria-controls.
    const list = page.locator(`#${await content.getAttribute('aria-controls')}`);
    expect(await list.getByRole('option').first().textContent()).toMatch(/^greetingSet by step 2/);
    await content.press('Enter');
    await content.pressSequentially(' / ');
    await typeAndPick(content, '$greeting.up', /^\.upper/);
    expect(await content.inputValue()).toBe('$greeting$ / $greeting.upper$');
    const status = step(page, 3).getByLabel('Status');
    expect(await status.getAttribute('type')).toBe('number');
    expect([await status.getAttribute('min'), await status.getAttribute('max')]).toEqual(['100', '599']);
    await status.fill('42');
    await screenshot(page, 'action-editor-desktop');
    expect(await unlabelled(page)).toEqual([]);
  });

  it('tests the chain until the second step on the stored request, storing nothing', async () => {
    await page.getByLabel('Test on request').selectOption({ index: 0 });
    expect(await page.getByLabel('Test on request').locator('option').first().textContent()).toMatch(/^Latest: POST \/.*orders/);
    await page.getByRole('button', { name: 'Test until here: steps 1 to 2' }).click();
    const result = page.getByRole('region', { name: 'Test result: steps 1 to 2' });
    await result.waitFor();
    await expect.poll(() => result.getByLabel(/^Output of Step 1/).textContent()).toContain('under $order$');
    expect(await result.getByLabel(/^Output of Step 2/).textContent()).toContain('Set runtime variable $greeting$ to "hi ann"');
    expect(await result.getByRole('row', { name: /\$greeting\$/ }).textContent()).toContain('hi ann');
    expect(await result.textContent()).toContain('no step changed it');
    expect(await result.textContent()).toContain('Every step ran without an error');
    await screenshot(page, 'action-editor-test-result');
    // The stored request has no output from the test.
    const stored = (await srv.call('GET', `/token/${token}/request/latest`, { key: ownerKey })).data;
    expect(stored.custom_action_output).toEqual([]);
  });

  it('shows every validation error at its field, in words', async () => {
    await step(page, 2).getByLabel('Name (required)').fill('');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    const statusError = step(page, 3).getByText('Status: must be an HTTP status code between 100 and 599');
    await statusError.waitFor();
    // The field points at its message.
    const status = step(page, 3).getByLabel('Status');
    expect(await status.getAttribute('aria-invalid')).toBe('true');
    expect(await status.getAttribute('aria-describedby')).toContain(await statusError.getAttribute('id'));
    await step(page, 2)
      .getByText(/^Name: must not be empty/)
      .waitFor();
    // The summary names each field once, with a link to it.
    const summary = page.getByRole('alert').filter({ hasText: 'fields to fix' });
    expect(await summary.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(/^Step 2 \(Set Variable\) · Name: must not be empty/),
      'Step 3 (Modify Response) · Status: must be an HTTP status code between 100 and 599',
    ]);
    await summary.getByRole('button', { name: 'Step 3 (Modify Response)' }).click();
    expect(await status.evaluate((el) => el === document.activeElement)).toBe(true);
    await screenshot(page, 'action-editor-errors');
    await page.getByText(/Not saved: 3 problems in the document, each shown at its field/).waitFor();
    await status.fill('201');
    await step(page, 2).getByLabel('Name (required)').fill('greeting');
  });

  it('saves, and a capture runs the chain and shows its output', async () => {
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByText('Workflow saved.').waitFor({ timeout: 10_000 });
    const res = await fetch(`${srv.url}/${token}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ customer: 'bob' }) });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('hi bob / HI BOB');
    await page.getByRole('navigation', { name: 'Token' }).getByRole('link', { name: 'Requests' }).click();
    await page.locator('.req-list a').first().click();
    await expect.poll(() => page.getByRole('article').textContent(), { timeout: 10_000 }).toContain('Set runtime variable $greeting$ to "hi bob"');
    expect(errors).toEqual([]);
  });

  it('keeps every field through YAML -> visual -> YAML, and the text as it was when nothing changed', async () => {
    await page.goto(`${srv.url}/#/${token}/workflow`);
    await page.getByRole('button', { name: 'YAML' }).click();
    const yaml = [
      '# kept while nothing changes',
      'apiVersion: capture/v1',
      'kind: TokenActions',
      'metadata:',
      `  token: ${token}`,
      'x-team: payments',
      'spec:',
      '  steps:',
      '    - id: 6f1c2a52-3b8e-4c1e-9a57-0a2b3c4d5e6f',
      '      name: big',
      '      type: condition',
      '      parameters: { input: $request.method$, operator: eq, value: POST, action: noop }',
      '      x-owner: ann',
      '    - name: shout',
      '      type: log',
      '      disabled: true',
      '      condition: big',
      '      condition_action: "false"',
      '      parameters: { text: hello, future_option: 3 }',
      '',
    ].join('\n');
    await page.getByLabel('Workflow (YAML)').fill(yaml);
    await page.getByRole('button', { name: 'Visual' }).click();
    await expect.poll(() => step(page, 2).getByLabel('Run only when').inputValue()).toBe('big|false');
    expect(await step(page, 2).getByRole('switch', { name: /^On/ }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'YAML' }).click();
    expect(await page.getByLabel('Workflow (YAML)').inputValue()).toBe(yaml);

    // A change in the visual editor keeps what it does not show.
    await page.getByRole('button', { name: 'Visual' }).click();
    await step(page, 2).getByRole('textbox', { name: 'Text (required)' }).fill('hello there');
    await screenshot(page, 'action-editor-roundtrip');
    await page.getByRole('button', { name: 'YAML' }).click();
    const doc = YAML.parse(await page.getByLabel('Workflow (YAML)').inputValue());
    expect(doc['x-team']).toBe('payments');
    expect(doc.spec.steps[0]).toMatchObject({ id: '6f1c2a52-3b8e-4c1e-9a57-0a2b3c4d5e6f', name: 'big', 'x-owner': 'ann', parameters: { operator: 'eq', action: 'noop' } });
    expect(doc.spec.steps[1]).toEqual({ name: 'shout', type: 'log', disabled: true, condition: 'big', condition_action: 'false', parameters: { text: 'hello there', future_option: 3 } });
  });

  it('reorders by keyboard, duplicates and deletes', async () => {
    await page.getByRole('button', { name: 'Visual' }).click();
    await step(page, 2).getByLabel('Name (optional)').focus();
    await page.keyboard.press('Alt+ArrowUp');
    await expect.poll(() => step(page, 1).getByRole('heading').textContent()).toContain('shout');
    await page.getByRole('button', { name: 'Move step 1 down' }).click();
    await expect.poll(() => step(page, 2).getByRole('heading').textContent()).toContain('shout');
    await page.getByRole('button', { name: 'Duplicate step 2' }).click();
    await expect.poll(() => step(page, 3).getByRole('heading').textContent()).toContain('shout 2');
    await page.getByRole('button', { name: 'Delete step 1' }).click();
    // The steps that waited for the deleted condition no longer name it.
    await expect.poll(() => page.locator('.ae-step').count()).toBe(2);
    expect(await step(page, 1).getByLabel('Run only when').count()).toBe(0);
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`looks finished at ${name} width in ${scheme} mode`, async () => {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${srv.url}/#/${token}/workflow`);
        await page.reload();
        await page.getByRole('button', { name: 'Visual', pressed: true }).click();
        await step(page, 3).waitFor();
        await page.getByRole('button', { name: 'Test until here: steps 1 to 3' }).click();
        await page.getByRole('region', { name: 'Test result: steps 1 to 3' }).waitFor();
        await screenshot(page, `action-editor-${name}-${scheme}`);
        // The first step and the test result as they fill the screen (a full-page shot of a phone is tiny).
        await step(page, 1).evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: path.join(ARTIFACTS, `action-editor-${name}-${scheme}-step.png`) });
        await page.getByRole('region', { name: 'Test result: steps 1 to 3' }).evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: path.join(ARTIFACTS, `action-editor-${name}-${scheme}-result.png`) });
        expect(await unlabelled(page)).toEqual([]);
        // Nothing is wider than the screen.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      });
    }
  }
});
