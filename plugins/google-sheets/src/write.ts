// Add Row and Update Row: the same parameters, different calls.
//   add:    POST values/<range>:append?valueInputOption=...&insertDataOption=INSERT_ROWS
//           (Google finds the table in the range and adds the rows below it)
//   update: PUT values/<range>?valueInputOption=... (writes from the range's top-left cell)
// formula_mode: values are read as if typed in the sheet (USER_ENTERED: formulas, numbers and dates
// are parsed); otherwise they are stored as given (RAW).
import { boolean, defineAction, providerId, z } from '@capture/sdk';
import { cellRows } from '@capture/sdk/cells';
import { Sheets, spreadsheetParam } from './provider.js';

const writeParams = z.object({
  provider_id: providerId(),
  spreadsheet_id: spreadsheetParam,
  range: z.string().trim().min(1, 'is required').describe("Sheet and cells, e.g. 'Sheet1'!A1:C1"),
  values: z
    .union([z.string(), z.array(z.unknown()).min(1, 'must hold at least one cell')])
    .describe('One cell as text, or JSON: ["cell 1", "cell 2"] for a row, [["a", "b"], ["c", "d"]] for rows; tab-separated lines are rows of cells'),
  formula_mode: boolean().nullish().describe('Read values as if typed in the sheet (formulas, numbers, dates); default: store them as given'),
});

interface UpdateResult {
  updatedRange?: string;
  updatedRows?: number;
  updatedCells?: number;
}

const rowsText = (n: number) => `${n} row${n === 1 ? '' : 's'}`;

export const googleSheetsAddRow = defineAction({
  type: 'google_sheets_add_row',
  title: 'Google Sheets: Add Row',
  category: 'google_sheets',
  description:
    'Appends one or more rows below the table Google finds in the range of a spreadsheet (URL or ID) of a connected google account. Values: text (one cell) or JSON (["a", "b"] is one row, [["a"], ["b"]] two). Google allows about 60 writes per minute.',
  parameters: writeParams,
  async execute(ctx, params) {
    const rows = cellRows(params.values);
    const sheets = await Sheets.open(ctx, params.provider_id);
    const r = await sheets.values<{ tableRange?: string; updates?: UpdateResult }>({
      method: 'POST',
      spreadsheetId: params.spreadsheet_id,
      range: params.range,
      verb: ':append',
      query: { valueInputOption: params.formula_mode ? 'USER_ENTERED' : 'RAW', insertDataOption: 'INSERT_ROWS' },
      json: { majorDimension: 'ROWS', values: rows },
      doing: `add ${rowsText(rows.length)} to ${params.range}`,
      write: true,
    });
    ctx.log(`Added ${rowsText(r.updates?.updatedRows ?? rows.length)} to the spreadsheet at ${r.updates?.updatedRange ?? params.range}`);
  },
});

export const googleSheetsUpdateRow = defineAction({
  type: 'google_sheets_update_row',
  title: 'Google Sheets: Update Row',
  category: 'google_sheets',
  description:
    'Writes values into the cells of a range of a spreadsheet (URL or ID) of a connected google account, from its top-left cell. Values: text (one cell) or JSON (["a", "b"] is one row, [["a"], ["b"]] two). Google allows about 60 writes per minute.',
  parameters: writeParams,
  async execute(ctx, params) {
    const rows = cellRows(params.values);
    const sheets = await Sheets.open(ctx, params.provider_id);
    const r = await sheets.values<UpdateResult>({
      method: 'PUT',
      spreadsheetId: params.spreadsheet_id,
      range: params.range,
      query: { valueInputOption: params.formula_mode ? 'USER_ENTERED' : 'RAW' },
      json: { majorDimension: 'ROWS', values: rows },
      doing: `update ${params.range}`,
      write: true,
    });
    ctx.log(`Updated ${r.updatedCells ?? rows.reduce((n, row) => n + row.length, 0)} cells of the spreadsheet at ${r.updatedRange ?? params.range}`);
  },
});
