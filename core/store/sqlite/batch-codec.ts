// A batch of captures as one buffer, for the trip to the writer thread. Structured clone walked
// every row's 24 values on both sides and cost the event loop more than the capture's own
// handling; this writes them into one ArrayBuffer that is transferred, not copied, and read back
// on the thread as the same rows (strings, numbers, nulls, bytes as Buffer views).
import type { WriteItem } from './batch-writer.js';

const NULL = 0;
const STRING = 1;
const NUMBER = 2;
const BYTES = 3;

/** Upper bound of a value's encoded size: UTF-8 takes at most 3 bytes per UTF-16 unit. */
function bound(v: unknown): number {
  if (typeof v === 'string') return 5 + v.length * 3;
  if (v instanceof Uint8Array) return 5 + v.byteLength;
  return 9;
}

/** Node's own method behind Buffer#write(string, offset, 'utf8'), on every Buffer. */
type Utf8Writable = Buffer & { utf8Write(s: string, offset: number): number };

function put(b: Buffer, at: number, v: unknown): number {
  if (typeof v === 'string') {
    b[at] = STRING;
    // utf8Write: Buffer#write without its argument juggling (half its cost on this path).
    const n = (b as Utf8Writable).utf8Write(v, at + 5);
    b.writeUInt32LE(n, at + 1);
    return at + 5 + n;
  }
  if (typeof v === 'number') {
    b[at] = NUMBER;
    b.writeDoubleLE(v, at + 1);
    return at + 9;
  }
  if (v instanceof Uint8Array) {
    b[at] = BYTES;
    b.writeUInt32LE(v.byteLength, at + 1);
    b.set(v, at + 5);
    return at + 5 + v.byteLength;
  }
  if (v === null || v === undefined) {
    b[at] = NULL;
    return at + 1;
  }
  throw new TypeError(`cannot send a ${typeof v} to the writer thread`);
}

/**
 * The batch in one fresh ArrayBuffer (give it in postMessage's transfer list). It is sized for the
 * worst case and sent whole: slicing it would copy it, and the reader stops at the item count.
 */
export function encodeBatch(items: WriteItem[]): ArrayBuffer {
  let size = 4;
  for (const it of items) {
    size += 9 + 4 + 4;
    for (const v of it.row) size += bound(v);
    if (it.files) for (const [id, data] of it.files) size += bound(id) + bound(data);
  }
  const b = Buffer.from(new ArrayBuffer(size));
  b.writeUInt32LE(items.length, 0);
  let at = 4;
  for (const it of items) {
    b.writeDoubleLE(it.limit, at);
    b.writeUInt32LE(it.row.length, at + 8);
    b.writeUInt32LE(it.files ? it.files.size : 0, at + 12);
    at += 16;
    for (const v of it.row) at = put(b, at, v);
    if (it.files) for (const [id, data] of it.files) at = put(b, put(b, at, id), data);
  }
  return b.buffer as ArrayBuffer;
}

/** The rows of encodeBatch; bytes come back as Buffer views of `buffer`. */
export function decodeBatch(buffer: ArrayBuffer): WriteItem[] {
  const b = Buffer.from(buffer);
  let at = 0;
  const take = (): unknown => {
    const tag = b[at]!;
    if (tag === NULL) return (at += 1), null;
    if (tag === NUMBER) return (at += 9), b.readDoubleLE(at - 8);
    const n = b.readUInt32LE(at + 1);
    const start = at + 5;
    at = start + n;
    if (tag === STRING) return b.toString('utf8', start, at);
    if (tag === BYTES) return b.subarray(start, at);
    throw new Error(`bad value tag ${tag} at ${start - 5}`);
  };
  const count = b.readUInt32LE(0);
  at = 4;
  const items: WriteItem[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const limit = b.readDoubleLE(at);
    const cols = b.readUInt32LE(at + 8);
    const files = b.readUInt32LE(at + 12);
    at += 16;
    const row: unknown[] = new Array(cols);
    for (let c = 0; c < cols; c++) row[c] = take();
    const item: WriteItem = { row, limit };
    if (files) {
      item.files = new Map();
      for (let f = 0; f < files; f++) {
        const id = take() as string;
        item.files.set(id, take() as Uint8Array);
      }
    }
    items[i] = item;
  }
  return items;
}
