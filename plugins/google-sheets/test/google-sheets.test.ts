// The Google Sheets actions against a fake Sheets API v4 on loopback (test/fake-sheets.ts),
// through the SDK's fetch client and an in-memory google provider pointing at it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock, fetchHttpClient, memoryProviders, runAction, type RunActionOptions, validateParams } from '@capture/sdk/testing';
import { forgetOAuthRenewals } from '@capture/sdk/oauth';
import { googleSheetsGetValues } from '../src/get-values.js';
import plugin from '../src/index.js';
import { extractSpreadsheetId, googleProvider } from '../src/provider.js';
import { googleSheetsAddRow, googleSheetsUpdateRow } from '../src/write.js';
import { OAUTH_APP, startFakeSheets, type FakeSheets } from './fake-sheets.js';

const ID = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';
const URL_ = `https://docs.google.com/spreadsheets/d/${ID}/edit#gid=0`;

let fake: FakeSheets;

beforeAll(async () => {
  fake = await startFakeSheets();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.spreadsheets.clear();
  fake.spreadsheets.set(ID, {
    sheets: {
      Sheet1: [
        ['Name', 'Email'],
        ['Ada', 'ada@example.test'],
      ],
      'My Data': [['x']],
    },
  });
  fake.calls.length = 0;
  fake.tokenCalls.length = 0;
  fake.writes = 0;
  fake.writeLimit = 60;
  fake.bare429Next = false;
  forgetOAuthRenewals();
});

const grid = (sheet = 'Sheet1') => fake.spreadsheets.get(ID)!.sheets[sheet]!;

/** The test account's providers: google 5 with `credentials`, and a microsoft one. */
const accounts = (credentials: Record<string, unknown>) =>
  memoryProviders([
    { id: '5', type: 'google', credentials, settings: { api_base_url: fake.base, token_url: fake.tokenUrl } },
    { id: '6', type: 'microsoft', credentials: { access_token: 'x' } },
  ]);

function options(credentials: Record<string, unknown> = { access_token: 'g-valid' }, extra: RunActionOptions = {}): RunActionOptions {
  return {
    ...extra,
    services: {
      http: fetchHttpClient,
      providers: accounts(credentials),
      ...extra.services,
    },
  };
}

describe('the plugin', () => {
  it('provides the three actions and the google provider type', () => {
    expect(plugin.actions.map((a) => a.type).sort()).toEqual(['google_sheets_add_row', 'google_sheets_get_values', 'google_sheets_update_row']);
    expect(plugin.providers?.map((p) => p.type)).toEqual(['google']);
    expect(googleProvider.credentials.safeParse({ access_token: 'ya29.x', expires_at: '2024-01-02T03:04:05Z' }).success).toBe(true);
  });

  it('reads the spreadsheet ID from a URL or takes it as it is', () => {
    expect(extractSpreadsheetId(URL_)).toBe(ID);
    expect(extractSpreadsheetId(`https://docs.google.com/spreadsheets/u/1/d/${ID}/edit?usp=sharing`)).toBe(ID);
    expect(extractSpreadsheetId(` ${ID} `)).toBe(ID);
    expect(extractSpreadsheetId('https://example.test/not-a-sheet')).toBeUndefined();
  });
});

