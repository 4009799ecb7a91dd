// Reading a received message: a strict look at the header section (to refuse what is not an
// RFC 5322 message), the headers as the API shows them, and the parts mailparser extracts.
import { lazyImport } from '@capture/sdk/async';

export class MalformedMessage extends Error {}

export interface HeaderField {
  /** Lower-case name. */
  name: string;
  /** Unfolded value with MIME encoded-words decoded. */
  value: string;
}

export interface ParsedAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface ParsedMessage {
  headers: HeaderField[];
  subject: string;
  /** Without the angle brackets; '' when the message has none. */
  messageId: string;
  text: string;
  html: string;
  attachments: ParsedAttachment[];
}

const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

/** The header section: everything before the first empty line. */
function headerSection(raw: Buffer): string {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const ends = [crlf, lf].filter((i) => i >= 0);
  const end = ends.length ? Math.min(...ends) : raw.length;
  return raw.subarray(0, end).toString('utf8');
}

/**
 * The header fields, in order. Throws MalformedMessage when the message does not start with a
 * header section (a line that is neither `Name: value` nor a folded continuation) or has no From.
 */
export function readHeaders(raw: Buffer): HeaderField[] {
  if (raw.length === 0) throw new MalformedMessage('the message is empty');
  const lines = headerSection(raw).split(/\r?\n/);
  const fields: Array<{ name: string; value: string }> = [];
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    if (line[0] === ' ' || line[0] === '\t') {
      const last = fields.at(-1);
      if (!last) throw new MalformedMessage('the message starts with a folded line instead of a header field');
      last.value += line;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trimEnd() : '';
    if (!name || !FIELD_NAME.test(name)) {
      throw new MalformedMessage(`line ${i + 1} of the header section is not a header field ("Name: value")`);
    }
    fields.push({ name: name.toLowerCase(), value: line.slice(colon + 1) });
  }
  if (!fields.some((f) => f.name === 'from')) throw new MalformedMessage('the message has no From header');
  return fields.map((f) => ({ name: f.name, value: decodeWords(f.value.trim()) }));
}

/** Header fields as the API shows them: lower-case name -> values. */
export function headerMap(fields: HeaderField[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of fields) (out[f.name] ??= []).push(f.value);
  return out;
}

function decodeCharset(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset.split('*')[0]!.trim().toLowerCase()).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** RFC 2047 encoded-words (`=?utf-8?B?...?=`); whitespace between two encoded-words is dropped. */
export function decodeWords(value: string): string {
  if (!value.includes('=?')) return value;
  return value.replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)/g, '$1').replace(/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g, (_whole, charset: string, enc: string, text: string) => {
    let bytes: Buffer;
    if (enc.toUpperCase() === 'B') {
      bytes = Buffer.from(text, 'base64');
    } else {
      const s = text.replace(/_/g, ' ');
      const out: number[] = [];
      for (let i = 0; i < s.length; i++) {
        if (s[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
          out.push(parseInt(s.slice(i + 1, i + 3), 16));
          i += 2;
        } else {
          out.push(s.charCodeAt(i) & 0xff);
        }
      }
      bytes = Buffer.from(out);
    }
    return decodeCharset(bytes, charset);
  });
}

/** How many times the message passed through this service (its X-Capture-Loop header fields). */
export function loopCount(fields: HeaderField[]): number {
  return fields.filter((f) => f.name === 'x-capture-loop').length;
}

// mailparser and html-to-text are slow to import: loaded with the first message, not at start-up.
const loadParsers = lazyImport(() => Promise.all([import('mailparser'), import('html-to-text')]));

export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  const [{ simpleParser }, { convert: htmlToText }] = await loadParsers();
  const headers = readHeaders(raw);
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  const names = new Set<string>();
  const attachments = parsed.attachments.map((a, i) => {
    let filename = a.filename || `attachment-${i + 1}`;
    // Keep file names distinct: they name the files in `$request.file.<name>...$`.
    if (names.has(filename)) {
      const dot = filename.lastIndexOf('.');
      const [stem, ext] = dot > 0 ? [filename.slice(0, dot), filename.slice(dot)] : [filename, ''];
      let n = 2;
      while (names.has(`${stem}-${n}${ext}`)) n++;
      filename = `${stem}-${n}${ext}`;
    }
    names.add(filename);
    return { filename, contentType: a.contentType || 'application/octet-stream', content: a.content };
  });
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  // mailparser converts HTML to text only for a message that is nothing but HTML; an HTML part next
  // to attachments gets the same treatment here.
  let text = parsed.text ?? '';
  if (!text.trim() && html) text = htmlToText(html, { wordwrap: false });
  return {
    headers,
    subject: parsed.subject ?? '',
    messageId: (parsed.messageId ?? '').replace(/^<|>$/g, ''),
    text,
    html,
    attachments,
  };
}
