// Replay and the Form Builder on the page, in Chromium. Replay: the query box counts the matching
// requests, a replay of the token's changed actions runs with its progress and summary shown and
// the stored output replaced; a forward replay to a slow target is cancelled from the page. Form
// Builder: a form is built (labels, a choice list, required), the previewed form is submitted in
// the browser, and the capture shows its fields as form data.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, signIn, unlabelled } from './helpers.js';

const shared = builtPageAndBrowser();

/**
 * The page follows the replay job and the captures by polling the API: on a loaded machine a replay
 * took longer than expect.poll's default second (three runs of this file at once on 2 cores).
 */
const POLL = { timeout: 15_000 };

describe.skipIf(!haveChromium)('replay and the form builder on the page', { timeout: 90_000 }, () => {
  let srv: TestServer;
  let owner: { id: number; key: string };
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    srv = await servePage(shared.dir, { SCHEDULER_POLL_MS: '100' });
    owner = await srv.user(false);
    // Generous: under CI's load the preview frame, reloaded on every change, once took over 10 s to settle.
    ({ context: ctx, page, errors } = await openPage(shared.browser, { viewport: { width: 1280, height: 900 }, timeoutMs: 20_000 }));
  }, 180_000);

  afterAll(async () => {
    await ctx?.close();
    await srv?.close();
  });

  it('replays the changed actions on the matching requests with progress and a summary', async () => {
    const token = await srv.token({ actions: true }, owner.key);
    const added = await srv.call('POST', `/token/${token.uuid}/actions`, { key: owner.key, json: { order: 1, type: 'log', parameters: { text: 'old output' } } });
    for (const m of ['POST', 'GET', 'POST']) await (await fetch(`${srv.url}/${token.uuid}/p`, { method: m, body: m === 'GET' ? undefined : 'x' })).arrayBuffer();
    const actionId = added.data.uuid ?? added.data.id;
    await srv.call('PUT', `/token/${token.uuid}/actions/${actionId}`, { key: owner.key, json: { order: 1, type: 'log', parameters: { text: 'new output' } } });

    await page.goto(`${srv.url}/#/${token.uuid}/replay`);
    await signIn(page, owner.key, /Signed in/);
    await expect.poll(() => page.locator('#replay-count').textContent(), POLL).toBe('3 matching requests');
    await page.getByLabel(/^Requests matching/).fill('method:POST');
    await expect.poll(() => page.locator('#replay-count').textContent(), POLL).toBe('2 matching requests');
    expect(await unlabelled(page)).toEqual([]);
    await page.getByRole('button', { name: 'Start the replay' }).click();
    await expect.poll(() => page.locator('#replay-status').textContent(), POLL).toBe('Done');
    expect(await page.locator('#replay-processed').textContent()).toBe('2 of 2 processed');
    expect(await page.locator('#replay-ran').textContent()).toBe('2');
    expect(await page.locator('#replay-failed').textContent()).toBe('0');
    expect(await page.locator('#replay-progress').getAttribute('value')).toBe('100');
    await screenshot(page, 'replay-done');
    const list = (await srv.call('GET', `/token/${token.uuid}/requests`, { key: owner.key })).data.data;
    for (const r of list) expect(r.custom_action_output.join('\n')).toContain(r.method === 'POST' ? 'new output' : 'old output');
  });

  it('cancels a forward replay from the page', async () => {
    const token = await srv.token({}, owner.key);
    for (let i = 0; i < 30; i++) await (await fetch(`${srv.url}/${token.uuid}/c`, { method: 'POST', body: String(i) })).arrayBuffer();
    let seen = 0;
    const target = http.createServer((req, res) => {
      req.resume();
      seen++;
      setTimeout(() => res.end('ok'), 150);
    });
    await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
    try {
      await page.goto(`${srv.url}/#/${token.uuid}/replay`);
      await page.getByLabel('Forward the requests to a URL').check();
      await page.getByLabel('Target URL').fill(`http://127.0.0.1:${(target.address() as AddressInfo).port}/slow`);
      await page.getByLabel(/Guaranteed ordering/).check();
      await page.getByRole('button', { name: 'Start the replay' }).click();
      await expect.poll(() => page.locator('#replay-status').textContent(), POLL).toBe('Running');
      await page.getByRole('button', { name: 'Cancel the replay' }).click();
      await expect.poll(() => page.locator('#replay-status').textContent(), POLL).toBe('Cancelled');
      const processed = Number((await page.locator('#replay-processed').textContent())!.split(' ')[0]);
      expect(processed).toBeLessThan(30);
      expect(seen).toBeLessThan(30);
    } finally {
      await new Promise((done) => target.close(done));
    }
  });

  /** The token's latest request, once the form's POST has arrived. */
  async function submitted(tokenId: string): Promise<any> {
    let latest: any;
    await expect
      .poll(
        async () => {
          latest = (await srv.call('GET', `/token/${tokenId}/request/latest`, { key: owner.key })).data;
          return latest?.method ?? null;
        },
        { timeout: 10_000 },
      )
      .toBe('POST');
    return latest;
  }

  it('builds a form, submits the preview in the browser, and the capture shows the form data', async () => {
    const token = await srv.token({}, owner.key);
    await page.goto(`${srv.url}/#/${token.uuid}/form`);
    await page.getByLabel('Label of field 1').fill('Full name');
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Label of field 4').fill('Colour');
    await page.getByLabel('Type of field 4').selectOption('select');
    await page.getByLabel('Options (one a line) of field 4').fill('red\nblue');
    await page.getByLabel('Field 4 is required').check();
    const html = await page.locator('#fb-html').inputValue();
    expect(html).toContain(`action="${srv.url}/${token.uuid}/form"`);
    expect(html).toContain('enctype="application/x-www-form-urlencoded"');
    expect(html).toContain('<select id="f4" name="colour" required>');
    expect(html).toContain('<input id="f1" type="text" name="full_name" required>');
    expect(await unlabelled(page)).toEqual([]);
    await screenshot(page, 'form-builder');

    const form = page.frameLocator('iframe[title="Form preview"]');
    // The preview reloads on every change: wait for the document of the last one ('Colour *' appears
    // only once field 4 is required), or a field filled in an older document is lost on the reload.
    await form.getByLabel('Colour *').waitFor();
    await form.getByLabel('Full name *').fill('Ada Lovelace');
    await form.getByLabel('E-mail *').fill('ada@example.test');
    await form.getByLabel('Message').fill('Hello & <bye>');
    await form.getByLabel('Colour *').selectOption('blue');
    await form.getByRole('button', { name: 'Send' }).click();

    const latest = await submitted(token.uuid);
    expect(latest.headers['content-type'][0]).toMatch(/application\/x-www-form-urlencoded/);
    expect(latest.request).toEqual({ full_name: 'Ada Lovelace', email: 'ada@example.test', message: 'Hello & <bye>', colour: 'blue' });
    // The preview does not go blank: the form comes back, saying where the submission went.
    await page.getByText(/^Sent: the submission is in the Requests tab/).waitFor();
    expect(await form.getByLabel('Full name *').inputValue()).toBe('');
    // docs/form-builder.md: the form's posts are found by their path.
    expect((await srv.call('GET', `/token/${token.uuid}/requests?query=${encodeURIComponent('url:*/form')}`, { key: owner.key })).data.total).toBe(1);

    await page.goto(`${srv.url}/#/${token.uuid}/${latest.uuid}`);
    const fields = page.getByRole('region', { name: /^Form fields/ });
    await expect.poll(() => fields.textContent(), POLL).toContain('Ada Lovelace');
    expect(await fields.textContent()).toContain('colour');
    await screenshot(page, 'form-builder-capture');
    expect(errors).toEqual([]);
  });

  it('uploads files with multipart when a field is a file upload', async () => {
    const token = await srv.token({}, owner.key);
    await page.goto(`${srv.url}/#/${token.uuid}/form`);
    await page.getByLabel('Type of field 3').selectOption('file');
    await page.getByLabel('Label of field 3').fill('Attachment');
    const html = await page.locator('#fb-html').inputValue();
    expect(html).toContain('enctype="multipart/form-data"');
    const form = page.frameLocator('iframe[title="Form preview"]');
    // As above: 'Attachment' is only in the document of the last change.
    await form.getByLabel('Attachment').waitFor();
    await form.getByLabel('Name *').fill('Grace');
    await form.getByLabel('E-mail *').fill('grace@example.test');
    await form.getByLabel('Attachment').setInputFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('file body') });
    await form.getByRole('button', { name: 'Send' }).click();
    const latest = await submitted(token.uuid);
    expect(latest.headers['content-type'][0]).toMatch(/multipart\/form-data/);
    expect(latest.request).toMatchObject({ name: 'Grace', email: 'grace@example.test' });
    expect(latest.files.map((f: any) => f.filename)).toEqual(['note.txt']);
    expect(errors).toEqual([]);
  });
});
