// The `image_resize` action: an image from a URL or from raw data, resized with sharp in its own
// format. The result's bytes are kept in $<variable_name>$ (bytesText: variable text carrying bytes,
// @capture/sdk/bytes), which a response, an upload or an attachment passes on byte for byte; with
// `respond` the action answers the request with the image itself.
import type { FormatEnum, Metadata, OutputInfo } from 'sharp';
import { type ActionContext, boolean, defineAction, integer, variableName, z } from '@capture/sdk';
import { bytesText, hasBytes, textBytes } from '@capture/sdk/bytes';
import { lazyImport } from '@capture/sdk/async';
import { checkRespond, respondParameters, respondWith } from './respond.js';

// sharp (libvips) is slow to load and large in memory: loaded on the first image, not at start-up.
const loadSharp = lazyImport(() => import('sharp').then((m) => m.default));

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Largest width or height asked for or produced. */
export const MAX_DIMENSION = 10_000;
/** Largest source image, in pixels (per frame). */
export const MAX_INPUT_PIXELS = 100_000_000;
const DOWNLOAD_TIMEOUT_MS = 15_000;

const CONTENT_TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', tiff: 'image/tiff', heif: 'image/avif' };

const dimension = () => z.union([integer({ min: 1, max: MAX_DIMENSION, message: `must be a whole number of pixels from 1 to ${MAX_DIMENSION}` }), z.literal('').transform(() => undefined)]).nullish();

export const imageResize = defineAction({
  type: 'image_resize',
  title: 'Resize Image',
  category: 'multimedia',
  description:
    'Resizes an image given by URL or as data: a variable holding the image (as Resize Image, the download actions and HTTP Request set it), $request.content$ for an image uploaded as the request body, $request.file.<name>.content$ for an uploaded file, base64 or a data: URI. With aspect_ratio the image keeps its proportions within width and height; without, it gets exactly that size. The format stays the same (PNG, JPEG, WebP, GIF, TIFF; HEIF becomes AVIF). $<variable_name>$ holds the resized image: answer with it through Modify Response (content $image$, header Content-Type: $image.content_type$), upload it or attach it as it is; $image.base64_encode$ gives base64. $<variable_name>.width$, .height, .size (bytes) and .content_type are set too. Or set respond to answer the request with the image directly.',
  parameters: z
    .object({
      source: z.string().trim().min(1, 'is required'),
      width: dimension(),
      height: dimension(),
      aspect_ratio: boolean().default(true),
      variable_name: variableName().default('image'),
      ...respondParameters,
    })
    .refine((p) => p.width || p.height, { message: 'width or height is required', path: ['width'] }),
  sets: ['<variable_name>', '<variable_name>.width', '<variable_name>.height', '<variable_name>.size', '<variable_name>.content_type'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const headers = checkRespond(params);
    const { bytes, from } = await loadSource(ctx, params.source);
    const sharp = await loadSharp();

    let meta: Metadata;
    try {
      meta = await sharp(bytes).metadata();
    } catch {
      throw new Error(`The source (${from}) is not an image: expected PNG, JPEG, WebP, GIF, TIFF or AVIF/HEIF data`);
    }
    const format = meta.format as string;
    if (!CONTENT_TYPES[format]) throw new Error(`Cannot resize ${format.toUpperCase()} images (${from}): expected PNG, JPEG, WebP, GIF, TIFF or AVIF/HEIF`);
    const pages = meta.pages ?? 1;
    const animated = pages > 1 && (format === 'gif' || format === 'webp');
    // EXIF orientations 5-8 are rotated a quarter turn: the image as shown is h x w.
    const turned = (meta.orientation ?? 1) >= 5;
    const w = turned ? meta.height : meta.width;
    const h = turned ? meta.width : animated ? (meta.pageHeight ?? meta.height) : meta.height;
    if (!w || !h) throw new Error(`The source (${from}) has no readable dimensions`);
    if (w * h > MAX_INPUT_PIXELS) throw new Error(`The source image is too large: ${w}x${h} pixels (at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels)`);

    const target = targetSize(w, h, params.width ?? undefined, params.height ?? undefined, params.aspect_ratio);
    if (target.width > MAX_DIMENSION || target.height > MAX_DIMENSION) {
      throw new Error(`The result would be ${target.width}x${target.height} pixels; width and height are at most ${MAX_DIMENSION}`);
    }

    const seconds = Math.max(1, Math.floor(ctx.timeLeftMs() / 1000));
    let out: { data: Buffer; info: OutputInfo };
    try {
      out = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, animated, failOn: 'error' })
        .rotate()
        .resize({ width: target.width, height: target.height, fit: 'fill' })
        .toFormat(format === 'heif' ? 'avif' : (format as keyof FormatEnum))
        .timeout({ seconds })
        .toBuffer({ resolveWithObject: true });
    } catch (err) {
      throw new Error(`Could not resize the image: ${err instanceof Error ? err.message : String(err)}`);
    }
    const { data, info } = out;
    const outHeight = animated ? (info.pageHeight ?? info.height) : info.height;
    const contentType = CONTENT_TYPES[format];
    const name = params.variable_name;
    ctx.vars.set(name, bytesText(data));
    ctx.vars.set(`${name}.width`, info.width);
    ctx.vars.set(`${name}.height`, outHeight);
    ctx.vars.set(`${name}.size`, data.length);
    ctx.vars.set(`${name}.content_type`, contentType);
    ctx.log(`Image resized from ${w}x${h} to ${info.width}x${outHeight} (${format === 'heif' ? 'avif' : format}, ${data.length} bytes), in $${name}$`);
    respondWith(ctx, params, headers, data, contentType);
  },
});

