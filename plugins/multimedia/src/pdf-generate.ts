// The `pdf_generate` action: HTML or Markdown to a PDF, drawn with pdfkit (no browser). The file's
// bytes are kept in $<variable_name>$ (bytesText: variable text carrying bytes, @capture/sdk/bytes),
// which a response, an upload or an attachment passes on byte for byte; with `respond` the action
// answers the request with the PDF itself.
import { bytesText } from '@capture/sdk/bytes';
import { choice, defineAction, optionalText, variableName, z } from '@capture/sdk';
import type * as Document from './document.js';
import { renderPdf } from './render-pdf.js';
import { checkRespond, respondParameters, respondWith } from './respond.js';

// The HTML and Markdown readers bring cheerio and marked: loaded on the first PDF, not at start-up.
let documentModule: Promise<typeof Document> | undefined;

/** Longest input accepted, in characters. */
export const MAX_PDF_SOURCE = 2_000_000;

export const pdfGenerate = defineAction({
  type: 'pdf_generate',
  title: 'Generate PDF',
  category: 'multimedia',
  description:
    'Makes a PDF from HTML or Markdown (headings, paragraphs, bold/italic, lists, code, links, rules, tables as lines). $<variable_name>$ (default $pdf$) holds the file contents: answer with them through Modify Response (content $pdf$, header Content-Type: application/pdf), upload them (SFTP, FTP, S3, HTTP) or attach them to an e-mail as they are; $pdf.base64_encode$ gives base64. $<variable_name>.size$ (bytes), .pages and .content_type are set too. Or set respond to answer the request with the PDF directly.',
  parameters: z.object({
    content: optionalText(),
    mode: choice(['html', 'markdown'], { default: 'html' }),
    paper: choice(['a4', 'letter'], { default: 'a4' }),
    orientation: choice(['portrait', 'landscape'], { default: 'portrait' }),
    variable_name: variableName().default('pdf'),
    ...respondParameters,
  }),
  sets: ['<variable_name>', '<variable_name>.size', '<variable_name>.pages', '<variable_name>.content_type'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const headers = checkRespond(params);
    const source = params.content ?? '';
    if (source.length > MAX_PDF_SOURCE) throw new Error(`The content is too long for a PDF (${source.length} characters, at most ${MAX_PDF_SOURCE})`);
    const { fromHtml, fromMarkdown, runsText } = await (documentModule ??= import('./document.js'));
    const blocks = params.mode === 'markdown' ? fromMarkdown(source) : fromHtml(source);
    const heading = blocks.find((b) => b.type === 'heading');
    const { bytes, pages } = await renderPdf(blocks, {
      paper: params.paper,
      orientation: params.orientation,
      title: heading && heading.type === 'heading' ? runsText(heading.runs).slice(0, 200) : undefined,
      checkpoint: () => {
        if (ctx.signal.aborted || ctx.timeLeftMs() <= 0) throw new Error('Timed out: the chain ran out of time while drawing the PDF');
      },
    });
    const name = params.variable_name;
    ctx.vars.set(name, bytesText(bytes));
    ctx.vars.set(`${name}.size`, bytes.length);
    ctx.vars.set(`${name}.pages`, pages);
    ctx.vars.set(`${name}.content_type`, 'application/pdf');
    ctx.log(
      `PDF generated from ${params.mode === 'markdown' ? 'Markdown' : 'HTML'}: ${pages} page${pages === 1 ? '' : 's'} ${params.paper === 'a4' ? 'A4' : 'Letter'} ${params.orientation}, ${bytes.length} bytes, in $${name}$`,
    );
    respondWith(ctx, params, headers, bytes, 'application/pdf');
  },
});
