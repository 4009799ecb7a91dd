// Draws the document model (./document.ts) with pdfkit's standard fonts (Helvetica, Courier).
// The standard fonts cover Latin-1 and a few more (WinAnsi); other characters print as "?".
import type PDFDocumentClass from 'pdfkit';
import { lazyImport } from '@capture/sdk/async';
import type { Block, Run } from './document.js';

export type Paper = 'a4' | 'letter';
export type Orientation = 'portrait' | 'landscape';

export interface PdfOptions {
  paper: Paper;
  orientation: Orientation;
  /** Deflate page streams (default true; tests turn it off to read the text). */
  compress?: boolean;
  title?: string;
  /** Called between blocks: throw to stop (e.g. when the chain's time is spent). */
  checkpoint?: () => void;
}

/** Page sizes in points (1/72 in), portrait. */
export const PAPER_POINTS: Record<Paper, [number, number]> = { a4: [595.28, 841.89], letter: [612, 792] };

const MARGIN = 56;
const BODY = 11;
const HEADING_SIZES = [22, 18, 15, 13, 12, 11];
const INDENT = 18;
const TEXT_COLOR = '#111111';
const LINK_COLOR = '#1a55c4';
const MUTED_COLOR = '#555555';

// Characters the standard fonts can show besides Latin-1 (WinAnsi's 0x80-0x9f range).
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const LOOKALIKES: Record<string, string> = {
  '\u00a0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2009': ' ',
  '\u2212': '-',
  '\u2010': '-',
  '\u2011': '-',
  '\u2192': '->',
  '\u2190': '<-',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2713': 'v',
  '\u2022': '•',
};

/** Text the standard fonts can draw: tabs as spaces, lookalikes substituted, the rest "?". */
export function printable(text: string): string {
  let out = '';
  for (const ch of text.replace(/\t/g, '    ').replace(/\r\n?/g, '\n')) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n' || (code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(ch)) out += ch;
    else if (LOOKALIKES[ch] !== undefined) out += LOOKALIKES[ch];
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0xfe00 && code <= 0xfe0f) || code === 0x200b || code === 0x200d) continue;
    else out += '?';
  }
  return out;
}

const fontOf = (r: Run) => (r.code ? (r.bold ? 'Courier-Bold' : 'Courier') : r.bold && r.italic ? 'Helvetica-BoldOblique' : r.bold ? 'Helvetica-Bold' : r.italic ? 'Helvetica-Oblique' : 'Helvetica');

// pdfkit takes a quarter of a second to import: loaded on the first PDF, not at start-up.
const loadPdfkit = lazyImport(() => import('pdfkit').then((m): typeof PDFDocumentClass => m.default));

export async function renderPdf(blocks: Block[], opts: PdfOptions): Promise<{ bytes: Buffer; pages: number }> {
  const PDFDocument = await loadPdfkit();
  const doc = new PDFDocument({
    size: opts.paper === 'letter' ? 'LETTER' : 'A4',
    layout: opts.orientation,
    margin: MARGIN,
    compress: opts.compress ?? true,
    info: { Title: opts.title ?? 'Document', Producer: 'capture pdf_generate', Creator: 'capture pdf_generate' },
  });
  const chunks: Buffer[] = [];
  let pages = 1;
  doc.on('pageAdded', () => pages++);
  const done = new Promise<{ bytes: Buffer; pages: number }>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve({ bytes: Buffer.concat(chunks), pages }));
    doc.on('error', reject);
  });

  const left = () => doc.page.margins.left;
  const right = () => doc.page.width - doc.page.margins.right;
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const ensureRoom = (points: number) => {
    if (doc.y + points > bottom()) doc.addPage();
  };

  /** One paragraph of styled runs starting at `indent` from the left margin. */
  const runs = (list: Run[], indent: number, size: number, color = TEXT_COLOR) => {
    const parts = list.map((r) => ({ ...r, text: printable(r.text) })).filter((r) => r.text);
    if (!parts.length) return;
    const x = left() + indent;
    const width = Math.max(40, right() - x);
    parts.forEach((r, i) => {
      doc
        .font(fontOf(r))
        .fontSize(r.code ? size - 1 : size)
        .fillColor(r.link ? LINK_COLOR : color);
      const o = { continued: i < parts.length - 1, link: r.link ?? null, underline: !!r.link, lineGap: 2 };
      if (i === 0) doc.text(r.text, x, doc.y, { ...o, width });
      else doc.text(r.text, o);
    });
    doc.fillColor(TEXT_COLOR);
  };

  const block = (b: Block, indent: number, color: string, first: boolean) => {
    opts.checkpoint?.();
    switch (b.type) {
      case 'heading': {
        const size = HEADING_SIZES[Math.min(6, Math.max(1, b.level)) - 1];
        if (!first) doc.moveDown(0.6);
        ensureRoom(size * 2.5);
        runs(
          b.runs.map((r) => ({ ...r, bold: true })),
          indent,
          size,
          color,
        );
        doc.moveDown(0.3);
        return;
      }
      case 'paragraph':
        runs(b.runs, indent, BODY, color);
        doc.moveDown(0.5);
        return;
      case 'code': {
        const x = left() + indent + 8;
        doc
          .font('Courier')
          .fontSize(BODY - 1.5)
          .fillColor(color);
        doc.text(printable(b.text) || ' ', x, doc.y, { width: Math.max(40, right() - x), lineGap: 1 });
        doc.moveDown(0.5);
        return;
      }
      case 'hr': {
        ensureRoom(12);
        const y = doc.y + 4;
        doc
          .save()
          .moveTo(left() + indent, y)
          .lineTo(right(), y)
          .lineWidth(0.75)
          .strokeColor('#999999')
          .stroke()
          .restore();
        doc.y = y + 8;
        return;
      }
      case 'quote':
        b.blocks.forEach((c, i) => block(c, indent + INDENT, MUTED_COLOR, first && i === 0));
        return;
      case 'table':
        for (const row of b.rows) {
          runs([{ text: row.cells.join('  |  '), bold: row.header }], indent, BODY - 1, color);
          doc.moveDown(0.15);
        }
        doc.moveDown(0.4);
        return;
      case 'list':
        b.items.forEach((item, i) => {
          doc.font('Helvetica').fontSize(BODY).fillColor(color);
          ensureRoom(doc.currentLineHeight(true) + 2);
          const y = doc.y;
          const marker = b.ordered ? `${b.start + i}.` : '•';
          doc.text(marker, left() + indent, y, { width: INDENT, lineBreak: false });
          doc.y = y;
          if (!item.length) doc.moveDown(1);
          item.forEach((c, j) => {
            // Items of a tight list are single paragraphs: keep them close together.
            block(c, indent + INDENT, color, j === 0);
            if (c.type === 'paragraph' && j === item.length - 1) doc.moveDown(-0.3);
          });
        });
        doc.moveDown(0.4);
        return;
    }
  };

  blocks.forEach((b, i) => block(b, 0, TEXT_COLOR, i === 0));
  doc.end();
  return done;
}
