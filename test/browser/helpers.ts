// Browser tests: Debian's Chromium driven by playwright-core, against a server that serves a page
// freshly built from web/ (into a temporary directory, so a stale dist/ never decides a test).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadModules, type ServiceModule } from '../../core/modules.js';
import type { RequestRecord } from '../../core/store/types.js';
import { REPO_ROOT } from '../../core/util/paths.js';
import { webModule } from '../../core/web/module.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const ROOT = REPO_ROOT;
export const ARTIFACTS = path.join(ROOT, 'test', 'artifacts');
/** Debian's Chromium; CHROMIUM_PATH points elsewhere (e.g. Chrome on a hosted CI runner). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium is there, or this run must have it (CI installs it). */
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)`);
  console.warn(`browser tests skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
}

/** Builds web/ with vite into a new temporary directory; returns it and a cleanup. */
export async function buildPage(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'web-page-'));
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  await promisify(execFile)(process.execPath, [vite, 'build', '--config', path.join(ROOT, 'web', 'vite.config.ts'), '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: ROOT,
    timeout: 120_000,
  });
  if (!existsSync(path.join(dir, 'index.html'))) throw new Error(`vite build wrote no index.html into ${dir}`);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The configured modules with the web page served from `dir`; `realtime: false` leaves realtime out. */
export async function modulesWithPage(dir: string, opts: { realtime?: boolean } = {}): Promise<ServiceModule[]> {
  const mods = (await loadModules()).filter((m) => m.name !== 'web' && (opts.realtime !== false || m.name !== 'realtime'));
  return [...mods, webModule({ dir })];
}

/** A test server (`env` on the test defaults) serving the page built into `dir`. */
export async function servePage(dir: string, env: Parameters<typeof startTestServer>[0] = {}, opts: { realtime?: boolean } = {}): Promise<TestServer> {
  return startTestServer(env, { modules: await modulesWithPage(dir, opts) });
}

export interface PageOptions extends BrowserContextOptions {
  /** Stored as the page's API key before its scripts run (in the top frame only: the form preview's sandboxed frame has no storage). */
  apiKey?: string;
  /** The page's default timeout for waits and actions; 10 s unless told (a locator that never matches fails with its name well before the test's own timeout). */
  timeoutMs?: number;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** The page's errors as watchErrors collects them. */
  errors: string[];
}

/** A new browser context with one page: 1280x900 unless told, signed in with `apiKey` if given, its errors watched. */
export async function openPage(browser: Browser, opts: PageOptions = {}): Promise<OpenedPage> {
  const { apiKey, timeoutMs = 10_000, ...contextOptions } = opts;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  if (apiKey) await context.addInitScript((k) => window === window.top && localStorage.setItem('capture.apiKey', k), apiKey);
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  return { context, page, errors: watchErrors(page) };
}

/**
 * The page built once and one Chromium for a test file: registers the hooks that build and launch
 * them before its tests and close them after. Read `dir` and `browser` inside tests and hooks.
 */
export function builtPageAndBrowser(): { readonly dir: string; readonly browser: Browser } {
  let built: { dir: string; cleanup: () => Promise<void> } | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!haveChromium) return;
    built = await buildPage();
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await built?.cleanup();
  });
  return {
    get dir() {
      return built!.dir;
    },
    get browser() {
      return browser!;
    },
  };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // playwright gives every launch a fresh temporary profile (user-data-dir).
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A full-page screenshot from the top (scrolled down, the sticky top bar would sit mid-page). */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Fails the test on page errors (uncaught exceptions, console errors other than expected 4xx). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    // Resource loads the page expects to fail (404 of an optional API, 4xx of a search), and the
    // sandbox of an e-mail's HTML doing its job.
    if (/Failed to load resource|EventSource|Blocked script execution in 'about:srcdoc'/.test(text)) return;
    errors.push(`console: ${text}`);
  });
  return errors;
}

/**
 * Every console error and failed response of the page, expected 4xx included: a clean screen has
 * none (stricter than watchErrors, which lets expected failed loads through).
 */
