// Spreadsheet cells in action parameters and variables, for actions that write rows to or read
// ranges from a spreadsheet (Google Sheets, Excel). Rows of cells come from a parameter given as a
// JSON array (one row of cells, or an array of rows), or as text where each line is a row and tabs
// separate cells (as pasted from a spreadsheet); text without a tab is one cell.

/** One cell as written: objects and arrays inside a row become JSON text. */
export type Cell = string | number | boolean | null;

const cell = (v: unknown): Cell => (v === null || v === undefined ? null : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v));

/**
 * Rows of cells from a parameter: `'["a", 1]'` or `["a", 1]` is one row, `[["a"], ["b"]]` two,
 * `"a\tb\nc\td"` two rows of two cells, `"Smith, John"` one cell. Throws on an empty array or a mix
 * of cells and rows.
 */
export function cellRows(input: unknown): Cell[][] {
  if (typeof input === 'string') {
    const t = input.trim();
    if (t.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(t);
      } catch {
        parsed = undefined;
      }
      if (Array.isArray(parsed)) return cellRows(parsed);
    }
    if (!input.includes('\t')) return [[input]];
    return input
      .replace(/\r?\n$/, '')
      .split(/\r?\n/)
      .map((line) => line.split('\t'));
  }
  if (!Array.isArray(input)) return [[cell(input)]];
  if (!input.length) throw new Error('values is an empty array: give at least one cell');
  const nested = input.filter(Array.isArray).length;
  if (nested === 0) return [input.map(cell)];
  if (nested !== input.length) throw new Error('values mixes cells and rows: give one row (["a", "b"]) or rows ([["a", "b"], ["c", "d"]])');
  return (input as unknown[][]).map((row) => row.map(cell));
}

/** Rows (row-major) -> columns of text: `out[column][row]`; short rows and nulls leave blanks. */
export function cellColumns(rows: unknown[][]): string[][] {
  const width = Math.max(0, ...rows.map((r) => r.length));
  return Array.from({ length: width }, (_, c) => rows.map((r) => (r[c] === undefined || r[c] === null ? '' : String(r[c]))));
}

/** At most this many `<variable_name>.<column>.<row>` variables are set (the .json one has all). */
export const MAX_CELL_VARIABLES = 10_000;
