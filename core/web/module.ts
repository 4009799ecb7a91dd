// The live web page: `/` answers the built index.html, `/app/*` its assets and `/app/config.json`
// the few server settings the page needs. The page is built by `npm run build` (vite, see
// web/vite.config.ts) into dist/web; until then these routes answer a 503 that says so. `/docs/`
// serves the documentation the page links to (docs.ts).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { mountRoutes, routeFor } from '../http/route.js';
import type { AppState } from '../http/services.js';
import type { ModuleContext, ServiceModule, StartedModule } from '../service-module.js';
import { REPO_ROOT } from '../util/paths.js';
import { DOCS_CSP, DOCS_PREFIX, docsFile } from './docs.js';

/** Where the page is mounted: every asset path starts with it (vite `base`). */
export const WEB_PREFIX = '/app';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The built page: the repository's dist/web, whether the module runs compiled or from source. */
export function defaultWebDir(): string {
  return path.join(REPO_ROOT, 'dist', 'web');
}

export interface WebOptions {
  /** Directory holding the built index.html and assets/ (default: defaultWebDir()). */
  dir?: string;
}

interface WebDeps {
  /** Directory holding the built index.html and assets/. */
  dir: string;
  config: ModuleContext['config'];
  /** The repository, whose docs/ (and other Markdown files) /docs/ serves. */
  root: string;
}

async function sendFile(kctx: ParameterizedContext<AppState>, dir: string, rel: string, cache: string): Promise<boolean> {
  const file = path.resolve(dir, rel);
  // Never leave the page's directory (`..`, encoded or not, is resolved away above).
  if (file !== dir && !file.startsWith(dir + path.sep)) return false;
  let info;
  try {
    info = await stat(file);
  } catch {
    return false;
  }
  if (!info.isFile()) return false;
  kctx.set('Cache-Control', cache);
  kctx.set('X-Content-Type-Options', 'nosniff');
  kctx.etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  kctx.lastModified = info.mtime;
  kctx.type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  kctx.status = 200;
  if (kctx.fresh) {
    kctx.status = 304;
    return true;
  }
  kctx.length = info.size;
  // Koa sends no body for HEAD and destroys the unread stream when the response ends.
  kctx.body = createReadStream(file);
  return true;
}

async function sendIndex(kctx: ParameterizedContext<AppState>, dir: string) {
  if (!(await sendFile(kctx, dir, 'index.html', 'no-cache'))) notBuilt(kctx, dir);
  // connect-src takes any http(s) URL for XHR Redirect, which sends requests on from the browser to a
  // URL the viewer chooses (web/src/XhrRedirect.tsx); images and scripts stay on this origin.
  else kctx.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self' http: https:; object-src 'none'; base-uri 'none'; frame-ancestors 'self'");
}

function notBuilt(kctx: ParameterizedContext<AppState>, dir: string) {
  kctx.status = 503;
  kctx.set('Cache-Control', 'no-store');
  kctx.body = { message: `The web page is not built (nothing in ${dir}): run npm run build` };
}

const route = routeFor<WebDeps>();

/** The page's settings (GET /app/config.json). */
const WebConfig = z.object({
  base_url: z.string(),
  email_domain: z.string(),
  dns_domain: z.string(),
  capture_domain: z.string().nullable(),
  databases: z.boolean().describe('Whether hosted databases are configured (DATABASES_POSTGRES_URL): the page does not ask /databases otherwise'),
});

const indexRoute = (p: string, summary: string) => route({ method: 'get', path: p, summary, auth: 'public', response: { status: 200, type: 'text/html' }, handler: (kctx, { dir }) => sendIndex(kctx, dir) });

