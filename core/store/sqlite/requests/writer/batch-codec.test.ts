import { describe, expect, it } from 'vitest';
import { sampleRequest } from '../../../store.contract.js';
import { decodeBatch, encodeBatch } from './batch-codec.js';
import { toRow } from '../columns.js';
import type { WriteItem } from './batch-writer.js';

describe('batch codec (captures to the writer thread)', () => {
  it('gives back every row value, limit and file as it was', () => {
    const pool = Buffer.alloc(64, 9);
    const items: WriteItem[] = [
      { row: toRow(sampleRequest('t1', { body: pool.subarray(3, 8), note: null, team_id: 7, time: 0.125, sorting: 1_732_000_000_000_123 })), limit: 10_000 },
      {
        row: toRow(sampleRequest('t2', { body: Buffer.alloc(0), url: 'http://x/é€😀?q=\u0000', note: 'lone \ud800 surrogate', headers: { 'x-a': ['ü', '"quoted"'] } })),
        limit: 0,
        files: new Map([
          ['f1', Buffer.from([0, 255, 1])],
          ['f2', new Uint8Array(0)],
        ]),
      },
    ];
    const back = decodeBatch(structuredClone(encodeBatch(items)));
    expect(back).toHaveLength(2);
    for (let i = 0; i < items.length; i++) {
      expect(back[i]!.limit).toBe(items[i]!.limit);
      expect(back[i]!.row.map((v) => (v instanceof Uint8Array ? [...v] : v))).toEqual(items[i]!.row.map((v) => (v instanceof Uint8Array ? [...v] : v)));
    }
    expect(back[0]!.files).toBeUndefined();
    expect([...back[1]!.files!].map(([id, d]) => [id, [...d]])).toEqual([
      ['f1', [0, 255, 1]],
      ['f2', []],
    ]);
  });

  it('encodes an empty batch, and refuses a value it cannot carry', () => {
    expect(decodeBatch(encodeBatch([]))).toEqual([]);
    expect(() => encodeBatch([{ row: [{ not: 'flat' }], limit: 1 }])).toThrow(/cannot send a object/);
  });
});
