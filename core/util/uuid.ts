// Request IDs are UUIDv7 (RFC 9562): time-ordered, so new rows land at the end of the ID index
// instead of on a random page, which keeps the capture write path cheap.
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

export function uuidv7(now = Date.now()): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  // Written in place in the pool: a subarray per ID was most of what this allocated.
  const at = offset;
  offset += 16;
  pool.writeUIntBE(now, at, 6);
  pool[at + 6] = 0x70 | (pool[at + 6]! & 0x0f);
  pool[at + 8] = 0x80 | (pool[at + 8]! & 0x3f);
  const h = pool.toString('hex', at, at + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
