// Writes docs/images/page.png, the README's picture of the web page: a token that received a few
// webhooks, one of them opened. Needs the built page (`npm run build`) and Chromium
// (/usr/bin/chromium, or CHROMIUM_PATH).
//   npx tsx scripts/docs-screenshot.ts
import path from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../core/config.js';
import { silentLogger } from '../core/logger.js';
import { startServer } from '../core/server.js';
import { REPO_ROOT } from '../core/util/paths.js';

const OUT = path.join(REPO_ROOT, 'docs', 'images', 'page.png');
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', SMTP_ENABLED: 'false', DNS_ENABLED: 'false', GEOIP_DATABASES: 'off', BASE_URL: 'http://localhost:8084' });
const server = await startServer(config, { logger: silentLogger });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const token = (await (await fetch(`${server.url}/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"default_content":"thanks"}' })).json()) as { uuid: string };
  const hook = (p: string, init: RequestInit) => fetch(`${server.url}/${token.uuid}${p}`, init).then((r) => r.text());
  await hook('/health?source=uptime', { method: 'GET' });
  await hook('/github', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'User-Agent': 'GitHub-Hookshot/2c4b0a1' },
    body: JSON.stringify({ ref: 'refs/heads/main', commits: [{ id: '4f0d2a8', message: 'Fix the invoice total' }] }),
  });
  await hook('/signup', { method: 'POST', body: new URLSearchParams({ name: 'Ada Lovelace', email: 'ada@example.com', plan: 'pro' }) });
  await hook('/orders/42?expand=items', {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', 'X-Trace': 'abc-123', 'User-Agent': 'shop-backend/3.1' },
    body: JSON.stringify({ event: 'order.shipped', order: { id: 42, total: 99.5, paid: true, items: ['keyboard', 'mouse'] } }),
  });

  const page = await browser.newPage({ viewport: { width: 1280, height: 820 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await page.goto(`${server.url}/#/${token.uuid}`);
  await page.locator('.req-list a', { hasText: '/orders/42' }).click();
  await page.locator('pre.body.pretty').waitFor();
  await page.screenshot({ path: OUT });
  console.log('wrote', path.relative(process.cwd(), OUT));
} finally {
  await browser.close();
  await server.close();
}