/**
 * The size to produce. Both limits with aspect_ratio: the largest size within both that keeps the
 * proportions (sharp's fit "inside"); without: exactly that size ("fill"). One limit: the other
 * side follows the proportions.
 */
export function targetSize(w: number, h: number, width: number | undefined, height: number | undefined, keepRatio: boolean): { width: number; height: number } {
  const round = (n: number) => Math.max(1, Math.round(n));
  if (width && height) {
    if (!keepRatio) return { width, height };
    const scale = Math.min(width / w, height / h);
    return { width: round(w * scale), height: round(h * scale) };
  }
  if (width) return { width, height: round((h * width) / w) };
  return { width: round((w * height!) / h), height: height! };
}

/**
 * The image's bytes. `$request.content$` (or `$request.file.<field>.content$`) as the whole
 * parameter means the bytes as received. Otherwise: text carrying bytes (a variable set from a
 * file: @capture/sdk/bytes) is those bytes; else the text is a URL, a data: URI, base64, or the
 * bytes themselves (UTF-8, or Latin-1 text as older chains carried them).
 */
async function loadSource(ctx: ActionContext<unknown>, source: string): Promise<{ bytes: Buffer; from: string }> {
  const raw = typeof ctx.rawParams.source === 'string' ? ctx.rawParams.source.trim() : '';
  if (raw === '$request.content$') return checked(ctx.rawBody, 'the request body');
  const file = /^\$request\.file\.(.+)\.content\$$/.exec(raw);
  if (file) {
    const files = Array.isArray(ctx.request.files) ? ctx.request.files : Object.values(ctx.request.files ?? {});
    const f = files.find((x) => x.name === file[1]);
    if (f && Buffer.isBuffer(f.content)) return checked(f.content, `the uploaded file ${f.filename}`);
  }

  if (hasBytes(source)) return checked(textBytes(source), 'the image bytes');

  if (/^https?:\/\/\S+$/i.test(source)) {
    const res = await ctx.services.http.request({
      method: 'GET',
      url: source,
      headers: { Accept: 'image/*' },
      maxBodyBytes: MAX_IMAGE_BYTES + 1,
      timeoutMs: Math.max(1, Math.min(DOWNLOAD_TIMEOUT_MS, ctx.timeLeftMs())),
      signal: ctx.signal,
    });
    if (res.status < 200 || res.status > 299) throw new Error(`Downloading the image from ${source} failed: status ${res.status}`);
    if (res.truncated) throw new Error(`The image at ${source} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MiB`);
    return checked(res.body, source);
  }

  const dataUri = /^data:[^,]*?(;base64)?,(.*)$/is.exec(source);
  if (dataUri) {
    return checked(dataUri[1] ? Buffer.from(dataUri[2], 'base64') : Buffer.from(decodeURIComponent(dataUri[2]), 'latin1'), 'a data: URI');
  }
  const compact = source.replace(/\s+/g, '');
  if (compact.length >= 16 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return checked(Buffer.from(compact, 'base64'), 'base64 data');
  // Bytes that are valid UTF-8 arrive as plain text: textBytes gives them back. Text of Latin-1
  // characters may instead be bytes one per character (how chains carried them before): that
  // reading is used when the UTF-8 one is not an image.
  const bytes = checked(textBytes(source), 'the source text');
  if (/[\u0080-\u00ff]/.test(source) && /^[\u0000-\u00ff]*$/.test(source) && !(await isImage(bytes.bytes))) {
    const latin1 = Buffer.from(source, 'latin1');
    if (await isImage(latin1)) return checked(latin1, 'the source text');
  }
  return bytes;
}

async function isImage(bytes: Buffer): Promise<boolean> {
  try {
    const sharp = await loadSharp();
    return !!(await sharp(bytes).metadata()).format;
  } catch {
    return false;
  }
}

function checked(bytes: Buffer, from: string): { bytes: Buffer; from: string } {
  if (!bytes.length) throw new Error(`The source (${from}) is empty`);
  if (bytes.length > MAX_IMAGE_BYTES) throw new Error(`The image (${from}) is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MiB`);
  return { bytes, from };
}
