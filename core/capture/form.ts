// Form fields of a captured body: the API's `request` object, and uploaded files. A body that does
// not parse is still captured whole; it just has no form fields.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
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

/** `body`: the bytes, or the file holding them (streamed through the parser, never read whole). */
function parseMultipart(contentType: string, body: Buffer | string): Promise<ParsedForm> {
  const files = new Map<string, Buffer>();
  return new Promise((resolve) => {
    const fields: Record<string, unknown> = {};
    const metas: FileMeta[] = [];
    const pending: Array<Promise<void>> = [];
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: { 'content-type': contentType }, limits: { fields: 1000, files: 100, parts: 1100 } });
    } catch {
      return resolve(NONE);
    }
    bb.on('field', (name, value) => addField(fields, name, value));
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      pending.push(
        new Promise<void>((done) => {
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            const data = Buffer.concat(chunks);
            const id = randomUUID();
            files.set(id, data);
            metas.push({ id, name, filename: info.filename ?? name, size: data.length, content_type: info.mimeType || 'application/octet-stream' });
            done();
          });
          stream.on('error', () => done());
        }),
      );
    });
    bb.on('close', () => void Promise.all(pending).then(() => resolve({ fields, files: metas, data: files })));
    bb.on('error', () => {
      files.clear();
      resolve(NONE);
    });
    if (typeof body !== 'string') return void bb.end(body);
    const source = createReadStream(body);
    // A body file that cannot be read parses as a body that does not parse.
    source.on('error', () => bb.destroy(new Error('body file unreadable')));
    bb.on('error', () => source.destroy());
    source.pipe(bb);
  });
}

const isMultipart = (contentType: string) => /^multipart\/form-data/i.test(contentType);

/** Content types whose body is parsed into form fields. */
export function isFormType(contentType: string | null): boolean {
  return !!contentType && /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(contentType);
}

/** Synchronous but for multipart bodies, so that most captures do not wait a turn for nothing. */
export function parseForm(contentType: string | null, body: Buffer): ParsedForm | Promise<ParsedForm> {
  if (!contentType || body.length === 0) return NONE;
  if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
    const fields: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) addField(fields, k, v);
    return { fields, files: [] };
  }
  if (isMultipart(contentType)) return parseMultipart(contentType, body);
  return NONE;
}

/**
 * The form fields of a body kept in `file` (past BODY_FILE_THRESHOLD). A multipart body is streamed
 * through the parser, so only its file parts are held, not the body as well; a urlencoded one is
 * read whole (its fields are the whole body anyway) and `read` gives those bytes back for the record.
 */
export async function parseFormFile(contentType: string | null, file: string, size: number): Promise<ParsedForm & { read?: Buffer }> {
  if (!contentType || size === 0 || !isFormType(contentType)) return NONE;
  if (isMultipart(contentType)) return parseMultipart(contentType, file);
  const read = await readFile(file);
  return { ...(await parseForm(contentType, read)), read };
}
