import { describe, expect, it } from 'vitest';
import { cellColumns, cellRows } from './cells.js';

describe('spreadsheet cells', () => {
  it('reads rows from JSON, arrays and text', () => {
    expect(cellRows('["a", 1, true, null, {"x": 1}]')).toEqual([['a', 1, true, null, '{"x":1}']]);
    expect(cellRows([['a'], ['b']])).toEqual([['a'], ['b']]);
    expect(cellRows('a\tb\nc\td\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(cellRows('Smith, John')).toEqual([['Smith, John']]);
    expect(cellRows('[not json')).toEqual([['[not json']]);
    expect(cellRows(42)).toEqual([[42]]);
    expect(() => cellRows([])).toThrow(/empty array/);
    expect(() => cellRows([['a'], 'b'])).toThrow(/mixes cells and rows/);
  });

  it('turns rows into columns of text', () => {
    expect(cellColumns([['A1', 'B1'], ['A2'], [null, 3]])).toEqual([
      ['A1', 'A2', ''],
      ['B1', '', '3'],
    ]);
    expect(cellColumns([])).toEqual([]);
  });
});