export const webRoutes = [
  indexRoute('/', 'The web page (HTML)'),
  indexRoute(WEB_PREFIX, 'The web app (HTML)'),
  indexRoute(`${WEB_PREFIX}/`, 'The web app (HTML)'),
  route({
    method: 'get',
    path: `${WEB_PREFIX}/config.json`,
    summary: "The web app's settings (base URL, capture domain, whether databases are configured)",
    auth: 'public',
    response: { status: 200, schema: WebConfig },
    handler: (kctx, { config }) => {
      kctx.set('Cache-Control', 'no-cache');
      return {
        base_url: config.baseUrl ?? `${kctx.protocol}://${kctx.host}`,
        email_domain: config.EMAIL_DOMAIN,
        dns_domain: config.DNS_DOMAIN,
        capture_domain: config.CAPTURE_DOMAIN ?? null,
        databases: !!config.DATABASES_POSTGRES_URL,
      };
    },
  }),
  route({
    method: 'get',
    path: `${WEB_PREFIX}/{path}`,
    rest: 'path',
    summary: "The web app's files (scripts, styles; other paths answer the app's HTML)",
    auth: 'public',
    response: { status: 200, type: '*/*' },
    handler: async (kctx, { dir }) => {
      let rel: string;
      try {
        rel = decodeURIComponent(kctx.path.slice(WEB_PREFIX.length + 1));
      } catch {
        rel = '';
      }
      // Hashed file names (assets/) never change content: cache them for good.
      const immutable = rel.startsWith('assets/');
      if (rel && !rel.includes('\0') && (await sendFile(kctx, dir, rel, immutable ? 'public, max-age=31536000, immutable' : 'no-cache'))) return;
      if (!(await stat(path.join(dir, 'index.html')).catch(() => null))) return notBuilt(kctx, dir);
      kctx.status = 404;
      kctx.body = { message: `No such file: ${kctx.path}` };
    },
  }),
  // `/docs` first: the router also matches it for `/docs/`. Both are the index.
  docsIndexRoute(DOCS_PREFIX),
  docsIndexRoute(`${DOCS_PREFIX}/`),
  route({
    method: 'get',
    path: `${DOCS_PREFIX}/{path}`,
    rest: 'path',
    summary: 'A page of the documentation (docs/<page>.md) as HTML, or one of its images',
    auth: 'public',
    response: { status: 200, type: '*/*' },
    handler: (kctx, { root }) => {
      let rel: string | null;
      try {
        rel = decodeURIComponent(kctx.path.slice(DOCS_PREFIX.length + 1));
      } catch {
        rel = null;
      }
      return docsPage(kctx, rel, root);
    },
  }),
];

function docsIndexRoute(p: string) {
  return route({
    method: 'get',
    path: p,
    summary: 'The documentation: its index (docs/README.md) as HTML',
    auth: 'public',
    response: { status: 200, type: 'text/html' },
    handler: (kctx, { root }) => docsPage(kctx, '', root),
  });
}

async function docsPage(kctx: ParameterizedContext<AppState>, rel: string | null, root: string): Promise<void> {
  const found = rel === null ? null : await docsFile(rel, root);
  if (!found) {
    kctx.status = 404;
    kctx.body = { message: `No such page of the documentation: ${kctx.path} (the index is ${DOCS_PREFIX}/)` };
    return;
  }
  kctx.set('Cache-Control', 'no-cache');
  kctx.set('X-Content-Type-Options', 'nosniff');
  if (found.type.startsWith('text/html')) kctx.set('Content-Security-Policy', DOCS_CSP);
  kctx.type = found.type;
  kctx.body = found.body;
}

export function webRouter(ctx: Pick<ModuleContext, 'config'>, opts: WebOptions = {}): Router<AppState> {
  return mountRoutes(new Router<AppState>(), webRoutes, { dir: path.resolve(opts.dir ?? defaultWebDir()), config: ctx.config, root: REPO_ROOT });
}

export function webModule(opts: WebOptions = {}): ServiceModule {
  return {
    name: 'web',
    async start(ctx: ModuleContext): Promise<StartedModule> {
      return { routers: [webRouter(ctx, opts)] };
    },
  };
}

export const web = webModule();
