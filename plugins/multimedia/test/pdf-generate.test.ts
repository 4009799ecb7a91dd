import { describe, expect, it } from 'vitest';
import { ActionRegistry, runChain } from '../../../test/helpers/host.js';
import { bytesText, hasBytes, textBytes } from '@capture/sdk/bytes';
import { runAction, TEST_TOKEN, testRequest, testServices, validateParams } from '@capture/sdk/testing';
import { modifyResponse } from '../../behaviour/src/modify-response.js';
import { fromHtml, fromMarkdown } from '../src/document.js';
import { pdfGenerate } from '../src/pdf-generate.js';
import { printable } from '../src/render-pdf.js';
import { mediaBoxes, pdfLinks, pdfText } from './pdf-text.js';

const MARKDOWN = `# Quarterly report

Revenue was **up** and costs _down_, see \`table 1\` and [the site](https://example.test/q?x=1&y=2).

- first point
- second point
  1. nested one

\`\`\`
const total = 42;
  indented();
\`\`\`

---

> a quoted remark

| Item | Amount |
|------|--------|
| Tea  | 3.50   |
`;

const HTML = `<!doctype html><html><head><title>Not drawn</title><style>p { color: red }</style></head>
<body>
  <h1>Invoice <em>#7</em></h1>
  <p>Dear customer,<br>thank you for <strong>your order</strong>. Questions? <a href="mailto:help@example.test">Write to us</a>.</p>
  <ol start="3"><li>Widget</li><li>Gadget</li></ol>
  <pre>line one
    line two</pre>
  <hr>
  <table><thead><tr><th>Qty</th><th>Price</th></tr></thead><tbody><tr><td>2</td><td>9.99</td></tr></tbody></table>
  <x-note>custom element text</x-note>
  <script>document.write('not drawn either')</script>
</body></html>`;

async function generate(params: Record<string, unknown>, options: Parameters<typeof runAction>[2] = {}) {
  const r = await runAction(pdfGenerate, params, options);
  expect(r.errors).toEqual([]);
  const name = String(params.variable_name ?? 'pdf').replace(/^\$(.*)\$$/, '$1');
  return { r, pdf: textBytes(r.vars[name] ?? '') };
}

