// Members limited to groups, on the page in Chromium: an Administrator picks a member's groups on
// Team members (1440 px, then at 390 px), the member's page lists only the tokens and schedules in
// them, the start page's tokens and the Schedules list filter by group, a schedule's group is set on
// its screen, and the Administrator lifts the limit again.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, signIn, unlabelled, type OpenedPage } from './helpers.js';

const shared = builtPageAndBrowser();

/** A screenshot once the passing notice (e.g. "Signed in as ...") has gone, so it hides nothing. */
async function shot(page: Page, name: string): Promise<void> {
  await expect.poll(() => page.locator('.toast.show').count(), { timeout: 5000 }).toBe(0);
  await screenshot(page, name);
}

describe.skipIf(!haveChromium)('members limited to groups on the page', { timeout: 120_000 }, () => {
  let srv: TestServer;
  let admin: { id: number; key: string };
  let member: { id: number; key: string };
  let sales = 0;
  let ops = 0;
  const tokens: Record<string, string> = {};
  let wide: OpenedPage;
  let page: Page;
  let errors: string[];
  const phone = () => openPage(shared.browser, { viewport: { width: 390, height: 844 } });

  beforeAll(async () => {
    srv = await servePage(shared.dir, { SMTP_ENABLED: 'false', SCHEDULER_ENABLED: 'false' }, { realtime: false });
    const r = await srv.call('POST', '/users', { key: ADMIN_KEY, json: { name: 'Grace', email: 'grace@example.test', premium: true } });
    admin = { id: r.data.id, key: r.data.api_key };
    const group = async (name: string) => (await srv.call('POST', '/groups', { key: admin.key, json: { name } })).data.id as number;
    sales = await group('Sales');
    ops = await group('Ops');
    tokens.sales = (await srv.token({ group_id: sales, description: 'sales hook' }, admin.key)).uuid;
    tokens.ops = (await srv.token({ group_id: ops, description: 'ops hook' }, admin.key)).uuid;
    for (const [name, group_id] of [
      ['Sales CRM check', sales],
      ['Ops status check', ops],
    ] as const) {
      const s = await srv.call('POST', '/schedules', { key: admin.key, json: { name, interval: 'hourly', request_url: 'https://example.test/health', group_id } });
      expect(s.status).toBe(200);
    }
    const inv = await srv.call('POST', '/users/invite', { key: admin.key, json: { name: 'Ada', email: 'ada@example.test', user_type_id: 200 } });
    const acc = await srv.call('POST', `/users/invite/${String(inv.data.invite_url).split('/#/invite/')[1]}/accept`);
    member = { id: acc.data.id, key: acc.data.api_key };
    wide = await openPage(shared.browser, { viewport: { width: 1440, height: 900 } });
    ({ page, errors } = wide);
  }, 180_000);

  afterAll(async () => {
    await wide?.context.close();
    await srv?.close();
  });

  it("an Administrator limits a member to a group on Team members; the row shows the member's groups", async () => {
    await page.goto(srv.url);
    await signIn(page, admin.key, /Signed in as Grace/);
    await page.goto(`${srv.url}/#/account/users`);
    const row = page.getByRole('row', { name: /Ada/ });
    await row.getByText('All groups').waitFor();
    await row.getByRole('button', { name: 'Groups of Ada' }).click();
    const choices = page.getByRole('group', { name: 'Groups Ada may open' });
    await choices.getByRole('checkbox', { name: 'Sales' }).check();
    expect(await choices.getByRole('checkbox', { name: 'Ops' }).isChecked()).toBe(false);
    await shot(page, 'team-groups-01-choose-1440');
    expect(await unlabelled(page)).toEqual([]);
    await choices.getByRole('button', { name: 'Limit to the chosen groups' }).click();
    await row.getByText('Only Sales').waitFor();
    expect((await srv.call('GET', `/users/${member.id}`, { key: admin.key })).data.group_ids).toEqual([sales]);
    await shot(page, 'team-groups-02-limited-1440');
    expect(errors).toEqual([]);
  });

  it('at 390 px the member list shows the groups and the choice still works', async () => {
    const { context, page: p, errors: narrowErrors } = await phone();
    await p.goto(srv.url);
    await signIn(p, admin.key, /Signed in as Grace/);
    await p.goto(`${srv.url}/#/account/users`);
    const row = p.getByRole('row', { name: /Ada/ });
    await row.getByText('Only Sales').waitFor();
    await row.getByRole('button', { name: 'Groups of Ada' }).click();
    const choices = p.getByRole('group', { name: 'Groups Ada may open' });
    expect(await choices.getByRole('checkbox', { name: 'Sales' }).isChecked()).toBe(true);
    await shot(p, 'team-groups-03-choose-390');
    // Nothing sticks out sideways on a phone.
    expect(await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    expect(narrowErrors).toEqual([]);
    await context.close();
  });

  it("the limited member's page lists only the tokens and schedules in their group", async () => {
    const { context, page: p, errors: memberErrors } = await phone();
    await p.goto(srv.url);
    await signIn(p, member.key, /Signed in as Ada/);
    const mine = p.getByRole('region', { name: 'Your tokens' });
    await mine.getByText('Only the tokens in the groups you are limited to are listed.').waitFor();
    await expect.poll(() => mine.getByText('sales hook').count()).toBe(1);
    expect(await mine.getByText('ops hook').count()).toBe(0);
    await p.goto(`${srv.url}/#/schedules`);
    await p.getByRole('link', { name: 'Sales CRM check', exact: true }).waitFor();
    expect(await p.getByRole('link', { name: 'Ops status check', exact: true }).count()).toBe(0);
    await p.getByText(/The schedules in the groups you are limited to/).waitFor();
    // At 390 px each schedule is a card: its last column (the actions) is in sight, not off to the right.
    const logs = await p.getByRole('link', { name: 'Logs of Sales CRM check' }).boundingBox();
    expect(logs!.x + logs!.width).toBeLessThanOrEqual(390);
    await shot(p, 'team-groups-04-member-schedules-390');
    // A new schedule of theirs goes in their group.
    await p.getByRole('link', { name: 'New schedule' }).click();
    await p.getByLabel('Name', { exact: true }).fill('Sales API check');
    await p.getByLabel('URL', { exact: true }).fill('https://example.test/sales');
    await expect.poll(() => p.getByLabel('Group', { exact: true }).inputValue()).toBe(String(sales));
    await p.getByRole('button', { name: 'Create schedule' }).click();
    await p.getByRole('heading', { name: 'Schedule Sales API check' }).waitFor();
    const listed = await srv.call('GET', `/schedules?group_id=${sales}`, { key: admin.key });
    expect(listed.data.data.map((s: { name: string }) => s.name)).toEqual(['Sales CRM check', 'Sales API check']);
    expect(memberErrors).toEqual([]);
    await context.close();
  });

  it("the start page's token list filters by group", async () => {
    await page.goto(srv.url);
    const mine = page.getByRole('region', { name: 'Your tokens' });
    await mine.getByText('sales hook').waitFor();
    await mine.getByText('ops hook').waitFor();
    await mine.getByLabel('Group', { exact: true }).selectOption({ label: 'Ops' });
    await expect.poll(() => mine.getByText('sales hook').count()).toBe(0);
    await mine.getByText('ops hook').waitFor();
    await shot(page, 'team-groups-04b-tokens-by-group-1440');
    expect(await unlabelled(page)).toEqual([]);
    await mine.getByLabel('Group', { exact: true }).selectOption({ label: 'All groups' });
    await mine.getByText('sales hook').waitFor();
    expect(errors).toEqual([]);
  });

  it('a schedule is moved to a group on its screen, the list filters by group, and the limit is lifted', async () => {
    await page.goto(`${srv.url}/#/schedules`);
    await page.getByRole('link', { name: 'Sales API check', exact: true }).click();
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Ops' });
    await page.getByLabel(/Alert when the TLS certificate expires within/).fill('21');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Saved.').waitFor();
    await shot(page, 'team-groups-05-schedule-editor-1440');
    const id = Number(page.url().split('/').pop());
    expect((await srv.call('GET', `/schedules/${id}`, { key: admin.key })).data).toMatchObject({ group_id: ops, tls_expiry_alert_days: 21 });
    await page.goto(`${srv.url}/#/schedules`);
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Ops' });
    await expect.poll(() => page.getByRole('link', { name: 'Sales CRM check', exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Sales API check', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Ops status check', exact: true }).waitFor();
    await shot(page, 'team-groups-06-schedules-by-group-1440');
    expect(await unlabelled(page)).toEqual([]);

    await page.goto(`${srv.url}/#/account/users`);
    const row = page.getByRole('row', { name: /Ada/ });
    await row.getByRole('button', { name: 'Groups of Ada' }).click();
    await page.getByRole('group', { name: 'Groups Ada may open' }).getByRole('button', { name: 'Lift the limit' }).click();
    await row.getByText('All groups').waitFor();
    expect((await srv.call('GET', `/users/${member.id}`, { key: admin.key })).data.group_ids).toBeNull();
    expect(errors).toEqual([]);
  });
});
