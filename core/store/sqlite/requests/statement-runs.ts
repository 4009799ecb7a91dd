// Statements that take several rows at once (a multi-row VALUES): a statement's fixed cost, its
// call and its page reads, is paid once a run rather than once a row. One statement is prepared per
// run length, on first use; a batch goes in runs of the longest length, then of halves (nextRun), so
// each kind of statement has at most log2(longest) + 1 lengths. Imports nothing the writer thread
// cannot load.
import type { Database, Statement } from 'better-sqlite3';

/** The statement for a run of `rows` rows, prepared from `sqlFor(rows)` on first use (`raw`: rows come back as arrays). */
export function statementsByRun(db: Database, sqlFor: (rows: number) => string, { raw = false } = {}): (rows: number) => Statement {
  const prepared = new Map<number, Statement>();
  return (rows) => {
    let statement = prepared.get(rows);
    if (!statement) {
      statement = db.prepare(sqlFor(rows));
      if (raw) statement.raw();
      prepared.set(rows, statement);
    }
    return statement;
  };
}

/** The next run's length: `longest`, or its largest power-of-two fraction that `remaining` fills. */
export function nextRun(remaining: number, longest: number): number {
  let n = longest;
  while (n > remaining) n >>= 1;
  return n;
}

/** Placeholders of `rows` rows of `width` values: `(?, ?), (?, ?)`. */
export function rowPlaceholders(rows: number, width: number): string {
  const row = `(${Array(width).fill('?').join(', ')})`;
  return Array(rows).fill(row).join(', ');
}