export function watchEverything(page: Page): string[] {
  const seen: string[] = [];
  page.on('pageerror', (e) => seen.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && seen.push(`console: ${m.text()} ${m.location().url}`));
  page.on('response', (r) => r.status() >= 400 && seen.push(`${r.status()} ${r.request().method()} ${r.url()}`));
  page.on('requestfailed', (r) => !/ERR_ABORTED/.test(r.failure()?.errorText ?? '') && seen.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
  return seen;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
}

/**
 * Controls without an accessible name (inputs, selects, textareas, buttons, links) and missing
 * landmarks on the page as shown: an empty list when every control is labelled.
 */
export async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const byIds = (ids: string | null) =>
      (ids ?? '')
        .split(/\s+/)
        .map((id) => (id ? (document.getElementById(id)?.textContent ?? '') : ''))
        .join(' ');
    for (const el of document.querySelectorAll<HTMLElement>('input:not([type=hidden]), select, textarea, button, a[href]')) {
      if (el.getClientRects().length === 0) continue; // not shown
      let name = (el.getAttribute('aria-label') ?? '') + byIds(el.getAttribute('aria-labelledby'));
      if (!name.trim() && (el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement)) {
        name = [...(el.labels ?? [])].map((l) => l.textContent ?? '').join(' ');
      }
      if (!name.trim() && (el.tagName === 'BUTTON' || el.tagName === 'A')) {
        name = (el.textContent ?? '') + [...el.querySelectorAll('img[alt]')].map((i) => i.getAttribute('alt')).join(' ');
      }
      if (!name.trim()) out.push(el.outerHTML.slice(0, 160));
    }
    for (const [sel, what] of [
      ['main', 'main landmark'],
      ['header', 'banner landmark'],
      ['nav', 'navigation landmark'],
    ] as const) {
      if (!document.querySelector(sel)) out.push(`no ${what}`);
    }
    if (document.querySelectorAll('main').length > 1) out.push('more than one main landmark');
    return out;
  });
}

/**
 * The header's entries shown off the brand's row (their text): empty when the header is one row,
 * as it must be at 390 px.
 */
export async function headerOffRow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const middle = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.top + r.height / 2;
    };
    const brand = middle(document.querySelector('.topbar .brand')!);
    return [...document.querySelectorAll('.topbar nav > *')].filter((e) => e.getBoundingClientRect().width > 0 && Math.abs(middle(e) - brand) > 4).map((e) => e.textContent ?? '');
  });
}

/** Enters `key` in the header's API key panel and waits until the page knows who it is. */
export async function signIn(page: Page, key: string, who: RegExp): Promise<void> {
  const field = page.getByRole('textbox', { name: 'API key', exact: true });
  if (!(await field.isVisible())) await page.getByRole('button', { name: /^API key/ }).click();
  await field.fill(key);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  // A key that signs in closes the panel; the header button then says who.
  await expect.poll(() => page.getByRole('button', { name: /^API key/ }).getAttribute('title')).toMatch(who);
  await page.locator('#apikey').waitFor({ state: 'detached' });
}

/** The account area's navigation. */
export const accountNav = (page: Page) => page.getByRole('navigation', { name: 'Account' });

/**
 * Stores an e-mail and a DNS capture on `token` through the store, shaped as the SMTP and DNS
 * servers store them, for the screens that show those kinds; `text` and `html` are the message's.
 */
export async function storeMailAndDns(srv: TestServer, token: string, mail: { text: string; html: string }): Promise<{ email: string; dns: string }> {
  const now = Date.now();
  const base = {
    token_id: token,
    team_id: null,
    user_agent: '',
    query: null,
    form: null,
    files: [],
    custom_action_output: [],
    custom_action_errors: [],
    time: 0,
    note: null,
    created_at: now,
    updated_at: now,
  } satisfies Partial<RequestRecord>;
  const raw = Buffer.from(`From: ann@example.test\r\nTo: x@email.localhost\r\nSubject: Quarterly numbers\r\n\r\n${mail.text}\r\n`);
  const ids = { email: randomUUID(), dns: randomUUID() };
  await srv.services.store.requests.insert(
    {
      ...base,
      uuid: ids.email,
      type: 'email',
      ip: '192.0.2.7',
      hostname: 'email.localhost',
      method: 'SMTP',
      url: `mailto:${token}@email.localhost`,
      content_type: 'message/rfc822',
      body: raw,
      size: raw.length,
      headers: { from: ['ann@example.test'], subject: ['Quarterly numbers'] },
      sorting: now * 1000 + 1,
      extra: { sender: 'ann@example.test', subject: 'Quarterly numbers', destinations: [`${token}@email.localhost`], text_content: mail.text, html_content: mail.html },
    },
    10_000,
  );
  await srv.services.store.requests.insert(
    {
      ...base,
      uuid: ids.dns,
      type: 'dns',
      ip: '192.0.2.8',
      hostname: `probe.${token}.dns.localhost`,
      method: 'DNS',
      url: `dns:probe.${token}.dns.localhost?type=A`,
      content_type: null,
      body: Buffer.alloc(0),
      size: 0,
      headers: {},
      sorting: now * 1000 + 2,
      extra: { dns: { name: `probe.${token}.dns.localhost`, type: 'A', protocol: 'udp', subdomain: 'probe' } },
    },
    10_000,
  );
  return ids;
}