describe('pdf_generate', () => {
  it('renders Markdown into $pdf$ (the bytes of an A4 portrait PDF) with its text and links', async () => {
    const { r, pdf } = await generate({ content: MARKDOWN, mode: 'markdown' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.subarray(-6).toString()).toMatch(/%%EOF\s*$/);
    expect(mediaBoxes(pdf)).toEqual([[595.28, 841.89]]);
    const text = pdfText(pdf);
    for (const s of [
      'Quarterly report',
      'Revenue was ',
      'up',
      'costs ',
      'down',
      'table 1',
      'the site',
      'first point',
      'second point',
      'nested one',
      '1.',
      'const total = 42;',
      '  indented();',
      'a quoted remark',
      'Item  |  Amount',
      'Tea  |  3.50',
    ]) {
      expect(text).toContain(s);
    }
    expect(pdfLinks(pdf)).toEqual(['https://example.test/q?x=1&y=2']);
    expect(r.vars).toMatchObject({ 'pdf.size': String(pdf.length), 'pdf.pages': '1', 'pdf.content_type': 'application/pdf' });
    // pdfkit writes a binary comment line, so the file is never UTF-8: the variable is a bytes span.
    expect(hasBytes(r.vars.pdf!)).toBe(true);
    expect(r.vars.pdf).toBe(bytesText(pdf));
    expect(r.output).toEqual([`PDF generated from Markdown: 1 page A4 portrait, ${pdf.length} bytes, in $pdf$`]);
    // The response is left alone unless respond is set.
    expect(r.response.content).toBe('');
  });

  it("renders HTML (the default mode) on Letter landscape, keeping unknown elements' text", async () => {
    const { r, pdf } = await generate({ content: HTML, paper: 'letter', orientation: 'landscape', variable_name: '$invoice$' });
    expect(r.vars['invoice.content_type']).toBe('application/pdf');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(mediaBoxes(pdf)).toEqual([[792, 612]]);
    const text = pdfText(pdf);
    for (const s of ['Invoice ', '#7', 'Dear customer,', 'thank you for ', 'your order', 'Write to us', '3.', '4.', 'Widget', 'Gadget', 'line one', '    line two', 'Qty  |  Price', '2  |  9.99', 'custom element text']) {
      expect(text).toContain(s);
    }
    expect(text).not.toMatch(/Not drawn|not drawn either|color: red/);
    expect(pdfLinks(pdf)).toEqual(['mailto:help@example.test']);
  });

  it.each([
    ['a4', 'landscape', [841.89, 595.28]],
    ['letter', 'portrait', [612, 792]],
    ['LETTER', 'Landscape', [792, 612]],
  ])('paper %s %s has the right MediaBox', async (paper, orientation, box) => {
    const { pdf } = await generate({ content: '<p>x</p>', paper, orientation });
    expect(mediaBoxes(pdf)).toEqual([box]);
  });

  it('replaces variables in the content and breaks long documents into pages', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `<p>Row ${i + 1}: $request.query.name$</p>`).join('');
    const { r, pdf } = await generate({ content: rows }, { request: { query: { name: 'Ada' } } });
    const pages = Number(r.vars['pdf.pages']);
    expect(pages).toBeGreaterThan(1);
    expect(mediaBoxes(pdf)).toHaveLength(pages);
    expect(pdfText(pdf)).toContain('Row 120: Ada');
  });

  it('answers the request with the PDF bytes when respond is set', async () => {
    const { r, pdf } = await generate({ content: '# Hi', mode: 'markdown', respond: true, status: '201', headers: 'Content-Disposition: attachment; filename="hi.pdf"', stop: true });
    expect(Buffer.isBuffer(r.response.content)).toBe(true);
    expect((r.response.content as Buffer).equals(pdf)).toBe(true);
    expect(r.response).toMatchObject({ status: 201, contentType: 'application/pdf', headers: { 'Content-Disposition': 'attachment; filename="hi.pdf"' } });
    expect(r.stopped).toBe(true);
    expect(r.output[1]).toBe(`Response set: application/pdf, ${pdf.length} bytes, status 201`);
  });

  it('answers with the exact PDF through Modify Response ($pdf$), and gives base64 with base64_encode', async () => {
    const registry = new ActionRegistry();
    registry.addAll('test', [pdfGenerate, modifyResponse]);
    const r = await runChain({
      token: TEST_TOKEN,
      request: testRequest(),
      rawBody: Buffer.alloc(0),
      registry,
      services: testServices(),
      actions: [
        { uuid: 'a', type: 'pdf_generate', order: 1, parameters: { content: '# Receipt $request.method$', mode: 'markdown' } },
        { uuid: 'b', type: 'modify_response', order: 2, parameters: { content: '$pdf$', headers: 'Content-Type: $pdf.content_type$\nX-Pdf-Base64: $pdf.base64_encode$' } },
      ],
    });
    expect(r.errors).toEqual([]);
    const pdf = textBytes(r.runtimeVariables.pdf!);
    expect(Buffer.isBuffer(r.response?.content)).toBe(true);
    const sent = r.response!.content as Buffer;
    expect(sent.equals(pdf)).toBe(true);
    expect(sent.length).toBe(Number(r.runtimeVariables['pdf.size']));
    expect(sent.subarray(0, 5).toString()).toBe('%PDF-');
    expect(sent.toString('latin1')).toMatch(/%%EOF\s*$/);
    expect(pdfText(sent)).toContain('Receipt POST');
    expect(r.response!.contentType).toBe('application/pdf');
    expect(Buffer.from(r.response!.headers['X-Pdf-Base64']!, 'base64').equals(pdf)).toBe(true);
  });

  it('prints characters the standard fonts lack as "?"', async () => {
    expect(printable('café – €5 → 中文\tend')).toBe('café – €5 -> ??    end');
    const { pdf } = await generate({ content: '<p>naïve 中</p>' });
    expect(pdfText(pdf)).toContain('na\u00efve ?');
  });

  it('makes an empty (one blank page) PDF from no content', async () => {
    const { r, pdf } = await generate({});
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(r.vars['pdf.pages']).toBe('1');
  });

  it('refuses HTML nested deeper than the parse limit, in HTML and Markdown mode', async () => {
    const deep = '<div>'.repeat(20_000) + 'x';
    for (const mode of ['html', 'markdown']) {
      const r = await runAction(pdfGenerate, { content: mode === 'markdown' ? `# Title\n\n${deep}` : deep, mode });
      expect(r.errors).toEqual(['The HTML nests deeper than 64 levels']);
    }
  });

  it('rejects bad choices and header lines', async () => {
    expect(() => validateParams(pdfGenerate, { content: 'x', mode: 'docx' })).toThrow(/parameters.mode/);
    expect(() => validateParams(pdfGenerate, { content: 'x', paper: 'a3' })).toThrow(/parameters.paper/);
    expect(() => validateParams(pdfGenerate, { content: 'x', orientation: 'sideways' })).toThrow(/parameters.orientation/);
    expect(() => validateParams(pdfGenerate, { content: 'x', mode: '$mode$' })).not.toThrow();
    const r = await runAction(pdfGenerate, { content: 'x', respond: true, headers: 'no colon here' });
    expect(r.errors).toEqual(['Invalid parameter parameters.headers: Invalid header line "no colon here": expected "Name: value"']);
    expect(r.vars.pdf).toBeUndefined();
  });
});

