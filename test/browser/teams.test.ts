// Team members in Chromium: an Administrator invites someone (no relay, so the page shows the
// one-time link), the invited person opens the link in their own browser and sets up their API key,
// signs in as a Viewer (no team screen for them), and the Administrator changes their user type,
// is kept from demoting themself as the last Administrator, and removes them.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type TestServer } from '../helpers/server.js';
import { accountNav as account, builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, signIn, unlabelled, type OpenedPage } from './helpers.js';

const shared = builtPageAndBrowser();

describe.skipIf(!haveChromium)('team members on the page', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let admin: { id: number; key: string };
  let adminPage: OpenedPage;
  let page: Page;
  let errors: string[];
  let inviteUrl = '';
  let viewerId = 0;

  beforeAll(async () => {
    srv = await servePage(shared.dir, { SMTP_ENABLED: 'false' }, { realtime: false });
    const r = await srv.call('POST', '/users', { key: ADMIN_KEY, json: { name: 'Grace', email: 'grace@example.test' } });
    admin = { id: r.data.id, key: r.data.api_key };
    adminPage = await openPage(shared.browser);
    ({ page, errors } = adminPage);
  }, 180_000);

  afterAll(async () => {
    await adminPage?.context.close();
    await srv?.close();
  });

  it('an Administrator invites someone; without a relay the page shows the one-time link', async () => {
    await page.goto(srv.url);
    await signIn(page, admin.key, /Signed in as Grace/);
    await page.goto(`${srv.url}/#/account`);
    await page.getByText(/Administrator of team #\d+/).waitFor();
    await account(page).getByRole('link', { name: 'Team members' }).click();
    await page.getByRole('heading', { name: 'Team members', level: 1 }).waitFor();
    await page.getByRole('cell', { name: /Grace .*you/ }).waitFor();

    // The server's words next to the field it refuses.
    await page.getByLabel('Name', { exact: true }).fill('Linus');
    await page.getByLabel('E-mail', { exact: true }).fill('not an address');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await expect.poll(() => page.getByLabel('E-mail', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#invite-email-error').textContent()).toMatch(/e-?mail/i);

    await page.getByLabel('E-mail', { exact: true }).fill('linus@example.test');
    await page.getByRole('radio', { name: /^Viewer/ }).check();
    await page.getByRole('button', { name: 'Send invite' }).click();
    const link = page.getByRole('textbox', { name: 'Invite link' });
    await link.waitFor();
    inviteUrl = await link.inputValue();
    expect(inviteUrl).toMatch(new RegExp(`^${srv.url}/#/invite/[A-Za-z0-9_-]{20,}$`));
    expect(await page.getByRole('status').filter({ hasText: 'No mail relay' }).count()).toBe(1);
    await page.getByRole('row', { name: /Linus/ }).getByText('invited').waitFor();
    await screenshot(page, 'teams-01-invited');
    expect(await unlabelled(page)).toEqual([]);
    const listed = await srv.call('GET', '/users', { key: admin.key });
    const linus = listed.data.data.find((u: { name: string }) => u.name === 'Linus');
    expect(linus).toMatchObject({ user_type_id: 300, team_id: admin.id, invite_pending: true });
    viewerId = linus.id;
  });

  it('the invited person sets up their API key from the link, once, and signs in as a Viewer', async () => {
    // The invited person's own browser, a phone.
    const { context, page: p, errors: inviteeErrors } = await openPage(shared.browser, { viewport: { width: 390, height: 844 } });
    await p.goto(inviteUrl);
    await p.getByText(/you are invited to team #\d+ as Viewer/).waitFor();
    await screenshot(p, 'teams-02-invite-page');
    await p.getByRole('button', { name: 'Set up my API key' }).click();
    const notice = p.getByRole('region', { name: 'New API key for Linus' });
    await notice.waitFor();
    const key = await notice.getByRole('textbox', { name: 'The new API key' }).inputValue();
    expect((await srv.call('GET', '/users/me', { key })).data).toMatchObject({ id: viewerId, user_type_id: 300 });
    await notice.getByRole('button', { name: 'Sign in with it in this browser' }).click();

    // Signed in: a Viewer has no team screen, and is told why.
    await p.goto(`${srv.url}/#/account`);
    await p.getByText(/Signed in as Linus/).waitFor();
    await p.getByText(/Viewer of team #\d+/).waitFor();
    expect(await account(p).getByRole('link', { name: 'Team members' }).count()).toBe(0);
    await p.goto(`${srv.url}/#/account/users`);
    await p.getByText('Administrators only.').waitFor();

    // The link worked once.
    await p.goto(inviteUrl);
    await p.getByText(/not valid/).waitFor();
    expect(await p.getByRole('button', { name: 'Set up my API key' }).count()).toBe(0);
    expect(inviteeErrors).toEqual([]);
    await context.close();
  });

  it('the Administrator changes the user type, stays Administrator, and removes the member', async () => {
    await page.reload();
    const row = page.getByRole('row', { name: /Linus/ });
    await row.waitFor();
    expect(await row.getByText('invited').count()).toBe(0);
    await row.getByRole('combobox', { name: 'User type of Linus' }).selectOption({ label: 'Member' });
    await expect.poll(async () => (await srv.call('GET', `/users/${viewerId}`, { key: admin.key })).data.user_type_id).toBe(200);

    // The last Administrator cannot make themself a Viewer: the server's reason shows on their row.
    const own = page.getByRole('row', { name: /Grace/ });
    await own.getByRole('combobox', { name: 'User type of Grace' }).selectOption({ label: 'Viewer' });
    await own.getByText(/keeps at least one Administrator/).waitFor();
    expect((await srv.call('GET', '/users/me', { key: admin.key })).data.user_type_id).toBe(100);

    await row.getByRole('button', { name: 'Remove Linus' }).click();
    await page.getByRole('radio', { name: /are deleted/ }).check();
    await screenshot(page, 'teams-03-remove');
    await page.getByRole('button', { name: 'Remove Linus now' }).click();
    await expect.poll(() => page.getByRole('row', { name: /Linus/ }).count()).toBe(0);
    expect((await srv.call('GET', '/users', { key: admin.key })).data.total).toBe(1);
    expect(errors).toEqual([]);
  });
});
