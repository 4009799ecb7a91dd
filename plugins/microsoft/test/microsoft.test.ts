// The OneDrive and Excel actions against a fake Microsoft Graph on loopback (test/fake-graph.ts),
// through the SDK's fetch client and an in-memory microsoft provider pointing at it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock, fetchHttpClient, memoryProviders, runAction, type RunActionOptions, validateParams } from '@capture/sdk/testing';
import { forgetOAuthRenewals } from '@capture/sdk/oauth';
import { microsoftDriveDownload } from '../src/drive-download.js';
import { microsoftDriveUpload } from '../src/drive-upload.js';
import { microsoftExcelAddRows } from '../src/excel-add-rows.js';
import { microsoftExcelGetValues } from '../src/excel-get-values.js';
import plugin from '../src/index.js';
import { itemPath, microsoftProvider } from '../src/provider.js';
import { OAUTH_APP, startFakeGraph, type FakeGraph, type Workbook } from './fake-graph.js';

let fake: FakeGraph;

beforeAll(async () => {
  fake = await startFakeGraph();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.files.clear();
  fake.calls.length = 0;
  fake.downloads.length = 0;
  fake.tokenCalls.length = 0;
  fake.throttleNext = false;
  forgetOAuthRenewals();
});

/** The test account's providers: microsoft 3 with `credentials`, and a dropbox one. */
const accounts = (credentials: Record<string, unknown>) =>
  memoryProviders([
    { id: '3', type: 'microsoft', credentials, settings: { api_base_url: fake.base, token_url: fake.tokenUrl } },
    { id: '4', type: 'dropbox', credentials: { access_token: 'x' } },
  ]);

function options(credentials: Record<string, unknown> = { access_token: 'ms-valid' }, extra: RunActionOptions = {}): RunActionOptions {
  return {
    ...extra,
    services: {
      http: fetchHttpClient,
      providers: accounts(credentials),
      ...extra.services,
    },
  };
}

const salesWorkbook = (): Workbook => ({
  sheets: {
    Sheet1: [
      ['Name', 'Amount'],
      ['Ada', 12.5],
      ['Bob', 7],
    ],
  },
  tables: { Sales: { sheet: 'Sheet1', columns: ['Name', 'Amount'], rows: [['Ada', 12.5]] } },
});

