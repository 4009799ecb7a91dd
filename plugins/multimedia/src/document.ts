// A small document model that both inputs of Generate PDF are read into: Markdown through marked's
// lexer, HTML through cheerio. Only what the PDF renderer draws is kept: headings, paragraphs with
// bold/italic/code/link runs, lists, code blocks, block quotes, rules and tables (as lines).
// Text of unknown HTML elements is kept; scripts, styles and the <head> are not.
import { checkParseLimits } from '@capture/sdk/parse-limits';
import { load } from 'cheerio';
import { Lexer, type Token, type Tokens } from 'marked';

export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  link?: string;
}

export type Block =
  | { type: 'heading'; level: number; runs: Run[] }
  | { type: 'paragraph'; runs: Run[] }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'code'; text: string }
  | { type: 'quote'; blocks: Block[] }
  | { type: 'hr' }
  | { type: 'table'; rows: Array<{ header: boolean; cells: string[] }> };

type Style = Omit<Run, 'text'>;

/** A hard line break inside runs (<br>, two trailing spaces in Markdown): survives whitespace collapsing. */
export const BREAK = '\u2028';

/**
 * Merges neighbours of the same style, collapses whitespace (HTML and Markdown soft breaks become
 * spaces; code keeps its own), turns hard breaks into "\n" and trims the ends.
 */
export function tidyRuns(runs: Run[]): Run[] {
  const out: Run[] = [];
  for (const r of runs) {
    let text = r.code ? r.text.replace(/[\r\n]+/g, ' ') : r.text.replace(/[ \t\r\n\f]+/g, ' ');
    const prev = out[out.length - 1];
    const prevEnd = prev ? prev.text[prev.text.length - 1] : BREAK;
    if (!r.code && (prevEnd === ' ' || prevEnd === BREAK)) text = text.replace(/^ +/, '');
    if (!text) continue;
    if (prev && prev.bold === r.bold && prev.italic === r.italic && prev.code === r.code && prev.link === r.link) prev.text += text;
    else out.push({ ...r, text });
  }
  // Trailing spaces and breaks of the paragraph.
  while (out.length) {
    const last = out[out.length - 1];
    last.text = last.text.replace(/[ \u2028]+$/, '');
    if (last.text) break;
    out.pop();
  }
  for (const r of out) r.text = r.text.replace(/ *\u2028 */g, '\n');
  return out;
}

export const runsText = (runs: Run[]): string => runs.map((r) => r.text).join('');

// ---------------------------------------------------------------------------------------------
// Markdown

const INLINE_TAG = /^<(\/?)(b|strong|i|em|code|br)\b[^>]*>$/i;

function markdownRuns(tokens: Token[] | undefined, style: Style, out: Run[] = []): Run[] {
  // Inline HTML such as <b>...</b> arrives as separate open and close tokens: keep a style stack.
  let current = { ...style };
  const stack: Style[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'text':
      case 'escape':
        if ('tokens' in t && t.tokens?.length) markdownRuns(t.tokens, current, out);
        else out.push({ ...current, text: t.text });
        break;
      case 'strong':
        markdownRuns(t.tokens, { ...current, bold: true }, out);
        break;
      case 'em':
        markdownRuns(t.tokens, { ...current, italic: true }, out);
        break;
      case 'del':
        markdownRuns(t.tokens, current, out);
        break;
      case 'codespan':
        out.push({ ...current, code: true, text: t.text });
        break;
      case 'link':
        markdownRuns(t.tokens, { ...current, link: t.href }, out);
        break;
      case 'image':
        if (t.text) out.push({ ...current, text: t.text });
        break;
      case 'br':
        out.push({ ...current, text: BREAK });
        break;
      case 'html': {
        const m = INLINE_TAG.exec(t.text.trim());
        if (!m) {
          out.push(...htmlInlineRuns(t.text, current));
          break;
        }
        const [, closing, tag] = m;
        const name = tag.toLowerCase();
        if (name === 'br') out.push({ ...current, text: BREAK });
        else if (closing) current = stack.pop() ?? { ...style };
        else {
          stack.push(current);
          current = { ...current, ...(name === 'b' || name === 'strong' ? { bold: true } : name === 'code' ? { code: true } : { italic: true }) };
        }
        break;
      }
      default:
        if ('tokens' in t && Array.isArray(t.tokens)) markdownRuns(t.tokens, current, out);
        else if ('text' in t && typeof t.text === 'string') out.push({ ...current, text: t.text });
    }
  }
  return out;
}

