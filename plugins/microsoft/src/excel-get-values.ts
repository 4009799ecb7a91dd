// The `microsoft_excel_get_values` action: GET .../workbook/worksheets/<sheet>/range(address='A1:B2').
// Cells are read as Excel shows them (the range's `text`) and named like Google Sheets' Get Values:
// $<variable_name>.<column>.<row>$ from 0, and $<variable_name>.json$ holds [[column 0], [column 1]...].
import { cellColumns, MAX_CELL_VARIABLES } from '@capture/sdk/cells';
import { defineAction, providerId, variableName, z } from '@capture/sdk';
import { Graph, itemPath } from './provider.js';

export const microsoftExcelGetValues = defineAction({
  type: 'microsoft_excel_get_values',
  title: 'Excel: Get Values',
  category: 'microsoft',
  description:
    'Reads a range of a worksheet of an Excel workbook in the OneDrive of a connected microsoft account, as Excel displays it. For A1:B2, $<variable_name>.0.0$ is A1, $<variable_name>.0.1$ is A2, $<variable_name>.1.0$ is B1; $<variable_name>.json$ holds [["A1","A2"],["B1","B2"]].',
  parameters: z.object({
    provider_id: providerId(),
    path: z.string().trim().min(1, 'is required').describe('Path of the workbook from the OneDrive root, e.g. Sales.xlsx'),
    worksheet: z.string().trim().min(1, 'is required').describe('Worksheet name, e.g. Sheet1'),
    range: z.string().trim().min(1, 'is required').describe('Cell range, e.g. A1:C10'),
    variable_name: variableName(),
  }),
  sets: ['<variable_name>.<column>.<row>', '<variable_name>.json'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const workbook = `${itemPath(params.path)}/workbook`;
    const graph = await Graph.open(ctx, params.provider_id);
    const address = encodeURIComponent(params.range.replace(/'/g, "''"));
    const range = await graph.json<{ address?: string; text?: unknown[][]; values?: unknown[][] }>({
      method: 'GET',
      path: `${workbook}/worksheets/${encodeURIComponent(params.worksheet)}/range(address='${address}')`,
      doing: `read ${params.worksheet}!${params.range} of ${params.path}`,
    });
    const rows = Array.isArray(range.text) ? range.text : Array.isArray(range.values) ? range.values : [];
    const columns = cellColumns(rows.map((r) => (Array.isArray(r) ? r : [r])));
    const name = params.variable_name;
    let set = 0;
    columns.forEach((column, c) =>
      column.forEach((value, r) => {
        if (set++ < MAX_CELL_VARIABLES) ctx.vars.set(`${name}.${c}.${r}`, value);
      }),
    );
    ctx.vars.set(`${name}.json`, JSON.stringify(columns));
    ctx.log(`Read ${range.address ?? `${params.worksheet}!${params.range}`} of ${params.path}: ${columns.length} column${columns.length === 1 ? '' : 's'} × ${rows.length} row${rows.length === 1 ? '' : 's'}`);
    if (set > MAX_CELL_VARIABLES) ctx.log(`Only the first ${MAX_CELL_VARIABLES} cells got their own variable; $${name}.json$ has them all`);
  },
});
