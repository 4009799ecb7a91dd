// Form fields of a captured body: the API's `request` object, and uploaded files. A body that does
// not parse is still captured whole; it just has no form fields.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { FileMeta } from '../store/types.js';

export interface ParsedForm {
  fields: Record<string, unknown> | null;
  files: FileMeta[];
  /** The uploaded files' bytes by file id (multipart bodies only). */
  data?: Map<string, Buffer>;
}

const NONE: ParsedForm = { fields: null, files: [] };

// A field named `__proto__` or `constructor` is data like any other: own properties only, and
// defined rather than assigned, so it can neither read nor replace the object's prototype.
function addField(fields: Record<string, unknown>, name: string, value: string): void {
  const prev = Object.hasOwn(fields, name) ? fields[name] : undefined;
  const next = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  Object.defineProperty(fields, name, { value: next, enumerable: true, writable: true, configurable: true });
}

/** A file part's bytes, gathered in memory; null when the part breaks off. */
function gather(part: Readable): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  return new Promise((done) => {
    part.on('data', (c: Buffer) => chunks.push(c));
    part.on('end', () => done(Buffer.concat(chunks)));
    // Destroyed with or without an error (the parser failed): either way the part broke off. The
    // listener on 'error' is needed too: an unheard stream error is thrown.
    part.on('error', () => done(null));
    part.on('close', () => done(null));
  });
}

/**
 * A file part's bytes, written to `file` as they arrive and read back once at their exact size:
 * gathered, a part's chunks and their concatenation are both held at its end (twice its size, and
 * the service measured no lower than reading the body whole). Null when the part breaks off.
 */
function spool(part: Readable, file: string): Promise<Buffer | null> {
  return new Promise((done) => {
    const out = createWriteStream(file, { mode: 0o600 });
    // Removed before the parse resolves, so nothing is left beside the body once it is stored.
    const finish = (data: Buffer | null) =>
      void rm(file, { force: true })
        .catch(() => undefined)
        .then(() => done(data));
    const fail = () => {
      // The parser waits for every part to be read: drain it even when the file cannot take it.
      part.unpipe(out);
      part.resume();
      out.destroy();
      finish(null);
    };
    out.on('error', fail);
    part.on('error', fail);
    part.on('close', () => {
      if (!part.readableEnded) fail();
    });
    out.on('finish', () => void readFile(file).then(finish, () => finish(null)));
    part.pipe(out);
  });
}

/**
 * `body`: the bytes, or the file holding them. A file is streamed through the parser, never read
 * whole, and its file parts are spooled beside it (`<file>.part<n>`, swept with it after a crash).
 */
function parseMultipart(contentType: string, body: Buffer | string): Promise<ParsedForm> {
  return new Promise((resolve) => {
    const fields: Record<string, unknown> = {};
    // In the parts' order, whichever finishes first.
    const parts: Array<Promise<{ meta: FileMeta; data: Buffer } | null>> = [];
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: { 'content-type': contentType }, limits: { fields: 1000, files: 100, parts: 1100 } });
    } catch {
      return resolve(NONE);
    }
    bb.on('field', (name, value) => addField(fields, name, value));
    bb.on('file', (name, stream, info) => {
      const read = typeof body === 'string' ? spool(stream, `${body}.part${parts.length + 1}`) : gather(stream);
      parts.push(
        read.then(
          (data) =>
            data && {
              meta: { id: randomUUID(), name, filename: info.filename ?? name, size: data.length, content_type: info.mimeType || 'application/octet-stream' },
              data,
            },
        ),
      );
    });
    bb.on(
      'close',
      () =>
        void Promise.all(parts).then((read) => {
          const files = read.filter((p) => p !== null);
          resolve({ fields, files: files.map((p) => p.meta), data: new Map(files.map((p) => [p.meta.id, p.data])) });
        }),
    );
    // Once every part has settled (a broken one's spool file removed).
    bb.on('error', () => void Promise.all(parts).then(() => resolve(NONE)));
    if (typeof body !== 'string') return void bb.end(body);
    const source = createReadStream(body);
    // A body file that cannot be read parses as a body that does not parse.
    source.on('error', () => bb.destroy(new Error('body file unreadable')));
    bb.on('error', () => source.destroy());
    source.pipe(bb);
  });
}

// Module constants, not literals in the functions: a regular expression literal is a new object
// each time it is evaluated (here: on every capture with a body).
const URLENCODED = /^application\/x-www-form-urlencoded/i;
const MULTIPART = /^multipart\/form-data/i;
const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i;

const isMultipart = (contentType: string) => MULTIPART.test(contentType);

/** Content types whose body is parsed into form fields. */
export function isFormType(contentType: string | null): boolean {
  return !!contentType && FORM_TYPE.test(contentType);
}

/**
 * The last content type found to be no form type. Captures to a URL mostly come with the same one
 * (`application/json`), which is then told by a string comparison instead of two patterns.
 */
let lastNoForm = '';

/** Synchronous but for multipart bodies, so that most captures do not wait a turn for nothing. */
export function parseForm(contentType: string | null, body: Buffer): ParsedForm | Promise<ParsedForm> {
  if (!contentType || body.length === 0 || contentType === lastNoForm) return NONE;
  if (URLENCODED.test(contentType)) {
    const fields: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) addField(fields, k, v);
    return { fields, files: [] };
  }
  if (isMultipart(contentType)) return parseMultipart(contentType, body);
  lastNoForm = contentType;
  return NONE;
}

/**
 * The form fields of a body kept in `file` (past BODY_FILE_THRESHOLD). A multipart body is streamed
 * through the parser, so only its file parts are held (once each), not the body as well; a
 * urlencoded one is read whole (its fields are the whole body anyway) and `read` gives those bytes
 * back for the record.
 */
export async function parseFormFile(contentType: string | null, file: string, size: number): Promise<ParsedForm & { read?: Buffer }> {
  if (!contentType || size === 0 || !isFormType(contentType)) return NONE;
  if (isMultipart(contentType)) return parseMultipart(contentType, file);
  const read = await readFile(file);
  return { ...(await parseForm(contentType, read)), read };
}
