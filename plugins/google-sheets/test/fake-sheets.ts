// A small Google Sheets API v4 (values endpoints) on loopback for the tests, with Google's OAuth
// token endpoint. Spreadsheets are in-memory grids; a per-minute write quota answers 429
// RESOURCE_EXHAUSTED like Google. Errors have Google's shape
// `{"error": {"code", "message", "status"}}`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type CellValue = string | number | boolean;

export interface Spreadsheet {
  /** Sheet title -> rows of cells (row-major from A1). */
  sheets: Record<string, CellValue[][]>;
}

export interface Call {
  method: string;
  spreadsheetId: string;
  range: string;
  verb: string;
  query: Record<string, string>;
  rawUrl: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface FakeSheets {
  base: string;
  tokenUrl: string;
  spreadsheets: Map<string, Spreadsheet>;
  calls: Call[];
  tokenCalls: URLSearchParams[];
  tokens: Set<string>;
  /** Write requests allowed per minute (Google: 60). */
  writeLimit: number;
  writes: number;
  /** Answer the next call with a bare 429 (no Google message). */
  bare429Next: boolean;
  close(): Promise<void>;
}

export const OAUTH_APP = { refresh_token: 'rt-google', client_id: 'g-client.apps.googleusercontent.com', client_secret: 'g-secret' };

function read(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

const STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED' };
const fail = (res: http.ServerResponse, code: number, message: string, details?: unknown[]) => send(res, code, { error: { code, message, status: STATUS[code] ?? 'UNKNOWN', ...(details ? { details } : {}) } });

const colNumber = (letters: string) => [...letters.toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
const colLetters = (n: number): string => (n < 0 ? '' : colLetters(Math.floor(n / 26) - 1) + String.fromCharCode(65 + (n % 26)));

interface Range {
  sheet: string;
  /** Inclusive bounds; undefined end = open (whole column / sheet). */
  c0: number;
  r0: number;
  c1?: number;
  r1?: number;
}

/** `'My Sheet'!A1:C3`, `Sheet1!A:C`, `Sheet1`, `A1:B2` (first sheet). */
function parseRange(text: string, book: Spreadsheet): Range | undefined {
  const bang = text.lastIndexOf('!');
  let sheet = bang >= 0 ? text.slice(0, bang) : '';
  const cells = bang >= 0 ? text.slice(bang + 1) : text;
  if (/^'.*'$/.test(sheet)) sheet = sheet.slice(1, -1).replace(/''/g, "'");
  if (bang < 0 && book.sheets[text.replace(/^'(.*)'$/, '$1')]) return { sheet: text.replace(/^'(.*)'$/, '$1'), c0: 0, r0: 0 };
  if (!sheet) sheet = Object.keys(book.sheets)[0] ?? '';
  if (!book.sheets[sheet]) return undefined;
  if (!cells) return { sheet, c0: 0, r0: 0 };
  const m = /^([A-Z]+)(\d+)?(?::([A-Z]+)(\d+)?)?$/i.exec(cells);
  if (!m) return undefined;
  const single = m[3] === undefined;
  return {
    sheet,
    c0: colNumber(m[1]!),
    r0: m[2] ? Number(m[2]) - 1 : 0,
    c1: single ? (m[2] ? colNumber(m[1]!) : colNumber(m[1]!)) : colNumber(m[3]!),
    r1: single ? (m[2] ? Number(m[2]) - 1 : undefined) : m[4] ? Number(m[4]) - 1 : undefined,
  };
}

const a1 = (sheet: string, c0: number, r0: number, c1: number, r1: number) => `${/^[A-Za-z0-9_]+$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`}!${colLetters(c0)}${r0 + 1}:${colLetters(c1)}${r1 + 1}`;

export async function startFakeSheets(): Promise<FakeSheets> {
  const spreadsheets = new Map<string, Spreadsheet>();
  const calls: Call[] = [];
  const tokenCalls: URLSearchParams[] = [];
  const tokens = new Set<string>(['g-valid']);

  const write = (grid: CellValue[][], r: number, c: number, value: unknown, input: string) => {
    if (value === null) return; // null: leave the cell as it is
    while (grid.length <= r) grid.push([]);
    const row = grid[r]!;
    while (row.length < c) row.push('');
    let v = value as CellValue;
    if (input === 'USER_ENTERED' && typeof v === 'string') {
      if (/^-?\d+(\.\d+)?$/.test(v)) v = Number(v);
      else if (/^=\s*(\d+)\s*\+\s*(\d+)$/.test(v)) v = v.replace(/^=\s*(\d+)\s*\+\s*(\d+)$/, (_m, a: string, b: string) => String(Number(a) + Number(b)));
    }
    row[c] = v;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const raw = await read(req);
      const rawUrl = req.url ?? '/';
      const url = new URL(rawUrl, 'http://x');
      if (url.pathname === '/token') {
        const form = new URLSearchParams(raw.toString('utf8'));
        tokenCalls.push(form);
        if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== OAUTH_APP.refresh_token || form.get('client_id') !== OAUTH_APP.client_id || form.get('client_secret') !== OAUTH_APP.client_secret) {
          return send(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        }
        const token = `g-renewed-${tokenCalls.length}`;
        tokens.add(token);
        return send(res, 200, { access_token: token, expires_in: 3599, scope: 'https://www.googleapis.com/auth/spreadsheets', token_type: 'Bearer' });
      }
      // Match on the raw path: `:append` is literal, a colon inside the range is %3A.
      const m = /^\/v4\/spreadsheets\/([^/]+)\/values\/([^/:]+)(:append)?$/.exec(url.pathname);
      if (!m) return fail(res, 404, `Method not found: ${url.pathname}`);
      const spreadsheetId = decodeURIComponent(m[1]!);
      const rangeText = decodeURIComponent(m[2]!);
      const verb = m[3] ?? '';
      const query = Object.fromEntries(url.searchParams);
      let body: unknown;
      if (raw.length) {
        if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return fail(res, 400, 'Invalid JSON payload received. Unknown content type.');
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return fail(res, 400, 'Invalid JSON payload received.');
        }
      }
      calls.push({ method: req.method ?? '', spreadsheetId, range: rangeText, verb, query, rawUrl, headers: req.headers, body });
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      if (!auth || !tokens.has(auth[1]!)) {
        return fail(
          res,
          401,
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        );
      }
      if (fake.bare429Next) {
        fake.bare429Next = false;
        res.writeHead(429, { 'content-type': 'text/html' });
        return res.end('<html><body>Too Many Requests</body></html>');
      }
      const isWrite = req.method !== 'GET';
      if (isWrite && ++fake.writes > fake.writeLimit) {
        return fail(res, 429, "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:123456789'.", [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMIT_EXCEEDED',
            domain: 'googleapis.com',
            metadata: { quota_metric: 'sheets.googleapis.com/write_requests', quota_limit: 'WriteRequestsPerMinutePerUser', service: 'sheets.googleapis.com', consumer: 'projects/123456789', quota_limit_value: '60' },
          },
        ]);
      }
      const book = spreadsheets.get(spreadsheetId);
      if (!book) return fail(res, 404, 'Requested entity was not found.');
      const range = parseRange(rangeText, book);
      if (!range) return fail(res, 400, `Unable to parse range: ${rangeText}`);
      const grid = book.sheets[range.sheet]!;

      if (req.method === 'GET' && !verb) {
        const major = query.majorDimension ?? 'ROWS';
        const lastRow = Math.min(range.r1 ?? Infinity, grid.length - 1);
        const lastCol = Math.min(range.c1 ?? Infinity, Math.max(-1, ...grid.map((r) => r.length - 1)));
        const rows: CellValue[][] = [];
        for (let r = range.r0; r <= lastRow; r++) {
          const row: CellValue[] = [];
          for (let c = range.c0; c <= lastCol; c++) row.push(grid[r]?.[c] ?? '');
          rows.push(row);
        }
        const formatted = rows.map((row) => row.map((v) => (query.valueRenderOption === 'UNFORMATTED_VALUE' ? v : String(v))));
        let values: CellValue[][] = major === 'COLUMNS' ? Array.from({ length: formatted[0]?.length ?? 0 }, (_, c) => formatted.map((row) => row[c]!)) : formatted;
        values = values.map((line) => {
          const out = [...line];
          while (out.length && out[out.length - 1] === '') out.pop();
          return out;
        });
        while (values.length && values[values.length - 1]!.length === 0) values.pop();
        const echo = a1(range.sheet, range.c0, range.r0, range.c1 ?? Math.max(range.c0, lastCol), range.r1 ?? Math.max(range.r0, lastRow));
        return send(res, 200, { range: echo, majorDimension: major, ...(values.length ? { values } : {}) });
      }

      const input = query.valueInputOption;
      if (!input) return fail(res, 400, "'valueInputOption' is required but not specified");
      if (input !== 'RAW' && input !== 'USER_ENTERED') return fail(res, 400, `Invalid value at 'value_input_option' (TYPE_ENUM), "${input}"`);
      const values = (body as { values?: unknown })?.values;
      if (!Array.isArray(values) || !values.every(Array.isArray)) return fail(res, 400, "Invalid value at 'data.values' (type.googleapis.com/google.protobuf.ListValue)");
      const rows = values as unknown[][];
      const width = Math.max(0, ...rows.map((r) => r.length));

      if (req.method === 'POST' && verb === ':append') {
        // The table: the last row with data in the range's columns; new rows go below it.
        let last = -1;
        grid.forEach((row, r) => {
          if (r >= range.r0 && row.slice(range.c0, range.c1 === undefined ? undefined : range.c1 + 1).some((v) => v !== '')) last = r;
        });
        const start = Math.max(range.r0, last + 1);
        if (query.insertDataOption === 'INSERT_ROWS') grid.splice(Math.min(start, grid.length), 0, ...rows.map(() => [] as CellValue[]));
        rows.forEach((row, i) => row.forEach((v, c) => write(grid, start + i, range.c0 + c, v, input)));
        const updatedRange = a1(range.sheet, range.c0, start, range.c0 + width - 1, start + rows.length - 1);
        return send(res, 200, {
          spreadsheetId,
          ...(last >= 0 ? { tableRange: a1(range.sheet, range.c0, range.r0, range.c0 + width - 1, last) } : {}),
          updates: { spreadsheetId, updatedRange, updatedRows: rows.length, updatedColumns: width, updatedCells: rows.reduce((n, r) => n + r.length, 0) },
        });
      }
      if (req.method === 'PUT' && !verb) {
        if (range.c1 !== undefined && range.c0 + width - 1 > range.c1) {
          return fail(res, 400, `Requested writing within range [${rangeText}], but tried writing to column [${colLetters(range.c0 + width - 1)}]`);
        }
        if (range.r1 !== undefined && range.r0 + rows.length - 1 > range.r1) {
          return fail(res, 400, `Requested writing within range [${rangeText}], but tried writing to row [${range.r0 + rows.length}]`);
        }
        rows.forEach((row, i) => row.forEach((v, c) => write(grid, range.r0 + i, range.c0 + c, v, input)));
        return send(res, 200, {
          spreadsheetId,
          updatedRange: a1(range.sheet, range.c0, range.r0, range.c0 + width - 1, range.r0 + rows.length - 1),
          updatedRows: rows.length,
          updatedColumns: width,
          updatedCells: rows.reduce((n, r) => n + r.length, 0),
        });
      }
      return fail(res, 400, `Unsupported ${req.method} ${verb}`);
    })().catch((e: unknown) => fail(res, 500 as number, String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeSheets = {
    base: origin,
    tokenUrl: `${origin}/token`,
    spreadsheets,
    calls,
    tokenCalls,
    tokens,
    writeLimit: 60,
    writes: 0,
    bare429Next: false,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}