describe('the plugin', () => {
  it('provides the four actions and the microsoft provider type', () => {
    expect(plugin.actions.map((a) => a.type).sort()).toEqual(['microsoft_drive_download', 'microsoft_drive_upload', 'microsoft_excel_add_rows', 'microsoft_excel_get_values']);
    expect(plugin.providers?.map((p) => p.type)).toEqual(['microsoft']);
    expect(microsoftProvider.settings?.safeParse({ token_url: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token', scope: 'Files.ReadWrite.All offline_access' }).success).toBe(true);
  });
});

describe('helpers', () => {
  it('addresses items by path from the drive root', () => {
    expect(itemPath('/Docs/Book 1.xlsx')).toBe('/me/drive/root:/Docs/Book%201.xlsx:');
    expect(itemPath('a#b.txt')).toBe('/me/drive/root:/a%23b.txt:');
    expect(() => itemPath(' / ')).toThrow(/must name a file/);
  });
});

describe('microsoft_drive_upload', () => {
  it('PUTs the content to the path and sets the item as JSON', async () => {
    const r = await runAction(microsoftDriveUpload, { provider_id: 3, path: 'Hooks/$request.uuid$.txt', content: 'héllo $x$', variable_name: 'up' }, options(undefined, { vars: { x: 'there' } }));
    expect(r.errors).toEqual([]);
    const path = '/Hooks/22222222-2222-4222-8222-222222222222.txt';
    expect(fake.files.get(path.toLowerCase())?.data.toString()).toBe('héllo there');
    expect(fake.calls[0]).toMatchObject({ method: 'PUT', path: `/v1.0/me/drive/root:${path}:/content` });
    expect(fake.calls[0]?.headers.authorization).toBe('Bearer ms-valid');
    expect(fake.calls[0]?.headers['content-type']).toBe('text/plain; charset=utf-8');
    const item = JSON.parse(r.vars.up!) as { id: string; webUrl: string; size: number };
    expect(item.size).toBe(12);
    expect(r.output[0]).toMatch(/^Uploaded Hooks\/2222.*\.txt to OneDrive \(12 bytes\): https:\/\/onedrive\.example\//);
  });

  it('uploads the request body with its content type by default', async () => {
    const raw = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    const r = await runAction(microsoftDriveUpload, { provider_id: '3', path: 'img.png' }, { ...options(), rawBody: raw, request: { headers: { 'content-type': ['image/png'] } } });
    expect(r.errors).toEqual([]);
    expect(fake.files.get('/img.png')?.data.equals(raw)).toBe(true);
    expect(fake.files.get('/img.png')?.contentType).toBe('image/png');
  });

  it('reports throttling with the retry time', async () => {
    fake.throttleNext = true;
    const r = await runAction(microsoftDriveUpload, { provider_id: '3', path: 'a.txt', content: 'x' }, options());
    expect(r.errors).toEqual(['Microsoft Graph could not upload a.txt: Too many requests. (TooManyRequests); Microsoft is throttling requests: retry after 7 s']);
  });

  it('needs a path', () => {
    expect(() => validateParams(microsoftDriveUpload, { provider_id: '3', content: 'x' })).toThrow(/parameters.path: is required/);
    expect(validateParams(microsoftDriveUpload, { provider_id: '3', path: 'a', content: null, content_type: null })).toBeTruthy();
  });
});

describe('microsoft_drive_download', () => {
  it('follows the redirect to the download URL without the token', async () => {
    fake.addFile('/Docs/Report.csv', 'a;b\n1;2');
    const r = await runAction(microsoftDriveDownload, { provider_id: '3', path: 'Docs/Report.csv', variable_name: 'csv' }, options());
    expect(r.errors).toEqual([]);
    expect(r.vars.csv).toBe('a;b\n1;2');
    expect(fake.calls[0]).toMatchObject({ method: 'GET', path: '/v1.0/me/drive/root:/Docs/Report.csv:/content' });
    expect(fake.downloads).toHaveLength(1);
    expect(fake.downloads[0]?.headers.authorization).toBeUndefined();
    expect(r.output).toEqual(['Downloaded Docs/Report.csv (7 bytes) from OneDrive into $csv$']);
  });

  it('uses onedrive_file by default and keeps at most 10 MiB', async () => {
    fake.addFile('/big.bin', Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
    const r = await runAction(microsoftDriveDownload, { provider_id: '3', path: 'big.bin' }, options());
    expect(r.vars.onedrive_file).toHaveLength(10 * 1024 * 1024);
    expect(r.errors).toEqual([`big.bin is larger than 10 MiB (${10 * 1024 * 1024 + 1} bytes): only its first 10 MiB were kept in $onedrive_file$`]);
  });

  it('a missing file is an action error', async () => {
    const r = await runAction(microsoftDriveDownload, { provider_id: '3', path: 'nope.txt' }, options());
    expect(r.errors).toEqual(['Microsoft Graph could not download nope.txt: The resource could not be found. (itemNotFound); check the path (relative to the OneDrive root), and the table or worksheet name']);
    expect(r.vars.onedrive_file).toBeUndefined();
  });
});

describe('microsoft_excel_add_rows', () => {
  it('adds one row (a flat array) at the end of the named table', async () => {
    const f = fake.addFile('/Sales.xlsx', 'PK', salesWorkbook());
    const r = await runAction(microsoftExcelAddRows, { provider_id: '3', path: '/Sales.xlsx', table: 'Sales', values: ['$name$', 3] }, options(undefined, { vars: { name: 'Cy' } }));
    expect(r.errors).toEqual([]);
    expect(fake.calls[0]).toMatchObject({ method: 'POST', path: '/v1.0/me/drive/root:/Sales.xlsx:/workbook/tables/Sales/rows/add' });
    expect(fake.calls[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(fake.calls[0]!.body.toString())).toEqual({ index: null, values: [['Cy', 3]] });
    expect(f.workbook?.tables.Sales?.rows).toEqual([
      ['Ada', 12.5],
      ['Cy', 3],
    ]);
    expect(r.output).toEqual(['Added 1 row to table Sales of /Sales.xlsx at row 1']);
  });

  it('adds rows given as JSON text at an index, in the first table when none is named', async () => {
    const f = fake.addFile('/Sales.xlsx', 'PK', salesWorkbook());
    const r = await runAction(microsoftExcelAddRows, { provider_id: '3', path: 'Sales.xlsx', index: '0', values: '$request.content$' }, { ...options(), request: { content: '[["Dee", 1], ["Eve", 2]]' } });
    expect(r.errors).toEqual([]);
    expect(fake.calls.map((c) => `${c.method} ${c.path.replace(/^.*:\/workbook\//, '')}`)).toEqual(['GET tables', 'POST tables/Sales/rows/add']);
    expect(fake.calls[0]?.rawUrl).toMatch(/\/tables\?\$select=name$/);
    expect(f.workbook?.tables.Sales?.rows.map((row) => row[0])).toEqual(['Dee', 'Eve', 'Ada']);
  });

  it('a missing table or a wrong number of cells is an action error', async () => {
    fake.addFile('/Sales.xlsx', 'PK', salesWorkbook());
    const r1 = await runAction(microsoftExcelAddRows, { provider_id: '3', path: 'Sales.xlsx', table: 'Nope', values: ['a', 1] }, options());
    const r2 = await runAction(microsoftExcelAddRows, { provider_id: '3', path: 'Sales.xlsx', table: 'Sales', values: ['only one'] }, options());
    expect(r1.errors).toEqual([
      "Microsoft Graph could not add rows to table Nope of Sales.xlsx: The requested resource doesn't exist. (ItemNotFound); check the path (relative to the OneDrive root), and the table or worksheet name",
    ]);
    expect(r2.errors).toEqual(['Microsoft Graph could not add rows to table Sales of Sales.xlsx: The argument is invalid or missing or has an incorrect format. (InvalidArgument)']);
  });

  it('a workbook without tables is an action error saying how to make one', async () => {
    fake.addFile('/Empty.xlsx', 'PK', { sheets: { Sheet1: [] }, tables: {} });
    const r = await runAction(microsoftExcelAddRows, { provider_id: '3', path: 'Empty.xlsx', values: ['a'] }, options());
    expect(r.errors).toEqual(['Empty.xlsx has no table: select the range in Excel and use Insert > Table, then name it here']);
  });

  it("explains Microsoft's browser-permission error", async () => {
    fake.addFile('/Sales.xlsx', 'PK', { ...salesWorkbook(), denied: true });
    const r = await runAction(microsoftExcelAddRows, { provider_id: '3', path: 'Sales.xlsx', table: 'Sales', values: ['a', 1] }, options());
    expect(r.errors[0]).toMatch(/You do not have permissions to open this file in the browser\. \(AccessDenied\); this error comes from Microsoft .* contact Microsoft Support$/);
  });

  it('checks values and index', () => {
    expect(() => validateParams(microsoftExcelAddRows, { provider_id: '3', path: 'a.xlsx', table: 'T' })).toThrow(/parameters.values: is required/);
    expect(() => validateParams(microsoftExcelAddRows, { provider_id: '3', path: 'a.xlsx', values: [] })).toThrow(/parameters.values/);
    expect(() => validateParams(microsoftExcelAddRows, { provider_id: '3', path: 'a.xlsx', values: ['a'], index: -1 })).toThrow(/parameters.index/);
    expect(() => validateParams(microsoftExcelAddRows, { provider_id: '3', values: ['a'] })).toThrow(/parameters.path: is required/);
  });
});

describe('microsoft_excel_get_values', () => {
  it('sets <variable>.<column>.<row> and <variable>.json as Excel shows the cells', async () => {
    fake.addFile('/Sales.xlsx', 'PK', salesWorkbook());
    const r = await runAction(microsoftExcelGetValues, { provider_id: '3', path: 'Sales.xlsx', worksheet: 'Sheet1', range: 'A1:B3', variable_name: 'sales' }, options());
    expect(r.errors).toEqual([]);
    expect(fake.calls[0]?.rawUrl).toBe("/v1.0/me/drive/root:/Sales.xlsx:/workbook/worksheets/Sheet1/range(address='A1%3AB3')");
    expect(r.vars).toMatchObject({ 'sales.0.0': 'Name', 'sales.0.1': 'Ada', 'sales.0.2': 'Bob', 'sales.1.0': 'Amount', 'sales.1.1': '12.50', 'sales.1.2': '7' });
    expect(JSON.parse(r.vars['sales.json']!)).toEqual([
      ['Name', 'Ada', 'Bob'],
      ['Amount', '12.50', '7'],
    ]);
    expect(r.output).toEqual(['Read Sheet1!A1:B3 of Sales.xlsx: 2 columns × 3 rows']);
  });

  it('a missing worksheet or workbook is an action error', async () => {
    fake.addFile('/Sales.xlsx', 'PK', salesWorkbook());
    const r1 = await runAction(microsoftExcelGetValues, { provider_id: '3', path: 'Sales.xlsx', worksheet: 'Other', range: 'A1', variable_name: 'v' }, options());
    const r2 = await runAction(microsoftExcelGetValues, { provider_id: '3', path: 'None.xlsx', worksheet: 'Sheet1', range: 'A1', variable_name: 'v' }, options());
    expect(r1.errors[0]).toMatch(/^Microsoft Graph could not read Other!A1 of Sales\.xlsx: The requested resource doesn't exist\. \(ItemNotFound\)/);
    expect(r2.errors[0]).toMatch(/^Microsoft Graph could not read Sheet1!A1 of None\.xlsx: The resource could not be found\. \(itemNotFound\)/);
  });

  it('needs worksheet, range and variable_name', () => {
    expect(() => validateParams(microsoftExcelGetValues, { provider_id: '3', path: 'a.xlsx', range: 'A1', variable_name: 'v' })).toThrow(/parameters.worksheet: is required/);
    expect(() => validateParams(microsoftExcelGetValues, { provider_id: '3', path: 'a.xlsx', worksheet: 'S', variable_name: 'v' })).toThrow(/parameters.range: is required/);
    expect(() => validateParams(microsoftExcelGetValues, { provider_id: '3', path: 'a.xlsx', worksheet: 'S', range: 'A1' })).toThrow(/parameters.variable_name: is required/);
  });
});

describe('the account', () => {
  it('renews a rejected token (with the scope), retries, and saves the new tokens, the rotated refresh token too', async () => {
    fake.addFile('/a.txt', 'hi');
    const clock = fakeClock();
    const providers = accounts({ access_token: 'ms-old', ...OAUTH_APP });
    const r = await runAction(microsoftDriveDownload, { provider_id: '3', path: 'a.txt', variable_name: 'f' }, options(undefined, { services: { providers, clock } }));
    expect(r.errors).toEqual([]);
    expect(r.vars.f).toBe('hi');
    expect(Object.fromEntries(fake.tokenCalls[0]!)).toEqual({ grant_type: 'refresh_token', ...OAUTH_APP, scope: 'offline_access Files.ReadWrite' });
    expect(fake.calls.map((c) => c.headers.authorization)).toEqual(['Bearer ms-old', 'Bearer ms-renewed-1']);
    expect((await providers.get('3', 'microsoft')).credentials).toEqual({
      ...OAUTH_APP,
      access_token: 'ms-renewed-1',
      refresh_token: 'rt-new',
      expires_at: Math.floor(clock.now() / 1000) + 3600,
    });
  });

  it('a rejected token that cannot be renewed is an action error', async () => {
    const r = await runAction(microsoftDriveDownload, { provider_id: '3', path: 'a.txt' }, options({ access_token: 'ms-old' }));
    expect(r.errors).toEqual([
      'Microsoft Graph could not download a.txt: Access token has expired or is not yet valid. (InvalidAuthenticationToken); the access token was rejected and cannot be renewed: update Microsoft provider 3 with a new access_token, or add refresh_token, client_id and client_secret',
    ]);
  });

  it('a refused renewal is an action error', async () => {
    const r = await runAction(microsoftDriveDownload, { provider_id: '3', path: 'a.txt' }, options({ access_token: 'ms-old', ...OAUTH_APP, client_secret: 'wrong' }));
    expect(r.errors).toEqual(['Could not renew the Microsoft access token of Microsoft provider 3 (invalid_grant: AADSTS70000: The provided value for the refresh_token is not valid.); reconnect the account']);
  });

  it('a missing provider or one of another type is an action error', async () => {
    const missing = await runAction(microsoftDriveDownload, { provider_id: '9', path: 'a.txt' }, options());
    const wrong = await runAction(microsoftDriveDownload, { provider_id: 4, path: 'a.txt' }, options());
    expect(missing.errors).toEqual(['Provider 9 not found']);
    expect(wrong.errors).toEqual(['Provider 4 is a dropbox account, not microsoft']);
    expect(() => validateParams(microsoftDriveDownload, { path: 'a.txt' })).toThrow(/parameters.provider_id: is required/);
  });
});
