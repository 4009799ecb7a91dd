// What the SQL typeahead offers in a statement field (the Database action on a hosted database):
// the database's table names, and column names (only the table's after `table.`). Pure functions;
// the tables come from GET /databases/{id}/tables. Imports name their .js files: this module also
// runs under Node (test/web).
import type { Suggestion } from './variables.js';

export interface SqlTable {
  name: string;
  columns: Array<{ name: string; type: string }>;
}

/** The word being typed at the caret (and a `qualifier.` before it), or null inside a string literal, a parameter or a variable. */
export function wordAt(text: string, caret: number): { start: number; typed: string; qualifier: string | null } | null {
  const before = text.slice(0, caret);
  if ((before.match(/'/g)?.length ?? 0) % 2 === 1) return null;
  const m = /(?:^|[^\w$.":])(?:([A-Za-z_]\w*|"[^"]+")\.)?([A-Za-z_]\w*)?$/.exec(before);
  if (!m) return null;
  const typed = m[2] ?? '';
  const qualifier = m[1] === undefined ? null : m[1].replace(/^"(.*)"$/, '$1');
  if (!typed && qualifier === null) return null;
  return { start: caret - typed.length, typed, qualifier };
}

/** A name as SQL: bare when PostgreSQL would read it unchanged, else double-quoted. */
export function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** Tables and columns that begin with what is typed (any case), tables first; at most `limit`. */
export function sqlSuggestions(tables: SqlTable[], typed: string, qualifier: string | null, limit = 20): Suggestion[] {
  const starts = (name: string) => name.toLowerCase().startsWith(typed.toLowerCase()) && name !== typed;
  const out: Suggestion[] = [];
  const table = qualifier === null ? undefined : tables.find((t) => t.name === qualifier || t.name.toLowerCase() === qualifier.toLowerCase());
  if (qualifier === null) {
    for (const t of tables) if (starts(t.name)) out.push({ insert: sqlName(t.name), complete: true, label: t.name, detail: `table, ${t.columns.length} ${t.columns.length === 1 ? 'column' : 'columns'}` });
  }
  const seen = new Set<string>();
  for (const t of table ? [table] : tables) {
    for (const c of t.columns) {
      if (!starts(c.name) || seen.has(c.name)) continue;
      seen.add(c.name);
      out.push({ insert: sqlName(c.name), complete: true, label: c.name, detail: `column of ${t.name}, ${c.type}` });
    }
  }
  return out.slice(0, limit);
}
