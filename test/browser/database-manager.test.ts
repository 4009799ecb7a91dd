// The Database Manager in Chromium against the local PostgreSQL (DATABASES_TEST_URL): create a
// table from the form, add and edit a row, change a column; and the Database action's statement
// offering the chosen hosted database's table names. Screenshots at 1440 and 390 px wide.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES_TEST_URL } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, unlabelled } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('Database Manager in Chromium', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let key = '';
  let db = '';

  beforeAll(async () => {
    srv = await servePage(shared.dir, { DATABASES_POSTGRES_URL: DATABASES_TEST_URL }, { realtime: false });
    key = (await srv.user(true)).key;
    const made = await srv.call('POST', '/databases', { key, json: { name: 'crm' } });
    expect(made.status, made.text).toBe(201);
    db = made.data.id;
    ({ context, page, errors } = await openPage(shared.browser, { viewport: { width: 1440, height: 900 }, apiKey: key }));
    page.on('dialog', (d) => void d.accept());
  }, 180_000);

  afterAll(async () => {
    if (db) await srv?.call('DELETE', `/databases/${db}`, { key });
    await context?.close();
    await srv?.close();
  });

  it('creates a table, adds and edits a row, and changes a column', async () => {
    await page.goto(`${srv.url}/#/account/databases/${db}`);
    const manager = page.getByTestId('db-manager');
    await manager.getByText('No tables yet').waitFor();
    await manager.getByRole('button', { name: 'New table' }).click();
    await page.getByLabel('Table name').fill('contacts');
    // The form starts with an `id serial` key and one more column.
    expect(await page.getByLabel('Column 1 type').inputValue()).toBe('serial');
    await page.getByLabel('Column 2 name').fill('email');
    await page.getByLabel('Column 2 nullable').uncheck();
    await page.getByRole('button', { name: 'Add a column' }).click();
    await page.getByLabel('Column 3 name').fill('score');
    await page.getByLabel('Column 3 type').fill('integer');
    await page.getByLabel('Default').nth(2).selectOption('value');
    await page.getByLabel('Default value').fill('0');
    await screenshot(page, 'database-manager-new-table-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'database-manager-new-table-390');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: 'Create table' }).click();

    const structure = page.getByTestId('db-structure');
    await structure.getByRole('heading', { name: 'Structure of contacts' }).waitFor();
    await expect.poll(() => structure.locator('tbody tr').count()).toBe(3);
    expect(await structure.locator('tbody tr').nth(1).textContent()).toMatch(/email\s*textno/);
    await manager.getByRole('button', { name: /^contacts/ }).waitFor();

    const rows = page.getByTestId('db-rows');
    await rows.getByText('No rows yet').waitFor();
    await rows.getByRole('button', { name: 'Add a row' }).click();
    const form = rows.getByRole('form', { name: 'New row' });
    await form.getByLabel('email').fill('ann@example.com');
    await form.getByRole('button', { name: 'Add row' }).click();
    await rows.getByRole('cell', { name: 'ann@example.com' }).waitFor();
    expect(await rows.locator('tbody tr').first().textContent()).toMatch(/1\s*ann@example\.com\s*0/);

    await rows.getByRole('button', { name: 'Edit row 1' }).click();
    const edit = rows.getByRole('form', { name: 'Edit row' });
    await edit.getByLabel('email').fill('ann@example.org');
    await edit.getByLabel('score').fill('7');
    await edit.getByRole('button', { name: 'Save row' }).click();
    await rows.getByRole('cell', { name: 'ann@example.org' }).waitFor();
    const api = await srv.call('GET', `/databases/${db}/tables/contacts/rows`, { key });
    expect(api.data.data).toEqual([{ id: 1, email: 'ann@example.org', score: 7 }]);

    // A cast that fails is said in words, and the column stays as it was.
    await structure.getByRole('button', { name: 'Change column email' }).click();
    await structure.getByLabel('Column type').fill('integer');
    await structure.getByRole('button', { name: 'Save', exact: true }).click();
    await structure
      .getByRole('alert')
      .filter({ hasText: /invalid input syntax for type integer/ })
      .waitFor();
    await structure.getByRole('button', { name: 'Cancel' }).click();
    await structure.getByRole('button', { name: 'Change column score' }).click();
    await structure.getByLabel('Column name').fill('points');
    await structure.getByRole('button', { name: 'Save', exact: true }).click();
    await rows.getByRole('button', { name: 'points' }).waitFor();

    expect(await unlabelled(page)).toEqual([]);
    await screenshot(page, 'database-manager-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'database-manager-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it("offers the chosen database's table names in the Database action's statement", async () => {
    const token = (await srv.token({ actions: true }, key)).uuid;
    await page.goto(`${srv.url}/#/${token}/workflow`);
    await page.getByText('No actions yet').waitFor();
    await page.getByRole('button', { name: '+ Add action' }).click();
    await page.getByLabel('Find an action type').fill('database');
    await page
      .getByRole('region', { name: 'Action types' })
      .getByRole('button', { name: /^Database Query/ })
      .click();
    const stepCard = page.locator('.ae-step').first();
    await stepCard.getByLabel('Database id').selectOption({ label: 'crm' });
    const statement = stepCard.getByRole('textbox', { name: /^Statement/ });
    await statement.pressSequentially('select * from con');
    const list = page.getByRole('listbox', { name: 'Tables and columns' });
    await list.getByRole('option', { name: /contacts/ }).waitFor();
    await screenshot(page, 'database-action-autocomplete');
    await list.getByRole('option', { name: /contacts/ }).click();
    expect(await statement.inputValue()).toBe('select * from contacts');
    await statement.pressSequentially(' where contacts.em');
    await list.getByRole('option', { name: /^email/ }).click();
    expect(await statement.inputValue()).toBe('select * from contacts where contacts.email');
  });

  it('raised no errors in the page', () => {
    expect(errors).toEqual([]);
  });
});
