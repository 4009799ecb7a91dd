// The request view and list in a real browser: the response sent back, the note, re-running the
// actions, forwarding to a local server, HAR and CSV exports, a failed search, content type and
// status in the rows, following the newest request. Screenshots (desktop and phone, light and
// dark) go to test/artifacts/.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { builtPageAndBrowser, haveChromium, openPage, screenshot, servePage, unlabelled, watchErrors } from './helpers.js';

const shared = builtPageAndBrowser();

interface Seen {
  method: string;
  url: string;
  signature: string | undefined;
  body: string;
}

describe.skipIf(!haveChromium)(
  'request view and list',
  () => {
    let srv: TestServer;
    let target: http.Server;
    let targetUrl = '';
    const seen: Seen[] = [];
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    /** Token with two actions: a script that fails and a Modify Response. */
    let shop = '';
    /** Token without actions: captures get its default response. */
    let plain = '';

    const capture = async (token: string, suffix: string, init: RequestInit = {}) => {
      const res = await fetch(`${srv.url}/${token}${suffix}`, init);
      await res.arrayBuffer();
      return res.headers.get('x-request-id')!;
    };
    const row = (p: Page, path: string) => p.locator('.req-list a', { hasText: path });

    beforeAll(async () => {
      srv = await servePage(shared.dir);
      target = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          seen.push({ method: req.method!, url: req.url!, signature: req.headers['x-signature'] as string | undefined, body });
          res.writeHead(202, { 'Content-Type': 'application/json', 'X-Target': 'local' });
          res.end(JSON.stringify({ received: body, method: req.method }));
        });
      });
      await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
      targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

      shop = (await srv.token({ actions: true })).uuid;
      for (const action of [
        { type: 'javascript', name: 'Check stock', parameters: { script: "throw new Error('out of stock')" } },
        { type: 'modify_response', parameters: { content: '{"ok":true,"order":"$request.query.id$"}', status: '201', headers: 'X-Shop: yes\nContent-Type: application/json' } },
      ]) {
        const r = await srv.call('POST', `/token/${shop}/actions`, { json: action });
        expect(r.status, r.text).toBe(200);
      }
      plain = (await srv.token({ default_content: 'thanks', default_content_type: 'text/plain' })).uuid;

      ({ context, page, errors } = await openPage(shared.browser));
      page.on('dialog', (d) => void d.accept());
    }, 180_000);

    afterAll(async () => {
      await context?.close();
      await srv?.close();
      await new Promise((r) => target?.close(r));
    });

    it('shows the response sent back, and action errors in words naming the action', async () => {
      await capture(shop, '/orders?id=7', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Signature': 'sig-1' }, body: '{"order":7}' });
      await page.goto(`${srv.url}/#/${shop}`);
      const r = row(page, '/orders?id=7');
      await r.waitFor();
      // The row shows the answer's status and the request's content type.
      expect(await r.locator('.status-code').textContent()).toBe('201');
      expect(await r.locator('.ctype').textContent()).toBe('application/json');
      await r.click();
      // The HTTP version next to the method.
      expect(await page.locator('.detail-head .http-version').textContent()).toBe('HTTP/1.1');

      const sent = page.getByRole('region', { name: 'Response sent back' });
      await sent.waitFor();
      expect(await sent.locator('.status-code').textContent()).toBe('201 Created');
      expect(await sent.getByRole('row', { name: /X-Shop/ }).textContent()).toContain('yes');
      expect(await sent.getByRole('row', { name: /Content-Type/ }).textContent()).toContain('application/json');
      expect(await sent.getByLabel('Response body').textContent()).toContain('"order": "7"');

      const out = page.getByRole('region', { name: 'Custom action output' });
      const error = out.locator('.action-errors li');
      await expect.poll(() => error.textContent()).toMatch(/^Action #1 javascript \(Check stock\) failed: .*out of stock/);
      expect(await out.textContent()).not.toContain('{"action"');
      await screenshot(page, 'rv-01-response-desktop-light');
      expect(await unlabelled(page)).toEqual([]);
    });

    it('re-runs the actions on the request and shows what they did', async () => {
      await page.getByRole('button', { name: 'Re-run actions' }).click();
      const panel = page.getByRole('region', { name: 'Actions run again' });
      await panel.getByText('1 error', { exact: true }).waitFor();
      expect(await panel.locator('.action-errors li').textContent()).toMatch(/^Action #1 javascript \(Check stock\) failed: .*out of stock/);
      expect(await panel.locator('.action-output dt').allTextContents()).toEqual(['Action #1 javascript (Check stock)', 'Action #2 modify_response']);
      expect(await panel.locator('.status-code').textContent()).toBe('201 Created');
      expect(await panel.getByLabel('Re-run response body').textContent()).toContain('"order": "7"');
      // A trial: the stored request is unchanged, and no new request was stored.
      expect((await srv.call('GET', `/token/${shop}/requests`)).data.total).toBe(1);
      await screenshot(page, 'rv-02-rerun');
      expect(await unlabelled(page)).toEqual([]);
      await panel.getByRole('button', { name: 'Close' }).click();
      await panel.waitFor({ state: 'detached' });
    });

    it('edits the note', async () => {
      const note = page.getByRole('region', { name: 'Note' });
      await note.getByRole('button', { name: 'Add a note' }).click();
      await note.getByLabel('Note').fill('Order 7: paid by card');
      await note.getByRole('button', { name: 'Save note' }).click();
      await note.getByText('Order 7: paid by card').waitFor();
      const id = (await srv.call('GET', `/token/${shop}/request/latest`)).data;
      expect(id.note).toBe('Order 7: paid by card');
      // Edit again: the text is there to change.
      await note.getByRole('button', { name: 'Edit note' }).click();
      expect(await note.getByLabel('Note').inputValue()).toBe('Order 7: paid by card');
      await note.getByLabel('Note').fill('Order 7: refunded');
      await note.getByRole('button', { name: 'Save note' }).click();
      await note.getByText('Order 7: refunded').waitFor();
      expect((await srv.call('GET', `/token/${shop}/request/latest`)).data.note).toBe('Order 7: refunded');
    });

    it("forwards the request to a local server and shows the target's answer; a refused address is named", async () => {
      await page.getByRole('button', { name: 'Forward', exact: true }).click();
      const panel = page.getByRole('region', { name: 'Forward this request' });
      await panel.getByLabel('Target URL').fill('http://169.254.169.254/hook');
      await panel.getByRole('button', { name: 'Forward', exact: true }).click();
      const fieldError = panel.locator('#forward-url-error');
      await expect.poll(() => fieldError.textContent()).toMatch(/169\.254\.169\.254.*never allowed/);
      expect(await panel.getByLabel('Target URL').getAttribute('aria-invalid')).toBe('true');

      seen.length = 0;
      await panel.getByLabel('Target URL').fill(`${targetUrl}/hook`);
      await panel.getByLabel('Method').selectOption('PUT');
      await panel.getByRole('button', { name: 'Forward', exact: true }).click();
      const answer = panel.locator('.forward-result');
      await answer.waitFor();
      expect(await answer.locator('.status-code').textContent()).toBe('202 Accepted');
      expect(await answer.getByRole('row', { name: /x-target/ }).textContent()).toContain('local');
      expect(await answer.getByLabel('Forward answer body').textContent()).toContain('"method": "PUT"');
      expect(seen).toEqual([{ method: 'PUT', url: '/hook', signature: 'sig-1', body: '{"order":7}' }]);
      expect(await panel.locator('#forward-url-error').count()).toBe(0);
      await screenshot(page, 'rv-03-forward-desktop-light');
      expect(await unlabelled(page)).toEqual([]);
    });

    it('rows show content type and status of default answers too', async () => {
      await capture(plain, '/204/empty');
      await capture(plain, '/text', { method: 'POST', headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'hello' });
      await capture(plain, '/json', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
      await page.goto(`${srv.url}/#/${plain}`);
      await row(page, '/json').waitFor();
      expect(await row(page, '/204/empty').locator('.status-code').textContent()).toBe('204');
      expect(await row(page, '/204/empty').locator('.ctype').count()).toBe(0);
      expect(await row(page, '/text').locator('.status-code').textContent()).toBe('200');
      expect(await row(page, '/text').locator('.ctype').textContent()).toBe('text/plain');
      // A capture arriving live shows its status as well.
      await capture(plain, '/404/live');
      await row(page, '/404/live').waitFor();
      expect(await row(page, '/404/live').locator('.status-code').textContent()).toBe('404');
      await row(page, '/text').click();
      const sent = page.getByRole('region', { name: 'Response sent back' });
      expect(await sent.getByLabel('Response body').textContent()).toBe('thanks');
      expect(await sent.textContent()).toContain("the token's default response");
    });

    it('a failed search shows its error and an empty list, with no delete button; counts are "matching of total"', async () => {
      const search = page.getByRole('searchbox', { name: 'Search requests' });
      const count = page.getByTestId('request-count');
      await expect.poll(() => count.textContent()).toBe('4');
      await search.fill('method:POST AND (');
      await search.press('Enter');
      await expect.poll(() => search.getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#search-help').textContent()).toMatch(/position \d+/);
      expect(await page.locator('.req-list li').count()).toBe(0);
      expect(await page.getByText('No request matches').count()).toBe(0);
      // The open request keeps its own Delete button; the list has none.
      expect(
        await page
          .locator('.list-pane')
          .getByRole('button', { name: /Delete/ })
          .count(),
      ).toBe(0);
      expect(await count.textContent()).toBe('0 matching of 4 total');
      await screenshot(page, 'rv-04-failed-search');
      expect(await unlabelled(page)).toEqual([]);

      await search.fill('method:POST');
      await search.press('Enter');
      await expect.poll(() => count.textContent()).toBe('2 matching of 4 total');
      expect(await page.locator('.req-list li').count()).toBe(2);
      await page.getByRole('button', { name: 'Delete 2 matching' }).waitFor();
    });

    it('exports the matching requests as HAR and CSV', async () => {
      const [har] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the matching requests as HAR' }).click()]);
      expect(har.suggestedFilename()).toBe(`requests-${plain}.har`);
      const archive = JSON.parse(await readFile((await har.path())!, 'utf8'));
      expect(archive.log.version).toBe('1.2');
      expect(archive.log.entries.map((e: { request: { url: string } }) => new URL(e.request.url).pathname)).toEqual([`/${plain}/json`, `/${plain}/text`]);
      expect(archive.log.entries[0].request.postData).toEqual({ mimeType: 'application/json', text: '{"a":1}' });
      expect(archive.log.entries[0].response).toMatchObject({ status: 200, content: { text: 'thanks', mimeType: 'text/plain' } });

      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the matching requests as CSV' }).click()]);
      expect(csv.suggestedFilename()).toBe(`requests-${plain}.csv`);
      const lines = (await readFile((await csv.path())!, 'utf8')).trim().split('\r\n');
      expect(lines[0]).toMatch(/^uuid,type,method,http_version,url/);
      expect(lines).toHaveLength(3);
      expect(lines.slice(1).every((l) => l.includes(',POST,'))).toBe(true);

      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => page.getByTestId('request-count').textContent()).toBe('4');
    });

    it('follows the newest request when asked, and remembers the choice', async () => {
      const follow = page.getByRole('checkbox', { name: 'Follow newest' });
      expect(await follow.isChecked()).toBe(false);
      // Off: a new request does not take the selection.
      await row(page, '/json').click();
      await page.waitForURL(/#\/[^/]+\/[0-9a-f-]{36}$/);
      const selected = page.url();
      const quiet = await capture(plain, '/not-followed');
      await row(page, '/not-followed').waitFor();
      expect(page.url()).toBe(selected);
      expect(page.url()).not.toContain(quiet);

      await follow.check();
      await page.waitForURL(new RegExp(`${quiet}$`));
      const next = await capture(plain, '/followed', { method: 'POST', body: 'next' });
      await page.waitForURL(new RegExp(`${next}$`), { timeout: 10_000 });
      await page.getByRole('heading', { name: /\/followed/ }).waitFor();

      await page.reload();
      await expect.poll(() => page.getByRole('checkbox', { name: 'Follow newest' }).isChecked()).toBe(true);
      await page.getByRole('checkbox', { name: 'Follow newest' }).uncheck();
      await page.reload();
      expect(await page.getByRole('checkbox', { name: 'Follow newest' }).isChecked()).toBe(false);
    });

    it('a body that is not text shows as a hex dump with a download; a compressed one says it was decoded', async () => {
      const bin = (await srv.token()).uuid;
      const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47]);
      const id = await capture(bin, '/image', { method: 'POST', headers: { 'Content-Type': 'image/png' }, body: bytes });
      await page.goto(`${srv.url}/#/${bin}/${id}`);
      const dump = page.getByLabel('Body, hex dump');
      await dump.waitFor();
      expect((await dump.textContent())!.split('\n')).toEqual(['00000000  89 50 4e 47 0d 0a 1a 0a  00 ff 41 42 43 44 45 46  |.PNG......ABCDEF|', '00000010  47                                                |G|']);
      expect(await page.getByText('Not UTF-8 text: 17 B shown as hex').count()).toBe(1);
      const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the body' }).click()]);
      expect((await readFile((await saved.path())!)).equals(bytes)).toBe(true);
      await screenshot(page, 'rv-05-binary-body');
      expect(await unlabelled(page)).toEqual([]);

      const zipped = await capture(bin, '/zipped', { method: 'POST', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }, body: gzipSync('hello, decoded') });
      await page.goto(`${srv.url}/#/${bin}/${zipped}`);
      await page.getByLabel('Body, raw').waitFor();
      expect(await page.getByLabel('Body, raw').textContent()).toBe('hello, decoded');
      expect(await page.locator('.body-coding').textContent()).toMatch(/^Sent with Content-Encoding gzip \(\d+ B\); shown decoded\./);
    });

    it('looks finished at desktop and phone width, light and dark', async () => {
      const id = (await srv.call('GET', `/token/${shop}/request/latest`)).data.uuid;
      for (const scheme of ['light', 'dark'] as const) {
        for (const [device, opts] of [
          ['desktop', { viewport: { width: 1280, height: 900 } }],
          ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }],
        ] as const) {
          const ctx = await shared.browser.newContext({ ...opts, colorScheme: scheme });
          const p = await ctx.newPage();
          const pageErrors = watchErrors(p);
          await p.goto(`${srv.url}/#/${shop}`);
          await row(p, '/orders?id=7').waitFor();
          if (device === 'phone') {
            await screenshot(p, `rv-10-list-${device}-${scheme}`);
            expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
          }
          await p.goto(`${srv.url}/#/${shop}/${id}`);
          await p.getByRole('region', { name: 'Response sent back' }).waitFor();
          await p.getByRole('button', { name: 'Forward', exact: true }).click();
          await p.getByLabel('Target URL').fill(`${targetUrl}/shot`);
          await p.getByRole('region', { name: 'Forward this request' }).getByRole('button', { name: 'Forward', exact: true }).click();
          await p.locator('.forward-result').waitFor();
          await screenshot(p, `rv-11-detail-${device}-${scheme}`);
          expect(await unlabelled(p)).toEqual([]);
          if (device === 'phone') expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
          await ctx.close();
          expect(pageErrors).toEqual([]);
        }
      }
    });

    it('had no script errors', () => {
      expect(errors).toEqual([]);
    });
  },
  180_000,
);
