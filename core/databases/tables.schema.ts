// The Database Manager's input and answers (core/databases/tables.ts does the work; the routes in
// core/http/databases/tables.router.ts validate with these and describe them in /openapi.json).
import { z } from 'zod';
import { COLUMN_TYPES, DEFAULT_EXPRESSIONS, Identifier, columnType } from './ddl.js';

const TypeText = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(64)
  .describe(`One of ${COLUMN_TYPES.join(', ')}; varchar(n), char(n), numeric(p,s); a trailing [] makes an array`);
const DefaultValue = z.string().max(10_000).nullable().describe('A literal value, cast to the column type (null: no default)');
const DefaultExpression = z.enum(DEFAULT_EXPRESSIONS).nullable().describe('A default computed on insert, instead of `default`');

export const ColumnInput = z.object({
  name: Identifier,
  type: TypeText,
  nullable: z.boolean().default(true),
  default: DefaultValue.optional(),
  default_expression: DefaultExpression.optional(),
  primary_key: z.boolean().default(false).describe('Part of the primary key (several columns make a composite key)'),
});

/** Type from the list, and one default at most: issues under `path`. */
function checkColumn(c: { type?: string; default?: string | null; default_expression?: string | null }, path: PropertyKey[], issue: z.RefinementCtx, allowSerial: boolean): void {
  if (c.type !== undefined) {
    const t = columnType(c.type, { allowSerial });
    if ('error' in t) issue.addIssue({ code: 'custom', path: [...path, 'type'], message: t.error });
  }
  if (c.default !== undefined && c.default !== null && c.default_expression) issue.addIssue({ code: 'custom', path: [...path, 'default'], message: 'give default or default_expression, not both' });
}

export const TableCreateBody = z
  .object({
    name: Identifier,
    columns: z.array(ColumnInput).min(1, 'needs at least one column').max(400),
  })
  .superRefine((t, issue) => {
    const seen = new Set<string>();
    t.columns.forEach((c, i) => {
      if (seen.has(c.name)) issue.addIssue({ code: 'custom', path: ['columns', i, 'name'], message: `duplicates the column ${JSON.stringify(c.name)}` });
      seen.add(c.name);
      checkColumn(c, ['columns', i], issue, true);
    });
  });

export const TableRenameBody = z.object({ name: Identifier });

export const ColumnAddBody = ColumnInput.omit({ primary_key: true }).superRefine((c, issue) => checkColumn(c, [], issue, true));

export const ColumnUpdateBody = z
  .object({
    name: Identifier.optional().describe('A new name'),
    type: TypeText.optional().describe('A new type: the values are cast (`USING column::type`); a value that does not cast fails the change'),
    nullable: z.boolean().optional(),
    default: DefaultValue.optional().describe('A new literal default; null drops the default'),
    default_expression: DefaultExpression.optional(),
  })
  .superRefine((c, issue) => {
    checkColumn(c, [], issue, false);
    if (Object.values(c).every((v) => v === undefined)) issue.addIssue({ code: 'custom', path: [], message: 'Nothing to change: give name, type, nullable, default or default_expression' });
  });

export const PrimaryKeyBody = z.object({
  columns: z.array(Identifier).max(32).describe('The key columns in order; an empty list drops the primary key (the rows become read-only here)'),
});

const Values = z.record(z.string(), z.unknown());
export const RowInsertBody = z.object({ values: Values.describe('Column name to value; columns left out get their default') });
export const RowUpdateBody = z.object({
  key: Values.describe('The primary key of the row: every key column with its value'),
  values: Values.refine((v) => Object.keys(v).length > 0, 'names at least one column'),
});
export const RowsDeleteBody = z.object({ keys: z.array(Values).min(1, 'names at least one row').max(1000) });

export const ColumnView = z.object({
  name: z.string(),
  type: z.string().describe('As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone'),
  nullable: z.boolean(),
  default: z.string().nullable().describe('The default expression as PostgreSQL shows it'),
  primary_key: z.boolean(),
});

export const TableView = z.object({
  name: z.string(),
  rows_estimate: z.number().int().describe("The rows: counted below 10000, else PostgreSQL's estimate from its statistics"),
  primary_key: z.array(z.string()).describe('Key columns in order; empty: no primary key (rows are read-only in the manager)'),
  columns: z.array(ColumnView),
});

export const TableListView = z.object({
  data: z.array(TableView),
  column_types: z.array(z.string()).describe('The types a column may be given'),
  default_expressions: z.array(z.string()),
});

export const RowView = z.object({ row: z.record(z.string(), z.unknown()) });
export const RowsDeletedView = z.object({ deleted: z.number().int() });
export const RowsExtra = z.object({ primary_key: z.array(z.string()).describe('Identifies a row for edits and deletes; empty: read-only') });
