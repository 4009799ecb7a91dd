import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesText, hasBytes, textBytes } from '@capture/sdk/bytes';
import { fetchHttpClient, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { MAX_IMAGE_BYTES, imageResize, targetSize } from '../src/image-resize.js';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#3366cc' } });

let png: Buffer; // 200 x 100
let jpeg: Buffer; // 300 x 200
let server: http.Server;
let base: string;

async function dims(bytes: Buffer | string, animated = false) {
  const m = await sharp(typeof bytes === 'string' ? textBytes(bytes) : bytes, { animated }).metadata();
  return { format: m.format, width: m.width, height: animated ? m.pageHeight : m.height, pages: m.pages ?? 1 };
}

beforeAll(async () => {
  png = await solid(200, 100).png().toBuffer();
  jpeg = await solid(300, 200).jpeg().toBuffer();
  server = http.createServer((req, res) => {
    if (req.url === '/photo.jpg') return void res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(jpeg);
    if (req.url === '/huge.bin') return void res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.alloc(MAX_IMAGE_BYTES + 10, 1));
    if (req.url === '/page.html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>not an image</html>');
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
});

describe('image_resize', () => {
  it('keeps the aspect ratio within both limits (fit inside) and sets the variables', async () => {
    const r = await runAction(imageResize, { source: png.toString('base64'), width: 50, height: 50, aspect_ratio: true });
    expect(r.errors).toEqual([]);
    expect(await dims(r.vars.image)).toMatchObject({ format: 'png', width: 50, height: 25 });
    // The variable carries the image's bytes (not UTF-8: a marked span), the exact file.
    expect(hasBytes(r.vars.image!)).toBe(true);
    expect(r.vars).toMatchObject({ 'image.width': '50', 'image.height': '25', 'image.content_type': 'image/png', 'image.size': String(textBytes(r.vars.image!).length) });
    expect(r.output).toEqual([`Image resized from 200x100 to 50x25 (png, ${r.vars['image.size']} bytes), in $image$`]);
    expect(r.response.content).toBe('');
  });

  it('gives exactly the size asked for without aspect_ratio (fit fill)', async () => {
    const r = await runAction(imageResize, { source: png.toString('base64'), width: '50', height: '50', aspect_ratio: 'false', variable_name: 'thumb' });
    expect(r.errors).toEqual([]);
    expect(await dims(r.vars.thumb)).toMatchObject({ format: 'png', width: 50, height: 50 });
  });

  it('scales the other side with a single dimension', async () => {
    const byWidth = await runAction(imageResize, { source: png.toString('base64'), width: 100, aspect_ratio: false });
    expect(await dims(byWidth.vars.image)).toMatchObject({ width: 100, height: 50 });
    const byHeight = await runAction(imageResize, { source: png.toString('base64'), height: 300 });
    expect(await dims(byHeight.vars.image)).toMatchObject({ width: 600, height: 300 });
  });

  it('downloads a URL source through the HTTP service and keeps JPEG', async () => {
    const r = await runAction(imageResize, { source: `${base}/photo.jpg`, width: 150 }, { services: { http: fetchHttpClient } });
    expect(r.errors).toEqual([]);
    expect(await dims(r.vars.image)).toMatchObject({ format: 'jpeg', width: 150, height: 100 });
    expect(r.vars['image.content_type']).toBe('image/jpeg');
  });

  it('asks the HTTP service for at most 10 MiB with the chain signal', async () => {
    const http = stubHttp(() => ({ body: png }));
    await runAction(imageResize, { source: 'https://img.example.test/a.png', width: 10 }, { services: { http } });
    expect(http.sent[0]).toMatchObject({ method: 'GET', url: 'https://img.example.test/a.png', maxBodyBytes: MAX_IMAGE_BYTES + 1 });
    expect(http.sent[0].signal).toBeInstanceOf(AbortSignal);
    expect(http.sent[0].timeoutMs).toBeLessThanOrEqual(15_000);
  });

  it('reports failed, oversized and non-image downloads', async () => {
    const run = (path: string) => runAction(imageResize, { source: `${base}${path}`, width: 10 }, { services: { http: fetchHttpClient } });
    expect((await run('/nope.png')).errors).toEqual([`Downloading the image from ${base}/nope.png failed: status 404`]);
    expect((await run('/huge.bin')).errors).toEqual([`The image (${base}/huge.bin) is larger than 10 MiB`]);
    expect((await run('/page.html')).errors).toEqual([`The source (${base}/page.html) is not an image: expected PNG, JPEG, WebP, GIF, TIFF or AVIF/HEIF data`]);
    const truncated = stubHttp(() => ({ body: png }));
    truncated.request = async () => ({ status: 200, headers: {}, body: png, truncated: true });
    expect((await runAction(imageResize, { source: 'https://x.test/big.png', width: 10 }, { services: { http: truncated } })).errors).toEqual(['The image at https://x.test/big.png is larger than 10 MiB']);
  });

  it('resizes a raw upload ($request.content$) and answers with the image', async () => {
    const r = await runAction(
      imageResize,
      { source: '$request.content$', width: 40, height: 40, aspect_ratio: false, respond: true, headers: 'Cache-Control: no-store', stop: 'yes' },
      // request.content is the body decoded as UTF-8 (lossy for binary); the action uses the raw bytes.
      { rawBody: jpeg, request: { content: jpeg.toString('utf8'), headers: { 'content-type': ['image/jpeg'] } } },
    );
    expect(r.errors).toEqual([]);
    expect(Buffer.isBuffer(r.response.content)).toBe(true);
    expect(await dims(r.response.content as Buffer)).toMatchObject({ format: 'jpeg', width: 40, height: 40 });
    expect(r.response).toMatchObject({ status: 200, contentType: 'image/jpeg', headers: { 'Cache-Control': 'no-store' } });
    expect(r.vars.image).toBe(bytesText(r.response.content as Buffer));
    expect(r.stopped).toBe(true);
  });

  it('reads an uploaded file, a data: URI and bytes carried as Latin-1 text', async () => {
    const file = await runAction(
      imageResize,
      { source: '$request.file.photo.content$', width: 30 },
      { request: { files: [{ id: 'f1', name: 'photo', filename: 'p.png', size: png.length, content_type: 'image/png', content: png }] } },
    );
    expect(await dims(file.vars.image)).toMatchObject({ width: 30, height: 15 });
    const uri = await runAction(imageResize, { source: `data:image/png;base64,${png.toString('base64')}`, height: 10 });
    expect(await dims(uri.vars.image)).toMatchObject({ width: 20, height: 10 });
    const latin1 = await runAction(imageResize, { source: '$raw$', width: 20 }, { vars: { raw: png.toString('latin1') } });
    expect(await dims(latin1.vars.image)).toMatchObject({ width: 20, height: 10 });
  });

  it('chains: resizes what an earlier resize left in its variable', async () => {
    const first = await runAction(imageResize, { source: png.toString('base64'), width: 100 });
    const second = await runAction(imageResize, { source: '$image$', width: 10, variable_name: 'small' }, { vars: { image: first.vars.image } });
    expect(await dims(second.vars.small)).toMatchObject({ format: 'png', width: 10, height: 5 });
  });

  it('reads bytes carried in a variable, mixed into nothing else, and an upload made binary-safe by core', async () => {
    // A downloaded or uploaded image in a variable (bytesText), e.g. from HTTP Request or SFTP Download.
    const fromVar = await runAction(imageResize, { source: '$file$', width: 60 }, { vars: { file: bytesText(jpeg) } });
    expect(fromVar.errors).toEqual([]);
    expect(await dims(fromVar.vars.image!)).toMatchObject({ format: 'jpeg', width: 60, height: 40 });
    // $request.content$ inside a template (not the whole parameter) is the body's bytes too.
    const templated = await runAction(imageResize, { source: ' $request.content$$nothing$', width: 20 }, { rawBody: png, request: { content: png.toString('utf8') }, vars: { nothing: '' } });
    expect(templated.errors).toEqual([]);
    expect(await dims(templated.vars.image!)).toMatchObject({ format: 'png', width: 20, height: 10 });
    // base64 of the bytes still works ($image.base64_encode$).
    const b64 = await runAction(imageResize, { source: '$image.base64_encode$', width: 10 }, { vars: { image: bytesText(png) } });
    expect(b64.errors).toEqual([]);
    expect(await dims(b64.vars.image!)).toMatchObject({ width: 10, height: 5 });
  });

  it('keeps the frames of an animated GIF', async () => {
    const frames = await Promise.all(
      ['#f00', '#0f0', '#00f'].map((c) =>
        sharp({ create: { width: 40, height: 20, channels: 3, background: c } })
          .png()
          .toBuffer(),
      ),
    );
    const gif = await sharp(frames, { join: { animated: true } })
      .gif()
      .toBuffer();
    const r = await runAction(imageResize, { source: gif.toString('base64'), width: 20 });
    expect(r.errors).toEqual([]);
    expect(await dims(r.vars.image!, true)).toEqual({ format: 'gif', width: 20, height: 10, pages: 3 });
  });

  it('applies the EXIF orientation before measuring', async () => {
    // Stored 200x100, shown rotated a quarter turn: 100x200.
    const turned = await solid(200, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const r = await runAction(imageResize, { source: turned.toString('base64'), width: 50 });
    expect(await dims(r.vars.image)).toMatchObject({ width: 50, height: 100 });
  });

  it('refuses non-images, SVG and results beyond 10000 px', async () => {
    expect((await runAction(imageResize, { source: 'just some words', width: 10 })).errors).toEqual(['The source (the source text) is not an image: expected PNG, JPEG, WebP, GIF, TIFF or AVIF/HEIF data']);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>').toString('base64');
    expect((await runAction(imageResize, { source: svg, width: 10 })).errors).toEqual([expect.stringMatching(/^Cannot resize SVG images/)]);
    const tall = await runAction(imageResize, { source: png.toString('base64'), height: 9000 });
    expect(tall.errors).toEqual(['The result would be 18000x9000 pixels; width and height are at most 10000']);
    expect(tall.vars.image).toBeUndefined();
  });

  it('validates the dimensions', async () => {
    expect(() => validateParams(imageResize, { source: 'x' })).toThrow(/width or height is required/);
    expect(() => validateParams(imageResize, { source: 'x', width: 20000 })).toThrow(/parameters.width: must be a whole number of pixels from 1 to 10000/);
    expect(() => validateParams(imageResize, { source: 'x', height: 0 })).toThrow(/parameters.height/);
    expect(() => validateParams(imageResize, { width: 10 })).toThrow(/parameters.source/);
    expect(() => validateParams(imageResize, { source: 'x', width: '$w$', aspect_ratio: true })).not.toThrow();
    // A variable that turns out not to be a number fails at run time, naming the field.
    const r = await runAction(imageResize, { source: png.toString('base64'), width: '$w$' }, { vars: { w: 'wide' } });
    expect(r.errors[0]).toMatch(/width/);
  });

  it('computes target sizes', () => {
    expect(targetSize(200, 100, 50, 50, true)).toEqual({ width: 50, height: 25 });
    expect(targetSize(100, 200, 50, 50, true)).toEqual({ width: 25, height: 50 });
    expect(targetSize(200, 100, 50, 50, false)).toEqual({ width: 50, height: 50 });
    expect(targetSize(200, 100, 400, undefined, true)).toEqual({ width: 400, height: 200 });
    expect(targetSize(3, 1000, undefined, 1, true)).toEqual({ width: 1, height: 1 });
  });
});