function markdownBlocks(tokens: Token[]): Block[] {
  const out: Block[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'heading':
        out.push({ type: 'heading', level: t.depth, runs: tidyRuns(markdownRuns(t.tokens, { bold: true })) });
        break;
      case 'paragraph':
      case 'text': {
        const runs = tidyRuns(markdownRuns(t.tokens ?? [{ type: 'text', raw: t.text, text: t.text }], {}));
        if (runs.length) out.push({ type: 'paragraph', runs });
        break;
      }
      case 'list': {
        const list = t as Tokens.List;
        out.push({ type: 'list', ordered: list.ordered, start: typeof list.start === 'number' ? list.start : 1, items: list.items.map((i) => markdownBlocks(i.tokens)) });
        break;
      }
      case 'code':
        out.push({ type: 'code', text: t.text });
        break;
      case 'blockquote':
        out.push({ type: 'quote', blocks: markdownBlocks(t.tokens ?? []) });
        break;
      case 'hr':
        out.push({ type: 'hr' });
        break;
      case 'table': {
        const table = t as Tokens.Table;
        const row = (cells: Tokens.TableCell[]) => cells.map((c) => runsText(tidyRuns(markdownRuns(c.tokens, {}))));
        out.push({ type: 'table', rows: [{ header: true, cells: row(table.header) }, ...table.rows.map((r) => ({ header: false, cells: row(r) }))] });
        break;
      }
      case 'html':
        out.push(...htmlBlocks(t.text));
        break;
      default:
        // space, def and anything newer: nothing to draw.
        break;
    }
  }
  return out;
}

export function fromMarkdown(markdown: string): Block[] {
  return markdownBlocks(new Lexer({ gfm: true }).lex(markdown));
}

// ---------------------------------------------------------------------------------------------
// HTML

interface DomNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: DomNode[];
}

const SKIP = new Set(['head', 'script', 'style', 'title', 'template', 'noscript', 'meta', 'link', 'iframe', 'object', 'svg', 'canvas', 'select', 'button']);
const CONTAINERS = new Set([
  'html',
  'body',
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'nav',
  'aside',
  'address',
  'figure',
  'figcaption',
  'form',
  'fieldset',
  'legend',
  'dl',
  'dt',
  'dd',
  'center',
  'details',
  'summary',
  'caption',
  'li',
]);

const textOf = (node: DomNode): string => (node.type === 'text' ? (node.data ?? '') : node.type === 'tag' || node.type === 'root' ? (node.children ?? []).map(textOf).join('') : '');

