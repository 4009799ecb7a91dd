// A batch of captures in three parts, for the trip to the writer thread. Structured clone of the
// rows walked every one of their 24 values on both sides, and writing each string into a buffer
// cost a native call per value; the event loop paid more for that than for the capture's own
// handling. Here every string of the batch is joined into ONE string (cloned as a single copy),
// numbers and value kinds go into one Float64Array and bytes into one ArrayBuffer (both
// transferred, not copied). The thread slices the rows back out: strings by their UTF-16 length,
// so any string, lone surrogates included, comes back exactly as it was.
import type { WriteItem } from './batch-writer.js';

const NULL = 0;
const STRING = 1;
const NUMBER = 2;
const BYTES = 3;

/** What crosses to the writer thread; give `meta` and `bytes` in postMessage's transfer list. */
export interface EncodedBatch {
  /** Every string value of the batch, in order, end to end. */
  text: string;
  /** Per item: limit, value count, file count; per value: kind, then its length, number or byte offset... */
  meta: ArrayBuffer;
  /** Every body and file, end to end. */
  bytes: ArrayBuffer;
}

export function encodeBatch(items: WriteItem[]): EncodedBatch {
  let slots = 1;
  let size = 0;
  for (const it of items) {
    slots += 3 + it.row.length * 3;
    for (const v of it.row) if (v instanceof Uint8Array) size += v.byteLength;
    if (it.files) {
      slots += it.files.size * 6;
      for (const data of it.files.values()) size += data.byteLength;
    }
  }
  const meta = new Float64Array(slots);
  // Not zero-filled: every byte is written below. Its own ArrayBuffer, so it can be transferred.
  const bytes = Buffer.allocUnsafeSlow(size);
  const strings: string[] = [];
  let m = 1;
  let at = 0;
  const put = (v: unknown): void => {
    if (typeof v === 'string') {
      meta[m++] = STRING;
      meta[m++] = v.length;
      strings.push(v);
    } else if (typeof v === 'number') {
      meta[m++] = NUMBER;
      meta[m++] = v;
    } else if (v instanceof Uint8Array) {
      meta[m++] = BYTES;
      meta[m++] = at;
      meta[m++] = v.byteLength;
      bytes.set(v, at);
      at += v.byteLength;
    } else if (v === null || v === undefined) {
      meta[m++] = NULL;
    } else {
      throw new TypeError(`cannot send a ${typeof v} to the writer thread`);
    }
  };
  meta[0] = items.length;
  for (const it of items) {
    meta[m++] = it.limit;
    meta[m++] = it.row.length;
    meta[m++] = it.files ? it.files.size : 0;
    for (let c = 0; c < it.row.length; c++) put(it.row[c]);
    if (it.files) {
      for (const [id, data] of it.files) {
        put(id);
        put(data);
      }
    }
  }
  return { text: strings.join(''), meta: meta.buffer, bytes: bytes.buffer as ArrayBuffer };
}

/** The items of encodeBatch; bytes come back as Buffer views of `batch.bytes`. */
export function decodeBatch(batch: EncodedBatch): WriteItem[] {
  const meta = new Float64Array(batch.meta);
  const bytes = Buffer.from(batch.bytes);
  const text = batch.text;
  let m = 1;
  let pos = 0;
  const take = (): unknown => {
    const kind = meta[m++];
    if (kind === NULL) return null;
    if (kind === NUMBER) return meta[m++];
    if (kind === STRING) {
      const start = pos;
      pos += meta[m++]!;
      return text.slice(start, pos);
    }
    if (kind === BYTES) {
      const start = meta[m++]!;
      return bytes.subarray(start, start + meta[m++]!);
    }
    throw new Error(`bad value kind ${kind} at ${m - 1}`);
  };
  const count = meta[0]!;
  const items: WriteItem[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const limit = meta[m++]!;
    const cols = meta[m++]!;
    const files = meta[m++]!;
    const row: unknown[] = new Array(cols);
    for (let c = 0; c < cols; c++) row[c] = take();
    const item: WriteItem = { row, limit };
    if (files) {
      const map = new Map<string, Uint8Array>();
      for (let f = 0; f < files; f++) {
        const id = take() as string;
        map.set(id, take() as Uint8Array);
      }
      item.files = map;
    }
    items[i] = item;
  }
  return items;
}
