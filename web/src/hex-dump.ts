// A body that is not text, shown as a hex dump: one line per 16 bytes with the offset, the bytes in
// hex (two groups of 8) and their printable ASCII ('.' for the rest), as `hexdump -C` prints them.

/** Bytes the page shows of a binary body; the rest is in the download. */
export const HEX_VIEW_BYTES = 64 * 1024;

const BYTES_PER_LINE = 16;

/** The bytes a base64 string holds (the API's `content_base64`). */
export function bytesOfBase64(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** The dump of `bytes`, one line each 16 bytes, newline-separated; the offset counts from `start`. */
export function hexDump(bytes: Uint8Array, start = 0): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += BYTES_PER_LINE) {
    const row = bytes.subarray(at, at + BYTES_PER_LINE);
    let hexPart = '';
    let ascii = '';
    for (let i = 0; i < BYTES_PER_LINE; i++) {
      const b = row[i];
      hexPart += (b === undefined ? '  ' : hex(b, 2)) + (i === 7 ? '  ' : ' ');
      if (b !== undefined) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    }
    lines.push(`${hex(start + at, 8)}  ${hexPart} |${ascii}|`);
  }
  return lines.join('\n');
}