function domBlocks(nodes: DomNode[], style: Style): Block[] {
  const out: Block[] = [];
  let runs: Run[] = [];
  const flush = () => {
    const tidy = tidyRuns(runs);
    if (tidy.length) out.push({ type: 'paragraph', runs: tidy });
    runs = [];
  };
  const walk = (node: DomNode, s: Style): void => {
    if (node.type === 'text') {
      runs.push({ ...s, text: node.data ?? '' });
      return;
    }
    // Comments, directives, and <script>/<style> (their own node types) draw nothing.
    if (node.type !== 'tag' && node.type !== 'root') return;
    const name = (node.name ?? '').toLowerCase();
    const children = node.children ?? [];
    if (SKIP.has(name)) return;
    const heading = /^h([1-6])$/.exec(name);
    if (heading) {
      flush();
      const inner = tidyRuns(flatRuns(domBlocks(children, { ...s, bold: true })));
      if (inner.length) out.push({ type: 'heading', level: Number(heading[1]), runs: inner });
      return;
    }
    switch (name) {
      case 'br':
        runs.push({ ...s, text: BREAK });
        return;
      case 'strong':
      case 'b':
      case 'th':
        return children.forEach((c) => walk(c, { ...s, bold: true }));
      case 'em':
      case 'i':
      case 'cite':
      case 'var':
        return children.forEach((c) => walk(c, { ...s, italic: true }));
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        return children.forEach((c) => walk(c, { ...s, code: true }));
      case 'a':
        return children.forEach((c) => walk(c, node.attribs?.href ? { ...s, link: node.attribs.href } : s));
      case 'img':
        if (node.attribs?.alt) runs.push({ ...s, text: node.attribs.alt });
        return;
      case 'hr':
        flush();
        out.push({ type: 'hr' });
        return;
      case 'pre':
        flush();
        out.push({ type: 'code', text: textOf(node).replace(/^\n/, '').replace(/\s+$/, '') });
        return;
      case 'blockquote':
        flush();
        out.push({ type: 'quote', blocks: domBlocks(children, s) });
        return;
      case 'ul':
      case 'ol': {
        flush();
        const items = children
          .filter((c) => (c.type === 'tag' ? !SKIP.has(c.name ?? '') : c.type === 'text' && (c.data ?? '').trim() !== ''))
          .map((c) => domBlocks(c.type === 'tag' && c.name === 'li' ? (c.children ?? []) : [c], s));
        const start = Number.parseInt(node.attribs?.start ?? '1', 10);
        out.push({ type: 'list', ordered: name === 'ol', start: Number.isFinite(start) ? start : 1, items });
        return;
      }
      case 'table': {
        flush();
        const rows: Array<{ header: boolean; cells: string[] }> = [];
        const collect = (n: DomNode) => {
          for (const c of n.children ?? []) {
            if (c.type !== 'tag') continue;
            if (c.name === 'tr') {
              const cells = (c.children ?? []).filter((x) => x.type === 'tag' && (x.name === 'td' || x.name === 'th'));
              rows.push({
                header: cells.length > 0 && cells.every((x) => x.name === 'th'),
                cells: cells.map((x) => textOf(x).replace(/\s+/g, ' ').trim()),
              });
            } else if (c.name !== 'table') collect(c); // thead, tbody, tfoot
          }
        };
        collect(node);
        if (rows.length) out.push({ type: 'table', rows });
        return;
      }
    }
    if (CONTAINERS.has(name)) {
      flush();
      out.push(...domBlocks(children, s));
      return;
    }
    // Unknown or inline elements (span, u, small, mark, custom tags...): their text is kept.
    children.forEach((c) => walk(c, s));
  };
  nodes.forEach((n) => walk(n, style));
  flush();
  return out;
}

function flatRuns(blocks: Block[]): Run[] {
  const runs: Run[] = [];
  for (const b of blocks) {
    if (runs.length) runs.push({ text: BREAK });
    if (b.type === 'paragraph' || b.type === 'heading') runs.push(...b.runs.map((r) => ({ ...r, text: r.text.replace(/\n/g, BREAK) })));
    else if (b.type === 'code') runs.push({ text: b.text.replace(/\n/g, BREAK), code: true });
  }
  return runs;
}

function parse(html: string): DomNode[] {
  // domBlocks recurses per element; the text's size is bounded by MAX_PDF_SOURCE.
  checkParseLimits(html, 'html', { what: 'The HTML', maxBytes: Infinity });
  const $ = load(html);
  return ($.root()[0] as unknown as DomNode).children ?? [];
}

export function htmlBlocks(html: string): Block[] {
  return domBlocks(parse(html), {});
}

/** HTML met inside Markdown paragraphs (not a known inline tag): its text with the current style. */
function htmlInlineRuns(html: string, style: Style): Run[] {
  return flatRuns(domBlocks(load(html, null, false).root().toArray() as unknown as DomNode[], style));
}

export const fromHtml = htmlBlocks;
