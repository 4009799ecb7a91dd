// Every resource on the page, in Chromium: the first-run screen; the administrator creating a user
// and a key (shown once, with a copy button); that user signing in, connecting, renaming and
// removing providers, managing global variables and groups, saving a token's chain as a template
// and using it, creating a database and querying it; and a server without Databases saying so.
// Each screen is photographed at 1280 and 390 px wide, light and dark, into test/artifacts/.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES_TEST_URL } from '../helpers/postgres.js';
import { ADMIN_KEY, type TestServer } from '../helpers/server.js';
import { accountNav as account, builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, signIn, unlabelled } from './helpers.js';

/** Photographs the page as it is at desktop and phone width, light and dark; fails on sideways scrolling at 390 px. */
async function views(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, label] of [
      [1280, 'desktop'],
      [390, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, `resources-${name}-${label}-${scheme}`);
      if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(390);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await unlabelled(page)).toEqual([]);
}

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('every resource on the page', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let userKey = '';
  const databases: string[] = [];

  beforeAll(async () => {
    srv = await servePage(shared.dir, { DATABASES_POSTGRES_URL: DATABASES_TEST_URL }, { realtime: false });
    ({ context, page, errors } = await openPage(shared.browser));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
    page.on('dialog', (d) => void d.accept());
  }, 180_000);

  afterAll(async () => {
    // Whatever a failed test left behind on the shared PostgreSQL server.
    for (const id of databases) if (userKey) await srv.call('DELETE', `/databases/${id}`, { key: userKey });
    await context?.close();
    await srv?.close();
  });

  it('greets a first visit with what works without a key and how to get one, until dismissed', async () => {
    await page.goto(`${srv.url}/`);
    const welcome = page.getByTestId('first-run');
    await welcome.getByRole('heading', { name: /Welcome/ }).waitFor();
    expect(await welcome.textContent()).toContain('Works without a key');
    // The exact commands, for this server.
    expect(await welcome.locator('pre').nth(1).textContent()).toContain(`curl -s -X POST ${srv.url}/users -H "Api-Key: $ADMIN_API_KEY"`);
    expect(await welcome.locator('pre').first().textContent()).toContain('export ADMIN_API_KEY=');
    await page.getByRole('button', { name: 'Create a new URL' }).waitFor();
    await views(page, '01-first-run');
    await page.getByRole('button', { name: 'Dismiss the welcome screen' }).click();
    await expect.poll(() => welcome.count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: 'Create a new URL' }).waitFor();
    expect(await page.getByTestId('first-run').count()).toBe(0);
    // Still there for whoever looks for it.
    await page.goto(`${srv.url}/#/welcome`);
    await page.getByTestId('first-run').waitFor();
  });

  it('explains screens a caller may not use instead of failing', async () => {
    await page.goto(`${srv.url}/#/account/providers`);
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
    expect(await page.locator('.acct-gate').textContent()).toMatch(/Sign in with an API key/);
    await views(page, '02-signed-out');
    // The sign-in button opens the key panel with the focus in the field.
    await page.locator('.acct-gate').getByRole('button', { name: 'Enter an API key' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('api-key');
    await views(page, '02-api-key-panel');
  });

  it('lets the administrator create a user whose key is shown once with a copy button', async () => {
    await signIn(page, ADMIN_KEY, /administrator/);
    await account(page).getByRole('link', { name: 'Team members' }).click();
    await page.getByRole('heading', { name: 'Team members', level: 1 }).waitFor();
    // Bad input: the server's words next to the field.
    await page.getByLabel('Name', { exact: true }).fill('Ada');
    await page.getByLabel('E-mail', { exact: true }).fill('not an address');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => page.getByLabel('E-mail', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#user-email-error').textContent()).toMatch(/e-?mail/i);
    await page.getByLabel('E-mail', { exact: true }).fill('ada@example.com');
    await page.getByLabel(/Premium/).check();
    await page.getByRole('button', { name: 'Create user' }).click();

    const notice = page.getByRole('region', { name: 'New API key for Ada' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('you will not see it again');
    userKey = await notice.getByRole('textbox', { name: 'The new API key' }).inputValue();
    expect(userKey).toMatch(/^whk_/);
    await notice.getByRole('button', { name: 'Copy the new API key' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(userKey);
    await page.getByRole('cell', { name: 'ada@example.com' }).waitFor();
    await views(page, '03-users-new-key');
    await notice.getByRole('button', { name: 'I have copied it' }).click();
    await expect.poll(() => notice.count()).toBe(0);

    // A second key for Ada, then revoked: the list shows what is left.
    await page.getByRole('button', { name: 'Keys of Ada' }).click();
    await page.getByRole('heading', { name: 'API keys of Ada' }).waitFor();
    await page.getByRole('button', { name: 'Create a key' }).click();
    const second = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
    expect(second).not.toBe(userKey);
    const keys = page.locator('.acct-subrow .acct-list li');
    await expect.poll(() => keys.count()).toBe(2);
    await views(page, '04-user-keys');
    await page.getByRole('button', { name: `Revoke key ${second.slice(0, 8)}` }).click();
    await expect.poll(() => keys.count()).toBe(1);
    expect((await srv.call('GET', '/users/me', { key: second })).status).toBe(401);
    expect((await srv.call('GET', '/users/me', { key: userKey })).status).toBe(200);

    // The administrator is no user: user screens say so.
    await account(page).getByRole('link', { name: 'Providers' }).click();
    await page.getByText('These belong to users, and the administrator is not one.').waitFor();
  });

  it('signs the user in with that key; their own keys screen marks it', async () => {
    await signIn(page, userKey, /Signed in as Ada/);
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { name: 'Ada', level: 1 }).waitFor();
    // A user the administrator creates is the Administrator of a team of their own.
    expect(await account(page).getByRole('link', { name: 'Team members' }).count()).toBe(1);
    await views(page, '05-account-overview');
    await account(page).getByRole('link', { name: 'API keys' }).click();
    await page.getByText('this browser').waitFor();
    await views(page, '06-own-keys');
    // Their team's members: Ada alone, marked as the one signed in.
    await page.goto(`${srv.url}/#/account/users`);
    await page.getByRole('heading', { name: 'Team members', level: 1 }).waitFor();
    await page.getByRole('cell', { name: /Ada .*you/ }).waitFor();
  });

  it('connects a provider from its schema, renames it and removes it; credentials never come back', async () => {
    await page.goto(`${srv.url}/#/account/providers`);
    await page.getByRole('heading', { name: 'Connect a provider' }).waitFor();
    await page.getByLabel('Kind').selectOption('hubspot');
    const token = page.getByLabel(/^Access token/);
    await token.waitFor();
    expect(await token.getAttribute('type')).toBe('password');
    // Missing credentials: the schema's field says so.
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(() => token.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#connect-c-hubspot-access_token-error').textContent()).toBe('is required');
    // A value the server refuses (422): its words under the field it names.
    await token.fill('pat-na1-secret-value');
    const baseUrl = page.getByLabel(/^Base URL/);
    await baseUrl.fill('ftp://files.example');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(() => baseUrl.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#connect-s-hubspot-base_url-error').textContent()).toBeTruthy();
    await views(page, '07-provider-errors');
    await baseUrl.fill('');
    await page.getByLabel('Name (optional)').fill('CRM');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    const card = page.getByRole('listitem', { name: /CRM/ });
    await card.waitFor();
    expect(await card.textContent()).toContain('Access token (set, hidden)');
    expect(await page.content()).not.toContain('pat-na1-secret-value');

    // An SSH key pair, generated here: its public key is shown with a copy button.
    await page.getByLabel('Kind').selectOption('ssh_key');
    await page.getByLabel('Name (optional)').fill('deploy key');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    const pub = page.getByLabel(/^Public key/);
    await pub.waitFor();
    expect(await pub.inputValue()).toMatch(/^ssh-ed25519 /);
    await page.getByRole('button', { name: /Copy public key/ }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^ssh-ed25519 /);
    await views(page, '08-providers');

    await page.getByRole('button', { name: 'Edit or rename CRM' }).click();
    await page.getByRole('form', { name: 'Edit CRM' }).getByLabel('Name', { exact: true }).fill('Sales CRM');
    await page.getByRole('button', { name: 'Save provider' }).click();
    await page.getByRole('listitem', { name: /Sales CRM/ }).waitFor();
    const list = (await srv.call('GET', '/providers', { key: userKey })).data.data as Array<{ name: string }>;
    expect(list.map((p) => p.name).sort()).toEqual(['Sales CRM', 'deploy key']);

    await page.getByRole('button', { name: 'Remove Sales CRM' }).click();
    await expect.poll(() => page.getByRole('listitem', { name: /Sales CRM/ }).count()).toBe(0);
    expect((await srv.call('GET', '/providers', { key: userKey })).data.total).toBe(1);
  });

  it('creates, searches, edits and deletes global variables', async () => {
    await account(page).getByRole('link', { name: 'Global variables' }).click();
    await page.getByRole('heading', { name: 'New global variable' }).waitFor();
    const form = page.getByRole('form', { name: 'New global variable' });
    await form.getByLabel('Name').fill('bad name');
    await form.getByLabel('Value').fill('x');
    await form.getByRole('button', { name: 'Create variable' }).click();
    await expect.poll(() => form.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#var-new-name-error').textContent()).toContain('letters, digits');
    await form.getByLabel('Name').fill('greeting');
    await form.getByLabel('Value').fill('hello');
    await form.getByRole('button', { name: 'Create variable' }).click();
    await page.getByText('greeting', { exact: true }).waitFor();
    await form.getByLabel('Name').fill('shop_url');
    await form.getByLabel('Value').fill('https://shop.example');
    await form.getByRole('button', { name: 'Create variable' }).click();
    await page.getByText('shop_url', { exact: true }).waitFor();

    await page.getByLabel('Search by name').fill('greet');
    await expect.poll(() => page.locator('.acct-var').count()).toBe(1);
    await views(page, '09-variables');
    await page.getByLabel('Search by name').fill('');
    await expect.poll(() => page.locator('.acct-var').count()).toBe(2);

    await page.getByRole('button', { name: 'Edit greeting' }).click();
    const edit = page.getByRole('form', { name: 'Edit greeting' });
    await edit.getByLabel('Value').fill('hello again');
    await edit.getByRole('button', { name: 'Save variable' }).click();
    await page.getByText('hello again').waitFor();
    const vars = (await srv.call('GET', '/global-variables', { key: userKey })).data.data as Array<{ name: string; value: string }>;
    expect(vars.find((v) => v.name === 'greeting')?.value).toBe('hello again');

    await page.getByRole('button', { name: 'Delete shop_url' }).click();
    await expect.poll(() => page.locator('.acct-var').count()).toBe(1);
  });

  it('groups: create, rename, put a token in one from its settings, delete', async () => {
    const token = await srv.token({}, userKey);
    await account(page).getByRole('link', { name: 'Groups' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByText('Shop', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Rename Shop' }).click();
    await page.getByLabel('New name').fill('Webshop');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Webshop', { exact: true }).waitFor();
    await views(page, '10-groups');

    await page.goto(`${srv.url}/#/${token.uuid}/settings`);
    await page.getByLabel("This token's group").selectOption({ label: 'Webshop' });
    await expect.poll(async () => (await srv.call('GET', `/token/${token.uuid}`, { key: userKey })).data.group_id).toBeGreaterThan(0);
    await views(page, '11-token-group');

    await page.goto(`${srv.url}/#/account/groups`);
    await page.getByRole('button', { name: 'Delete Webshop' }).click();
    await page.getByText('No groups yet.').waitFor();
    expect((await srv.call('GET', `/token/${token.uuid}`, { key: userKey })).data.group_id).toBeNull();
  });

  it("saves a token's chain as a template, its secrets kept, and uses it on another token", async () => {
    // The chain parses the body, then calls a third token with a Basic password (a secret parameter).
    const sink = await srv.token({}, userKey);
    const from = await srv.token({}, userKey);
    for (const json of [
      { type: 'auto_json', name: 'parse', parameters: { source: '$request.content$' } },
      { type: 'http', name: 'call', parameters: { url: `${srv.url}/${sink.uuid}`, method: 'POST', content: 'from the template', auth: { mode: 'basic', username: 'bob', password: 'template-secret-pw' } } },
    ]) {
      const add = await srv.call('POST', `/token/${from.uuid}/actions`, { key: userKey, json });
      expect(add.status, add.text).toBe(200);
    }
    await page.goto(`${srv.url}/#/${from.uuid}/workflow`);
    await page.getByRole('heading', { name: 'Save this chain as a template' }).waitFor();
    await page.getByLabel('Template name').fill('Parse and call');
    await page.getByRole('button', { name: 'Save as template' }).click();
    await page.getByText('Saved as template “Parse and call” with 2 actions.').waitFor();
    await views(page, '12-token-templates');

    const to = await srv.token({}, userKey);
    await page.goto(`${srv.url}/#/${to.uuid}/workflow`);
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Parse and call (2 actions)' });
    await page.getByRole('button', { name: 'Include in this chain' }).click();
    await page.getByText('Added an action that includes “Parse and call”').waitFor();
    const chain = async () => ((await srv.call('GET', `/token/${to.uuid}/actions`, { key: userKey })).data.data as Array<{ type: string }>).map((a) => a.type);
    expect(await chain()).toEqual(['template']);
    // The chain editor shows the chain as it now is (it was opened anew).
    const yaml = page.getByLabel('Workflow (YAML)');
    if (await yaml.count()) await expect.poll(() => yaml.inputValue()).toContain('template_id');

    // The included template runs when a request comes, with the token's password.
    await srv.call('PUT', `/token/${to.uuid}`, { key: userKey, json: { actions: true } });
    await fetch(`${srv.url}/${to.uuid}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"n":1}' });
    const called = async () => {
      const h = ((await srv.call('GET', `/token/${sink.uuid}/requests`, { key: userKey })).data.data as Array<{ headers: Record<string, string[] | string> }>)[0]?.headers.authorization;
      return Array.isArray(h) ? h[0] : h;
    };
    await expect.poll(called).toBe(`Basic ${Buffer.from('bob:template-secret-pw').toString('base64')}`);

    // Copied action by action, a secret cannot come along: the page says which action and why.
    await page.getByRole('button', { name: 'Copy its actions here' }).click();
    const refusal = page.getByText(/Copied 1 of 2; action 2 \(call \(http\)\) was refused: .*stored secret/);
    await refusal.waitFor();
    await views(page, '12-token-templates-copy-refused');
    expect(await chain()).toEqual(['template', 'auto_json']);

    await page.goto(`${srv.url}/#/account/templates`);
    const card = page.getByRole('listitem', { name: /Parse and call/ });
    expect(await card.textContent()).toContain('parse (auto_json)');
    expect(await page.content()).not.toContain('template-secret-pw');
    await views(page, '13-templates');
  });

  it('creates a database, runs queries into a table, shows SQL errors in words, and deletes it', async () => {
    await page.goto(`${srv.url}/#/account/databases`);
    await page.getByRole('heading', { name: 'New database' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Shop data');
    await page.getByRole('button', { name: 'Create database' }).click();
    await page.getByRole('heading', { name: 'Shop data', level: 1 }).waitFor();
    databases.push(/#\/account\/databases\/([0-9a-f-]{36})/.exec(page.url())![1]!);
    const sql = page.getByLabel(/^SQL/);
    const run = async (q: string) => {
      await sql.fill(q);
      await page.getByRole('button', { name: 'Run query' }).click();
      await expect.poll(() => page.getByRole('button', { name: 'Run query' }).isEnabled()).toBe(true);
    };
    await run('create table orders (id serial primary key, total numeric, note text)');
    await page.getByText('no rows returned').waitFor();
    await run("insert into orders (total, note) values (12.5, 'first'), (7, null)");
    await run('select * from orders order by id');
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByRole('columnheader', { name: 'total' }).waitFor();
    expect(await result.locator('tbody tr').count()).toBe(2);
    expect(await result.locator('tbody tr').first().textContent()).toContain('first');
    await page
      .getByTestId('db-manager')
      .getByRole('button', { name: /^orders/ })
      .waitFor();
    await views(page, '14-database-query');
    await run('select * from no_such_table');
    expect(await result.getByRole('alert').textContent()).toMatch(/The database refused the query:.*no_such_table/);
    await views(page, '15-database-error');

    await page.getByRole('link', { name: '← All databases' }).click();
    const row = page.getByRole('row', { name: /Shop data/ });
    await row.waitFor();
    expect(await row.locator('td[data-label="Tables"]').textContent()).toBe('1');
    await views(page, '16-databases');
    await page.getByRole('button', { name: 'Delete Shop data' }).click();
    await page.getByText('No databases yet').waitFor();
    databases.length = 0;
  });

  it('raised no errors in the page', () => {
    expect(errors).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('a server without Databases', { timeout: 60_000 }, () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await servePage(shared.dir, {}, { realtime: false });
  }, 180_000);

  afterAll(async () => {
    await srv?.close();
  });

  it('says Databases are off and who turns them on, instead of an error', async () => {
    const { key } = await srv.user(false);
    const { context, page, errors } = await openPage(shared.browser, { apiKey: key });
    await page.goto(`${srv.url}/#/account/databases`);
    const off = page.getByTestId('databases-off');
    await off.waitFor();
    expect(await off.textContent()).toContain('DATABASES_POSTGRES_URL');
    await views(page, '17-databases-off');
    await context.close();
    expect(errors).toEqual([]);
  });
});
