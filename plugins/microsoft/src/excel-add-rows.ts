// The `microsoft_excel_add_rows` action: POST .../workbook/tables/<table>/rows/add. Graph inserts
// rows only into a table (Insert > Table in Excel); each row needs one value per table column.
import { cellRows } from '@capture/sdk/cells';
import { defineAction, integer, optionalText, providerId, z } from '@capture/sdk';
import { Graph, itemPath } from './provider.js';

export const microsoftExcelAddRows = defineAction({
  type: 'microsoft_excel_add_rows',
  title: 'Excel: Add Rows',
  category: 'microsoft',
  description:
    'Adds rows to a table of an Excel workbook in the OneDrive of a connected microsoft account. values is one row (["a", "b"]) or rows ([["a", "b"], ["c", "d"]]), as JSON or as an array; each row needs one value per table column. Without table, the first table of the workbook is used; without index, rows go at the end.',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path of the workbook from the OneDrive root, e.g. Sales.xlsx'),
    table: optionalText().describe('Table name (Table Design > Table Name), default the first table'),
    index: z
      .union([integer({ min: 0, message: 'must be 0 or more' }), z.literal('').transform(() => undefined)])
      .nullish()
      .describe('Row position in the table, from 0 (default: after the last row)'),
    values: z.union([z.array(z.unknown()).min(1, 'must hold at least one cell'), z.string()]).describe('One row or an array of rows'),
  }),
  async execute(ctx, params) {
    const rows = cellRows(params.values);
    const workbook = `${itemPath(params.path)}/workbook`;
    const graph = await Graph.open(ctx, params.provider_id);
    let table = params.table?.trim();
    if (!table) {
      const list = await graph.json<{ value?: Array<{ name?: string }> }>({ method: 'GET', path: `${workbook}/tables?$select=name`, doing: `list the tables of ${params.path}` });
      table = list.value?.find((t) => t.name)?.name;
      if (!table) throw new Error(`${params.path} has no table: select the range in Excel and use Insert > Table, then name it here`);
    }
    const index = typeof params.index === 'number' ? params.index : null;
    const added = await graph.json<{ index?: number }>({
      method: 'POST',
      path: `${workbook}/tables/${encodeURIComponent(table)}/rows/add`,
      json: { index, values: rows },
      doing: `add rows to table ${table} of ${params.path}`,
    });
    const at = typeof added.index === 'number' ? ` at row ${added.index}` : '';
    ctx.log(`Added ${rows.length} row${rows.length === 1 ? '' : 's'} to table ${table} of ${params.path}${at}`);
  },
});