describe('google_sheets_add_row', () => {
  it('appends one row (a JSON array) below the table, as RAW by default', async () => {
    const r = await runAction(googleSheetsAddRow, { provider_id: 5, spreadsheet_id: URL_, range: 'Sheet1!A1:B1', values: '["$name$", "=1+2"]' }, options(undefined, { vars: { name: 'Bob' } }));
    expect(r.errors).toEqual([]);
    const call = fake.calls[0]!;
    expect(call).toMatchObject({ method: 'POST', spreadsheetId: ID, range: 'Sheet1!A1:B1', verb: ':append', query: { valueInputOption: 'RAW', insertDataOption: 'INSERT_ROWS' } });
    expect(call.rawUrl).toContain(`/v4/spreadsheets/${ID}/values/Sheet1!A1%3AB1:append?`);
    expect(call.headers.authorization).toBe('Bearer g-valid');
    expect(call.body).toEqual({ majorDimension: 'ROWS', values: [['Bob', '=1+2']] });
    expect(grid()[2]).toEqual(['Bob', '=1+2']);
    expect(r.output).toEqual(['Added 1 row to the spreadsheet at Sheet1!A3:B3']);
  });

  it('formula_mode sends USER_ENTERED; rows as JSON arrays of arrays', async () => {
    const r = await runAction(googleSheetsAddRow, { provider_id: '5', spreadsheet_id: ID, range: "'My Data'!A:B", values: '[["=1+2", "5"], ["c", true]]', formula_mode: 'true' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.calls[0]?.query.valueInputOption).toBe('USER_ENTERED');
    expect(fake.calls[0]?.rawUrl).toContain("/values/'My%20Data'!A%3AB:append?");
    expect(grid('My Data')).toEqual([['x'], ['3', 5], ['c', true]]);
    expect(r.output).toEqual(["Added 2 rows to the spreadsheet at 'My Data'!A2:B3"]);
  });

  it('plain text is one cell, even with commas; tab-separated lines are rows of cells', async () => {
    await runAction(googleSheetsAddRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1', values: 'Smith, John' }, options());
    await runAction(googleSheetsAddRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1', values: 'a\tb\nc\td' }, options());
    expect(fake.calls.map((c) => c.body)).toEqual([
      { majorDimension: 'ROWS', values: [['Smith, John']] },
      {
        majorDimension: 'ROWS',
        values: [
          ['a', 'b'],
          ['c', 'd'],
        ],
      },
    ]);
  });

  it('over the write quota, fails with the Write requests message', async () => {
    fake.writeLimit = 2;
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await runAction(googleSheetsAddRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1', values: `row ${i}` }, options()));
    expect(results.map((r) => r.errors.length)).toEqual([0, 0, 1]);
    expect(results[2]!.errors[0]).toBe(
      "Google Sheets could not add 1 row to Sheet1: Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:123456789'; Google allows about 60 write requests per minute per user; for mass imports use a database",
    );
  });

  it('names the Write requests metric when Google answers a bare 429', async () => {
    fake.bare429Next = true;
    const r = await runAction(googleSheetsUpdateRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1!A1', values: 'x' }, options());
    expect(r.errors).toEqual([
      "Google Sheets could not update Sheet1!A1: Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com'; Google allows about 60 write requests per minute per user; for mass imports use a database",
    ]);
  });

  it('a missing spreadsheet or a bad range is an action error', async () => {
    const r1 = await runAction(googleSheetsAddRow, { provider_id: '5', spreadsheet_id: 'nope123', range: 'Sheet1', values: 'x' }, options());
    const r2 = await runAction(googleSheetsAddRow, { provider_id: '5', spreadsheet_id: ID, range: 'Other!A1', values: 'x' }, options());
    expect(r1.errors).toEqual(['Google Sheets could not add 1 row to Sheet1: Requested entity was not found. (NOT_FOUND); check the spreadsheet URL or ID']);
    expect(r2.errors).toEqual(["Google Sheets could not add 1 row to Other!A1: Unable to parse range: Other!A1 (INVALID_ARGUMENT); check the range, e.g. 'Sheet1'!A1:C3"]);
  });

  it('checks its parameters', () => {
    const ok = { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1', values: 'x' };
    expect(validateParams(googleSheetsAddRow, ok)).toBeTruthy();
    expect(validateParams(googleSheetsAddRow, { ...ok, spreadsheet_id: '$sheet$', formula_mode: '1' })).toBeTruthy();
    expect(() => validateParams(googleSheetsAddRow, { ...ok, spreadsheet_id: 'https://example.test/x' })).toThrow(/parameters.spreadsheet_id: must be a Google Sheets URL/);
    expect(() => validateParams(googleSheetsAddRow, { ...ok, range: '' })).toThrow(/parameters.range/);
    expect(() => validateParams(googleSheetsAddRow, { ...ok, values: undefined })).toThrow(/parameters.values: is required/);
    expect(() => validateParams(googleSheetsAddRow, { ...ok, formula_mode: 'maybe' })).toThrow(/parameters.formula_mode/);
    expect(() => validateParams(googleSheetsAddRow, { ...ok, provider_id: undefined })).toThrow(/parameters.provider_id: is required/);
  });
});

describe('google_sheets_update_row', () => {
  it('PUTs the values at the range', async () => {
    const r = await runAction(googleSheetsUpdateRow, { provider_id: '5', spreadsheet_id: URL_, range: 'Sheet1!A2:B2', values: ['Ada L.', 'ada@lovelace.test'] }, options());
    expect(r.errors).toEqual([]);
    expect(fake.calls[0]).toMatchObject({ method: 'PUT', range: 'Sheet1!A2:B2', verb: '', query: { valueInputOption: 'RAW' }, body: { majorDimension: 'ROWS', values: [['Ada L.', 'ada@lovelace.test']] } });
    expect(grid()[1]).toEqual(['Ada L.', 'ada@lovelace.test']);
    expect(r.output).toEqual(['Updated 2 cells of the spreadsheet at Sheet1!A2:B2']);
  });

  it('values that do not fit the range are an action error', async () => {
    const r = await runAction(googleSheetsUpdateRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1!A2', values: '["a", "b"]', formula_mode: true }, options());
    expect(fake.calls[0]?.query.valueInputOption).toBe('USER_ENTERED');
    expect(r.errors).toEqual(['Google Sheets could not update Sheet1!A2: Requested writing within range [Sheet1!A2], but tried writing to column [B] (INVALID_ARGUMENT)']);
  });
});

describe('google_sheets_get_values', () => {
  it('sets <variable>.<column>.<row> and <variable>.json', async () => {
    const r = await runAction(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: URL_, range: 'Sheet1!A1:B2', variable_name: '$row$' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.calls[0]).toMatchObject({ method: 'GET', range: 'Sheet1!A1:B2', query: { majorDimension: 'COLUMNS', valueRenderOption: 'FORMATTED_VALUE' } });
    expect(r.vars).toMatchObject({ 'row.0.0': 'Name', 'row.0.1': 'Ada', 'row.1.0': 'Email', 'row.1.1': 'ada@example.test' });
    expect(JSON.parse(r.vars['row.json']!)).toEqual([
      ['Name', 'Ada'],
      ['Email', 'ada@example.test'],
    ]);
    expect(r.output).toEqual(['Read Sheet1!A1:B2: 2 columns × 2 rows']);
  });

  it('an empty range sets an empty JSON array', async () => {
    const r = await runAction(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1!D1:E5', variable_name: 'v' }, options());
    expect(r.errors).toEqual([]);
    expect(r.vars['v.json']).toBe('[]');
    expect(r.output).toEqual(['Read Sheet1!D1:E5: 0 columns × 0 rows (the range is empty)']);
  });

  it('a read quota error names the Read requests metric', async () => {
    fake.bare429Next = true;
    const r = await runAction(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1', variable_name: 'v' }, options());
    expect(r.errors[0]).toMatch(/^Google Sheets could not read Sheet1: Quota exceeded for quota metric 'Read requests'/);
  });

  it('needs a variable name', () => {
    expect(() => validateParams(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: ID, range: 'A1' })).toThrow(/parameters.variable_name: is required/);
  });
});

describe('the account', () => {
  it('renews a rejected token and retries', async () => {
    const r = await runAction(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1!A1', variable_name: 'v' }, options({ access_token: 'g-old', ...OAUTH_APP }));
    expect(r.errors).toEqual([]);
    expect(r.vars['v.0.0']).toBe('Name');
    expect(Object.fromEntries(fake.tokenCalls[0]!)).toEqual({ grant_type: 'refresh_token', ...OAUTH_APP });
    expect(fake.calls.map((c) => c.headers.authorization)).toEqual(['Bearer g-old', 'Bearer g-renewed-1']);
  });

  it('renews a token whose expires_at (ISO) has passed before calling, and the next run uses the saved one', async () => {
    const clock = fakeClock();
    const providers = accounts({ access_token: 'g-valid', expires_at: new Date(clock.now() - 1000).toISOString(), ...OAUTH_APP });
    const r1 = await runAction(googleSheetsUpdateRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1!C1', values: 'x' }, options(undefined, { services: { clock, providers } }));
    expect((await providers.get('5', 'google')).credentials).toMatchObject({ access_token: 'g-renewed-1', expires_at: Math.floor(clock.now() / 1000) + 3599 });
    forgetOAuthRenewals(); // as in another process: only the provider knows the new token
    clock.advance(3000_000); // 50 minutes: still more than a minute before the new expiry
    const r2 = await runAction(googleSheetsUpdateRow, { provider_id: '5', spreadsheet_id: ID, range: 'Sheet1!C1', values: 'y' }, options(undefined, { services: { clock, providers } }));
    expect([...r1.errors, ...r2.errors]).toEqual([]);
    expect(fake.tokenCalls).toHaveLength(1);
    expect(fake.calls.map((c) => c.headers.authorization)).toEqual(['Bearer g-renewed-1', 'Bearer g-renewed-1']);
  });

  it('a rejected token without a refresh token is an action error saying what to do', async () => {
    const r = await runAction(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: ID, range: 'A1', variable_name: 'v' }, options({ access_token: 'g-old' }));
    expect(r.errors[0]).toMatch(/^Google Sheets could not read A1: Request had invalid authentication credentials\..* \(UNAUTHENTICATED\); the access token was rejected and cannot be renewed: update Google provider 5/);
  });

  it('a revoked refresh token is an action error', async () => {
    const r = await runAction(googleSheetsGetValues, { provider_id: '5', spreadsheet_id: ID, range: 'A1', variable_name: 'v' }, options({ access_token: 'g-old', ...OAUTH_APP, refresh_token: 'revoked' }));
    expect(r.errors).toEqual(['Could not renew the Google access token of Google provider 5 (invalid_grant: Token has been expired or revoked.); reconnect the account']);
  });

  it('a missing provider or one of another type is an action error', async () => {
    const missing = await runAction(googleSheetsAddRow, { provider_id: '1', spreadsheet_id: ID, range: 'A1', values: 'x' }, options());
    const wrong = await runAction(googleSheetsAddRow, { provider_id: '6', spreadsheet_id: ID, range: 'A1', values: 'x' }, options());
    expect(missing.errors).toEqual(['Provider 1 not found']);
    expect(wrong.errors).toEqual(['Provider 6 is a microsoft account, not google']);
    expect(fake.calls).toHaveLength(0);
  });
});
