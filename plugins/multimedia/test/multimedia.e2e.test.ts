// The multimedia actions in a running server: a token's chain answers with a generated PDF, and
// another resizes an image uploaded as the request body and answers with it, byte for byte; the
// same through Modify Response with the variables ($pdf$, $image$), which carry the files' bytes.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { mediaBoxes, pdfText } from './pdf-text.js';

let s: TestServer;

async function addAction(tokenId: string, type: string, parameters: Record<string, unknown>) {
  const r = await s.call('POST', `/token/${tokenId}/actions`, { json: { type, parameters } });
  expect(r.status, r.text).toBe(200);
}

beforeAll(async () => {
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
});

describe('multimedia actions end to end', () => {
  it('answers with a generated PDF and with a resized upload', async () => {
    const pdfToken = await s.token({ actions: true });
    await addAction(pdfToken.uuid, 'pdf_generate', {
      content: '# Invoice $request.query.n$\n\nTotal: **$request.query.total$**',
      mode: 'markdown',
      paper: 'letter',
      respond: true,
      headers: 'Content-Disposition: inline; filename="invoice.pdf"',
    });
    const pdf = await s.call('GET', `/${pdfToken.uuid}?n=42&total=9.99`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe('inline; filename="invoice.pdf"');
    expect(pdf.buf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.buf.toString('latin1')).toMatch(/%%EOF\s*$/);
    expect(Number(pdf.headers.get('content-length'))).toBe(pdf.buf.length);
    expect(mediaBoxes(pdf.buf)).toEqual([[612, 792]]);
    expect(pdfText(pdf.buf)).toMatch(/Invoice 42[\s\S]*Total: [\s\S]*9\.99/);

    const imageToken = await s.token({ actions: true });
    await addAction(imageToken.uuid, 'image_resize', { source: '$request.content$', width: 64, height: 64, aspect_ratio: true, respond: true });
    const upload = await sharp({ create: { width: 320, height: 160, channels: 3, background: '#cc3300' } })
      .png()
      .toBuffer();
    const img = await s.call('POST', `/${imageToken.uuid}`, { body: upload, headers: { 'Content-Type': 'image/png' } });
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(img.buf).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 64, 32]);

    const r = await s.call('GET', `/token/${imageToken.uuid}/requests`);
    expect(r.data.data[0].custom_action_errors).toEqual([]);
    expect(r.data.data[0].custom_action_output[0]).toMatch(/^\[1 image_resize\] Image resized from 320x160 to 64x32/);
  });

  it('answers with $pdf$ and $image$ through Modify Response, byte for byte', async () => {
    const pdfToken = await s.token({ actions: true });
    await addAction(pdfToken.uuid, 'pdf_generate', { content: '<h1>Order $request.query.n$</h1>' });
    await addAction(pdfToken.uuid, 'modify_response', { content: '$pdf$', headers: 'Content-Type: application/pdf\nX-Pdf-Size: $pdf.size$' });
    const pdf = await s.call('GET', `/${pdfToken.uuid}?n=7`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.buf.length).toBe(Number(pdf.headers.get('x-pdf-size')));
    expect(pdf.buf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.buf.toString('latin1')).toMatch(/%%EOF\s*$/);
    expect(mediaBoxes(pdf.buf)).toEqual([[595.28, 841.89]]);
    expect(pdfText(pdf.buf)).toContain('Order 7');

    const imageToken = await s.token({ actions: true });
    await addAction(imageToken.uuid, 'image_resize', { source: '$request.content$', width: 32, variable_name: 'thumb' });
    await addAction(imageToken.uuid, 'modify_response', { content: '$thumb$', headers: 'Content-Type: $thumb.content_type$\nX-Size: $thumb.size$' });
    const upload = await sharp({ create: { width: 128, height: 64, channels: 3, background: '#0033cc' } })
      .jpeg()
      .toBuffer();
    const img = await s.call('POST', `/${imageToken.uuid}`, { body: upload, headers: { 'Content-Type': 'image/jpeg' } });
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/jpeg');
    expect(img.buf.length).toBe(Number(img.headers.get('x-size')));
    const meta = await sharp(img.buf).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 32, 16]);
  });
});
