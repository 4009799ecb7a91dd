// Variables are text, yet some actions produce or need bytes (a generated PDF, a downloaded file,
// an uploaded image). Bytes that are valid UTF-8 simply become text. Other bytes travel inside text
// as a marked span: U+FDD0, then one character per byte (U+0000..U+00FF), then U+FDD1. The two
// markers are Unicode noncharacters, which text exchanged between systems does not contain.
// Templating keeps spans intact (`prefix $pdf$ suffix`), `textBytes` turns text back into bytes
// (text as UTF-8, spans as their bytes), and the runner does so for response bodies.
import { isUtf8 } from 'node:buffer';

export const BYTES_START = '\uFDD0';
export const BYTES_END = '\uFDD1';

const SPAN = /\uFDD0([\u0000-\u00ff]*)\uFDD1/g;

/** Bytes as variable text: plain text when they are UTF-8 (without markers), else a marked span. */
export function bytesText(bytes: Buffer | Uint8Array): string {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buf)) {
    const text = buf.toString('utf8');
    if (!text.includes(BYTES_START) && !text.includes(BYTES_END)) return text;
  }
  return BYTES_START + buf.toString('latin1') + BYTES_END;
}

/** True when the text holds a span of bytes (so it must be sent with textBytes, not as UTF-8). */
export function hasBytes(text: string): boolean {
  return text.includes(BYTES_START);
}

/** The bytes a variable text stands for: UTF-8 of the text, with marked spans as their own bytes. */
export function textBytes(text: string): Buffer {
  if (!text.includes(BYTES_START)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(SPAN)) {
    if (m.index > last) parts.push(Buffer.from(text.slice(last, m.index), 'utf8'));
    parts.push(Buffer.from(m[1]!, 'latin1'));
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** The byte length `textBytes(text)` would have. */
export function textByteLength(text: string): number {
  return hasBytes(text) ? textBytes(text).length : Buffer.byteLength(text);
}
