// The `google_sheets_get_values` action: GET values/<range>?majorDimension=COLUMNS. Cells are read
// as the sheet shows them (FORMATTED_VALUE). For A1:B2: $<v>.0.0$ = A1, $<v>.0.1$ = A2,
// $<v>.1.0$ = B1, $<v>.1.1$ = B2, and $<v>.json$ = [["A1","A2"],["B1","B2"]].
import { defineAction, providerId, variableName, z } from '@capture/sdk';
import { MAX_CELL_VARIABLES } from '@capture/sdk/cells';
import { Sheets, spreadsheetParam } from './provider.js';

export const googleSheetsGetValues = defineAction({
  type: 'google_sheets_get_values',
  title: 'Google Sheets: Get Values',
  category: 'google_sheets',
  description:
    'Reads a range of a spreadsheet (URL or ID) of a connected google account as the sheet shows it. For A1:B2, $<variable_name>.0.0$ is A1, $<variable_name>.0.1$ is A2, $<variable_name>.1.0$ is B1 (column, then row); $<variable_name>.json$ holds [["A1","A2"],["B1","B2"]].',
  parameters: z.object({
    provider_id: providerId(),
    spreadsheet_id: spreadsheetParam,
    range: z.string().trim().min(1, 'is required').describe("Sheet and cells, e.g. 'Sheet1'!A1:C3"),
    variable_name: variableName(),
  }),
  sets: ['<variable_name>.<column>.<row>', '<variable_name>.json'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const sheets = await Sheets.open(ctx, params.provider_id);
    const r = await sheets.values<{ range?: string; values?: unknown[][] }>({
      method: 'GET',
      spreadsheetId: params.spreadsheet_id,
      range: params.range,
      query: { majorDimension: 'COLUMNS', valueRenderOption: 'FORMATTED_VALUE' },
      doing: `read ${params.range}`,
      write: false,
    });
    const columns = (Array.isArray(r.values) ? r.values : []).map((col) => (Array.isArray(col) ? col : [col]).map((v) => (v === null || v === undefined ? '' : String(v))));
    const name = params.variable_name;
    let set = 0;
    columns.forEach((column, c) =>
      column.forEach((value, row) => {
        if (set++ < MAX_CELL_VARIABLES) ctx.vars.set(`${name}.${c}.${row}`, value);
      }),
    );
    ctx.vars.set(`${name}.json`, JSON.stringify(columns));
    const rows = Math.max(0, ...columns.map((col) => col.length));
    ctx.log(`Read ${r.range ?? params.range}: ${columns.length} column${columns.length === 1 ? '' : 's'} × ${rows} row${rows === 1 ? '' : 's'}${columns.length ? '' : ' (the range is empty)'}`);
    if (set > MAX_CELL_VARIABLES) ctx.log(`Only the first ${MAX_CELL_VARIABLES} cells got their own variable; $${name}.json$ has them all`);
  },
});
