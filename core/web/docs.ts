// The documentation, served by the service (web.module.ts mounts it): `/docs/` renders
// docs/README.md (the index) and
// `/docs/<page>.md` the other pages of docs/, as HTML, so a self-hosted user reads the docs of the
// version they run, linked from the web page. Links are resolved as on the repository: between docs
// pages they stay as written (the URLs mirror docs/); a link to another Markdown file of the
// repository (../README.md) goes to `/docs/repo/<path>`, rendered alike; a link to anything else of
// the repository (a source file, a folder) keeps its text and loses its link, since the service
// does not serve those. Every link is written as an absolute path, so a page reads the same at any
// URL (`/docs` too). Headings get the ids GitHub gives them, so `page.md#anchor` works on both.
// marked is loaded on the first page asked for, not at start-up.
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Tokens } from 'marked';

/** Where docs/ is served. */
export const DOCS_PREFIX = '/docs';
/** Where other Markdown files of the repository are served. */
const REPO_PREFIX = `${DOCS_PREFIX}/repo`;

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a document's headings, numbered as GitHub numbers repeats (`x`, `x-1`, ...). */
export class Slugger {
  readonly #seen = new Map<string, number>();
  slug(text: string): string {
    const base = headingSlug(text);
    const n = this.#seen.get(base);
    this.#seen.set(base, (n ?? -1) + 1);
    return n === undefined ? base : `${base}-${n + 1}`;
  }
}

/** A heading's text as GitHub reads it: the inline tokens' text, without their Markdown. */
export function headingText(tokens: Tokens.Generic[]): string {
  return tokens.map((t) => ('tokens' in t && t.tokens?.length ? headingText(t.tokens as Tokens.Generic[]) : 'text' in t ? String(t.text) : '')).join('');
}

/** A repository path a document may link to as a page: Markdown, no hidden or generated folder. */
function servableMarkdown(rel: string): boolean {
  const segments = rel.split('/');
  return rel.endsWith('.md') && segments.every((s) => /^[A-Za-z0-9_.-]+$/.test(s) && !s.startsWith('.')) && !['node_modules', 'dist', 'data'].includes(segments[0]!);
}

/** Where a link of the repository file `from` points on the service, or null when it does not serve it. */
export function docsHref(href: string, from: string, root: string): string | null {
  if (/^([a-z][a-z0-9+.-]*:|\/\/|#|\/)/i.test(href)) return href; // another site, an anchor, a path of the service
  const hash = href.indexOf('#');
  const target = hash < 0 ? href : href.slice(0, hash);
  const anchor = hash < 0 ? '' : href.slice(hash);
  const rel = path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(target)));
  if (rel.startsWith('..') || !existsSync(path.join(root, rel))) return null;
  if (rel === 'docs' || rel === 'docs/README.md') return `${DOCS_PREFIX}/${anchor}`;
  if (rel.startsWith('docs/')) return `${DOCS_PREFIX}/${rel.slice('docs/'.length)}${anchor}`;
  return servableMarkdown(rel) ? `${REPO_PREFIX}/${rel}${anchor}` : null;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A Markdown file of the repository (`from`, relative to `root`) as a whole HTML page. */
export async function renderPage(markdown: string, from: string, root: string): Promise<string> {
  const { Marked } = await import('marked');
  const slugger = new Slugger();
  let title = '';
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        const text = headingText(tokens as Tokens.Generic[]);
        if (depth === 1 && !title) title = text;
        return `<h${depth} id="${escapeHtml(slugger.slug(text))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title: linkTitle, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const to = docsHref(href, from, root);
        if (to === null) return `<span class="repo-path" title="${escapeHtml(`in the repository: ${href}`)}">${inner}</span>`;
        return `<a href="${escapeHtml(to)}"${linkTitle ? ` title="${escapeHtml(linkTitle)}"` : ''}>${inner}</a>`;
      },
      image({ href, text }) {
        const to = docsHref(href, from, root);
        return to === null ? escapeHtml(text) : `<img src="${escapeHtml(to)}" alt="${escapeHtml(text)}">`;
      },
    },
  });
  const body = marked.parse(markdown, { async: false });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title || from)} · Request capture docs</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/">Request capture</a> · <a href="${DOCS_PREFIX}/">Docs</a><span class="source">${escapeHtml(from)}</span></header>
<main>
${body}</main>
</body>
</html>
`;
}

const STYLE = `
body{margin:0;font:16px/1.55 system-ui,sans-serif;color:#1f2328;background:#fff}
header{padding:.6rem 1.2rem;border-bottom:1px solid #d0d7de;background:#f6f8fa}
header a{color:#1f2328;font-weight:600;text-decoration:none}
header .source{float:right;color:#59636e;font:13px ui-monospace,monospace}
main{max-width:56rem;margin:0 auto;padding:1rem 1.2rem 4rem}
a{color:#0969da}
h1,h2,h3{line-height:1.25;margin:1.6em 0 .6em}
h1,h2{border-bottom:1px solid #d0d7de;padding-bottom:.3em}
code{font:85% ui-monospace,SFMono-Regular,Menlo,monospace;background:#eff1f3;padding:.15em .35em;border-radius:4px}
pre{background:#f6f8fa;padding:1rem;overflow:auto;border-radius:6px}
pre code{background:none;padding:0;font-size:13px}
table{border-collapse:collapse;display:block;overflow:auto;margin:1rem 0}
th,td{border:1px solid #d0d7de;padding:.35rem .7rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
img{max-width:100%;border:1px solid #d0d7de}
.repo-path{border-bottom:1px dotted #59636e}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}header,pre,th{background:#161b22}
header a{color:#e6edf3}code{background:#262c36}a{color:#4493f8}th,td,h1,h2,header,img{border-color:#30363d}}
`;

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.svg': 'image/svg+xml', '.jpg': 'image/jpeg', '.webp': 'image/webp' };

/** What /docs/ answers for a path: a page (HTML) or an image, with its media type. */
export interface DocsFile {
  type: string;
  body: string | Buffer;
}

/**
 * The answer for a path under /docs (the part after `/docs/`, decoded): a page of docs/ or another
 * Markdown file of the repository as HTML, an image of docs/, or null when there is no such thing.
 */
export async function docsFile(rel: string, root: string): Promise<DocsFile | null> {
  if (rel.includes('\0') || rel.split('/').some((s) => s === '..' || s.startsWith('.'))) return null;
  const inRepo = rel.startsWith('repo/');
  const file = inRepo ? rel.slice('repo/'.length) : path.posix.join('docs', rel === '' ? 'README.md' : rel);
  const ext = path.extname(file).toLowerCase();
  if (inRepo ? !servableMarkdown(file) : ext !== '.md' && !IMAGE_TYPES[ext]) return null;
  const full = path.join(root, file);
  const info = await stat(full).catch(() => null);
  if (!info?.isFile()) return null;
  if (ext !== '.md') return { type: IMAGE_TYPES[ext]!, body: await readFile(full) };
  return { type: 'text/html; charset=utf-8', body: await renderPage(await readFile(full, 'utf8'), file, root) };
}

/** Pages run no script: nothing but their own styles and the docs' images. */
export const DOCS_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
