// The Queue profiles settings and the action editor's picker: a profile created, edited, picked on
// a queued step of a saved chain that keeps it through a reload, then deleted; the step then shows
// the profile is gone, and saving asks for another until one is picked.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, watchEverything, type OpenedPage } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('queue profiles: settings and the action editor picker', () => {
  let srv: TestServer;
  let opened: OpenedPage;
  let page: Page;
  let seen: string[];
  let key = '';
  let token = '';
  let profileId = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir);
    key = (await srv.user(true)).key;
    token = (await srv.token({ actions: true }, key)).uuid;
    opened = await openPage(shared.browser, { viewport: { width: 1440, height: 900 }, apiKey: key });
    page = opened.page;
    seen = watchEverything(page);
  }, 180_000);

  afterAll(async () => {
    await opened?.context.close();
    await srv?.close();
  });

  const profiles = async () => (await srv.call('GET', '/queue-profiles', { key })).data.data as Array<Record<string, unknown>>;
  const list = () => page.getByRole('region', { name: 'Queue profiles' }).locator('.acct-list li');

  it('creates a profile, then edits it', async () => {
    await page.goto(`${srv.url}/#/account/queue-profiles`);
    await page.getByText('No queue profiles yet.').waitFor();
    const form = page.getByRole('form', { name: 'New queue profile' });
    await form.getByLabel('Name').fill('CRM API');
    await form.getByLabel('Jobs per period').fill('5');
    await form.getByLabel('Period (seconds)').fill('60');
    await form.getByRole('button', { name: 'Create queue profile' }).click();
    await expect.poll(async () => list().allTextContents()).toEqual([expect.stringMatching(/^CRM API 5 per 60 s · delay 0 s · lifetime 86400 s/)]);
    const [created] = await profiles();
    expect(created).toMatchObject({ name: 'CRM API', rate_limit: 5, rate_period: 60, initial_delay: 0, job_lifetime: 86_400 });
    profileId = String(created!.id);
    // The form is empty again for the next one.
    expect(await form.getByLabel('Name').inputValue()).toBe('');

    await page.getByRole('button', { name: 'Edit CRM API' }).click();
    const edit = page.getByRole('form', { name: 'Edit queue profile CRM API' });
    // The form takes the focus to its first field as it opens, before anything is typed into it.
    await edit.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('qp-new-name');
    expect(await edit.getByLabel('Jobs per period').inputValue()).toBe('5');
    await edit.getByLabel('Jobs per period').fill('10');
    await edit.getByLabel('Initial delay (seconds)').fill('2');
    await screenshot(page, 'queue-profiles-edit');
    await edit.getByRole('button', { name: 'Save queue profile' }).click();
    await page.getByRole('form', { name: 'New queue profile' }).waitFor();
    await expect.poll(async () => list().allTextContents()).toEqual([expect.stringMatching(/^CRM API 10 per 60 s · delay 2 s/)]);
    expect(await profiles()).toEqual([expect.objectContaining({ id: profileId, rate_limit: 10, initial_delay: 2 })]);

    // Bad input is refused at its field, nothing saved.
    await page.getByRole('button', { name: 'Edit CRM API' }).click();
    await page.getByRole('form', { name: 'Edit queue profile CRM API' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('qp-new-name');
    await page.getByRole('form', { name: 'Edit queue profile CRM API' }).getByLabel('Period (seconds)').fill('0');
    await page.getByRole('button', { name: 'Save queue profile' }).click();
    await expect.poll(() => page.getByLabel('Period (seconds)').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await profiles()).toEqual([expect.objectContaining({ rate_period: 60 })]);
  });

  it('picks the profile on a queued step, saves the chain and keeps it through a reload', async () => {
    await page.goto(`${srv.url}/#/${token}/workflow`);
    await page.getByRole('button', { name: '+ Add action' }).click();
    await page.getByLabel('Find an action type').fill('log');
    await page.getByRole('region', { name: 'Action types' }).getByRole('button', { name: /^Log / }).click();
    const step = page.locator('.ae-step').first();
    await step.getByRole('textbox', { name: /^Text/ }).fill('queued $request.content$');
    await step.getByText('Queued: run after the capture is answered').click();
    expect(await step.getByRole('switch', { name: /^Queued/ }).isChecked()).toBe(true);
    const picker = step.getByLabel('Queue profile');
    expect(await picker.locator('option').allTextContents()).toEqual(['None (run as soon as due)', 'CRM API (10 per 60 s)']);
    await picker.selectOption({ label: 'CRM API (10 per 60 s)' });
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByText('Workflow saved.', { exact: true }).waitFor();
    const saved = (await srv.call('GET', `/token/${token}/actions`, { key })).data.data;
    expect(saved).toEqual([expect.objectContaining({ type: 'log', queue: true, queue_profile: profileId })]);

    await page.reload();
    const again = page.locator('.ae-step').first().getByLabel('Queue profile');
    await expect.poll(() => again.inputValue()).toBe(profileId);
    await screenshot(page, 'queue-profiles-picker');
  });

  it('deletes the profile; the step then says it is gone and saving asks for another', async () => {
    await page.goto(`${srv.url}/#/account/queue-profiles`);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete CRM API' }).click();
    await page.getByText('No queue profiles yet.').waitFor();
    expect(await profiles()).toEqual([]);

    await page.goto(`${srv.url}/#/${token}/workflow`);
    const picker = page.locator('.ae-step').first().getByLabel('Queue profile');
    await expect.poll(() => picker.inputValue()).toBe(profileId);
    expect(await picker.locator('option:checked').textContent()).toBe(`Deleted, or not yours (${profileId})`);
    // Saved as it is, the chain is refused at the step's field.
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByText(/^Not saved: 1 problem/).waitFor();
    expect(await page.locator('.ae-step').first().locator('.field-error').allTextContents()).toContain("must be the ID of a queue profile of the token's owner");
    await screenshot(page, 'queue-profiles-deleted');
    await picker.selectOption({ label: 'None (run as soon as due)' });
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByText('Workflow saved.', { exact: true }).waitFor();
    const saved = (await srv.call('GET', `/token/${token}/actions`, { key })).data.data;
    expect(saved).toEqual([expect.objectContaining({ queue: true, queue_profile: null })]);
    // The 422s of the refused edit and the refused chain are the only failed requests on the way.
    expect(seen.filter((s) => !(/\b422\b/.test(s) && /\/queue-profiles\/[^/]+$|\/workflow$/.test(s)))).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
