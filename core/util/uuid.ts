// Request IDs are UUIDv7 (RFC 9562): time-ordered, so new rows land at the end of the ID index
// instead of on a random page, which keeps the capture write path cheap.
import { randomFillSync } from 'node:crypto';

/** Random bytes for the IDs, refilled once used up: 10 an ID (the 80 bits after the time). */
const pool = Buffer.alloc(10 * 256);
let offset = pool.length;

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** The ID's text is written here and read out as one flat string (a capture's one string for it). */
const text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
/** Where each of the 16 bytes' two hex digits go in the text. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

function put(byte: number, index: number): void {
  const at = AT[index]!;
  text[at] = HEX[byte >> 4]!;
  text[at + 1] = HEX[byte & 15]!;
}

export function uuidv7(now = Date.now()): string {
  if (offset + 10 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  // 48 bits of milliseconds, as two 24-bit halves (bit operators work on 32 bits).
  const high = Math.floor(now / 0x1000000);
  const low = now % 0x1000000;
  put((high >> 16) & 0xff, 0);
  put((high >> 8) & 0xff, 1);
  put(high & 0xff, 2);
  put((low >> 16) & 0xff, 3);
  put((low >> 8) & 0xff, 4);
  put(low & 0xff, 5);
  // Version 7 in the high nibble of byte 6, variant 0b10 in the top bits of byte 8.
  put(0x70 | (pool[offset]! & 0x0f), 6);
  put(pool[offset + 1]!, 7);
  put(0x80 | (pool[offset + 2]! & 0x3f), 8);
  for (let i = 3; i < 10; i++) put(pool[offset + i]!, 6 + i);
  offset += 10;
  return text.toString('latin1', 0, 36);
}
