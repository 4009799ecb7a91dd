// The service serves its documentation at /docs/: every page of docs/ as HTML, the README and the
// other Markdown files the pages link to, their images; links between them work (every page is
// reached from the index, every link and anchor answers), and nothing outside them is served.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const get = (path: string) => fetch(s.url + path, { redirect: 'manual' });

/** GET with the path sent as written (fetch would resolve `..` first). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(s.url + '/', { path }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The hrefs and the ids of an HTML page. */
function parse(html: string): { hrefs: string[]; ids: Set<string>; srcs: string[] } {
  return {
    hrefs: [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&')),
    ids: new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!)),
    srcs: [...html.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1]!),
  };
}

describe('/docs/', () => {
  it('/docs and /docs/ answer the index, docs/README.md as HTML without scripts', async () => {
    expect(await (await get('/docs')).text()).toBe(await (await get('/docs/')).text());
    const index = await get('/docs/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await index.text();
    expect(html).toContain('<h1 id="documentation">Documentation</h1>');
    expect(html).toContain('<a href="/docs/getting-started.md">Getting started</a>');
    expect(html).not.toMatch(/<script/i);
  });

  it('every page reached from the index answers, and every link and anchor on them resolves', async () => {
    const seen = new Map<string, ReturnType<typeof parse>>();
    const queue = ['/docs/'];
    while (queue.length) {
      const page = queue.shift()!;
      if (seen.has(page)) continue;
      const res = await get(page);
      expect(res.status, page).toBe(200);
      const parsed = parse(await res.text());
      seen.set(page, parsed);
      for (const href of parsed.hrefs) {
        const [target] = href.split('#');
        if (target!.startsWith('/docs/') && !seen.has(target!)) queue.push(target!);
      }
    }
    // Every page of docs/, the README, and what they link to of the repository.
    expect([...seen.keys()]).toEqual(
      expect.arrayContaining([
        '/docs/api.md',
        '/docs/configuration.md',
        '/docs/operating.md',
        '/docs/search.md',
        '/docs/repo/README.md',
        '/docs/repo/CONTRIBUTING.md',
        '/docs/repo/packages/client/README.md',
        '/docs/repo/bench/RESULTS.md',
      ]),
    );
    const broken: string[] = [];
    for (const [page, { hrefs, srcs }] of seen) {
      for (const href of hrefs.filter((h) => h.startsWith('/docs/') || h.startsWith('#'))) {
        const [target, anchor] = href.startsWith('#') ? [page, href.slice(1)] : href.split('#');
        if (anchor && !seen.get(target!)?.ids.has(anchor)) broken.push(`${page}: ${href}`);
      }
      for (const src of srcs) if ((await get(src)).status !== 200) broken.push(`${page}: image ${src}`);
    }
    expect(broken).toEqual([]);
  }, 60_000);

  it('gives headings the anchors GitHub gives them', async () => {
    const { ids } = parse(await (await get('/docs/security.md')).text());
    expect(ids.has('token-passwords')).toBe(true);
    expect(ids.has('rotating-secret_key')).toBe(true);
  });

  it('links to repository files it does not serve keep their text, not their link', async () => {
    const html = await (await get('/docs/testing.md')).text();
    expect(html).toMatch(/<span class="repo-path" title="in the repository: \.\.\/examples\/client-vitest\/webhook\.test\.ts"><code>examples\/client-vitest\/webhook\.test\.ts<\/code><\/span>/);
  });

  it('serves the images of docs/', async () => {
    const res = await get('/docs/images/page.png');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
  });

  it('serves nothing else: other files, hidden or generated folders, paths that leave docs/', async () => {
    for (const path of [
      '/docs/nope.md',
      '/docs/../package.json',
      '/docs/%2e%2e/package.json',
      '/docs/repo/package.json',
      '/docs/repo/node_modules/marked/README.md',
      '/docs/repo/.github/x.md',
      '/docs/repo/../docs/README.md',
      '/docs/repo/%2e%2e/README.md',
      '/docs/%E0%A4%A',
      '/docs/architecture.md%00',
      '/docs/images/',
    ]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body), path).toMatchObject({ message: expect.stringContaining('No such page') });
    }
  });
});
