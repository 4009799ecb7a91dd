// Every link of the README, CONTRIBUTING.md, the client package's README and docs/*.md resolves:
// a relative link names a file or folder of the repository, and its #anchor a heading of the
// Markdown file it points at (GitHub's anchors, which the service's /docs/ pages use too).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { headingText, Slugger } from '../core/web/docs.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = fs
  .readdirSync(path.join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const FILES = ['README.md', 'CONTRIBUTING.md', 'packages/client/README.md', ...DOCS];

/** Every link and image of a document (not those inside code), with the headings' anchors. */
function read(file: string): { links: string[]; anchors: Set<string> } {
  const links: string[] = [];
  const anchors = new Set<string>();
  const slugger = new Slugger();
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'heading') anchors.add(slugger.slug(headingText((t as Tokens.Heading).tokens as Tokens.Generic[])));
      if (t.type === 'link' || t.type === 'image') links.push((t as Tokens.Link).href);
      const children = (t as { tokens?: Token[] }).tokens;
      if (children) walk(children);
      if (t.type === 'list') for (const item of (t as Tokens.List).items) walk(item.tokens);
      if (t.type === 'table') {
        const table = t as Tokens.Table;
        for (const cell of [...table.header, ...table.rows.flat()]) walk(cell.tokens);
      }
    }
  };
  walk(new Lexer({ gfm: true }).lex(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  return { links, anchors };
}

const documents = new Map(FILES.map((f) => [f, read(f)]));

function anchorsOf(file: string): Set<string> {
  if (!documents.has(file)) documents.set(file, read(file));
  return documents.get(file)!.anchors;
}

/** Why a link of `from` does not resolve, or null. */
function broken(href: string, from: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return null; // another site
  const hash = href.indexOf('#');
  const target = decodeURI(hash < 0 ? href : href.slice(0, hash));
  const anchor = hash < 0 ? null : href.slice(hash + 1);
  const file = target === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), target));
  if (file.startsWith('..') || !fs.existsSync(path.join(ROOT, file))) return `${href}: no such file ${file}`;
  if (anchor !== null && file.endsWith('.md') && !anchorsOf(file).has(anchor)) return `${href}: ${file} has no heading #${anchor}`;
  return null;
}

describe('links of the documentation', () => {
  it('finds links, images and anchors as GitHub does', () => {
    const { links, anchors } = read('README.md');
    expect(links).toContain('docs/README.md');
    expect(links).toContain('docs/images/page.png');
    expect(anchors.has('quick-start')).toBe(true);
    const s = new Slugger();
    expect(['Rotating `SECRET_KEY`', 'A B', 'A B', 'What it does (and why)!'].map((t) => s.slug(t.replace(/`/g, '')))).toEqual(['rotating-secret_key', 'a-b', 'a-b-1', 'what-it-does-and-why']);
  });

  it.each(FILES)('%s: every relative link and anchor resolves', (file) => {
    const { links } = documents.get(file)!;
    expect(links.map((l) => broken(l, file)).filter(Boolean)).toEqual([]);
  });

  it('the docs index links every page of docs/', () => {
    const linked = new Set(documents.get('docs/README.md')!.links.map((l) => `docs/${l.split('#')[0]}`));
    expect(DOCS.filter((d) => d !== 'docs/README.md' && !linked.has(d))).toEqual([]);
  });
});