describe('document model', () => {
  it('reads Markdown blocks and inline styles', () => {
    expect(fromMarkdown('## Title\n\nA **b _bi_** `c` [l](http://x.test) line  \nbreak <b>html</b>\n\n1. one\n2. two\n\n***')).toEqual([
      { type: 'heading', level: 2, runs: [{ bold: true, text: 'Title' }] },
      {
        type: 'paragraph',
        runs: [
          { text: 'A ' },
          { bold: true, text: 'b ' },
          { bold: true, italic: true, text: 'bi' },
          { text: ' ' },
          { code: true, text: 'c' },
          { text: ' ' },
          { link: 'http://x.test', text: 'l' },
          { text: ' line\nbreak ' },
          { bold: true, text: 'html' },
        ],
      },
      { type: 'list', ordered: true, start: 1, items: [[{ type: 'paragraph', runs: [{ text: 'one' }] }], [{ type: 'paragraph', runs: [{ text: 'two' }] }]] },
      { type: 'hr' },
    ]);
  });

  it('reads HTML blocks, collapsing whitespace and skipping scripts', () => {
    expect(fromHtml('<div>  Hello\n  <b>big</b>   <i>world</i> <span>!</span></div><blockquote><p>q</p></blockquote><ul><li>a<ul><li>b</li></ul></li></ul><script>x()</script>')).toEqual([
      { type: 'paragraph', runs: [{ text: 'Hello ' }, { bold: true, text: 'big' }, { text: ' ' }, { italic: true, text: 'world' }, { text: ' !' }] },
      { type: 'quote', blocks: [{ type: 'paragraph', runs: [{ text: 'q' }] }] },
      {
        type: 'list',
        ordered: false,
        start: 1,
        items: [
          [
            { type: 'paragraph', runs: [{ text: 'a' }] },
            { type: 'list', ordered: false, start: 1, items: [[{ type: 'paragraph', runs: [{ text: 'b' }] }]] },
          ],
        ],
      },
    ]);
  });
});
