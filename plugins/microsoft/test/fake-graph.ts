// A small Microsoft Graph v1.0 on loopback for the tests: OneDrive files by path (download answers
// with a redirect to a pre-authenticated URL, as Graph does), workbooks as in-memory sheets and
// tables, and the identity platform's token endpoint. Errors have Graph's shape
// `{"error": {"code", "message", "innerError"}}`.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Workbook {
  /** Sheet name -> rows of cells (row-major, from A1). */
  sheets: Record<string, Array<Array<string | number | boolean>>>;
  /** Table name -> its sheet, columns and rows. */
  tables: Record<string, { sheet: string; columns: string[]; rows: unknown[][] }>;
  /** Answer workbook calls with Microsoft's "permissions to open this file in the browser" 403. */
  denied?: boolean;
}

export interface DriveFile {
  id: string;
  path: string;
  data: Buffer;
  contentType: string;
  workbook?: Workbook;
}

export interface Call {
  method: string;
  /** Decoded path, e.g. `/v1.0/me/drive/root:/a b.txt:/content`. */
  path: string;
  rawUrl: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeGraph {
  base: string;
  tokenUrl: string;
  files: Map<string, DriveFile>;
  calls: Call[];
  downloads: Call[];
  tokenCalls: URLSearchParams[];
  tokens: Set<string>;
  throttleNext: boolean;
  addFile(path: string, data: string | Buffer, workbook?: Workbook): DriveFile;
  close(): Promise<void>;
}

export const OAUTH_APP = { refresh_token: 'rt-microsoft', client_id: 'ms-client', client_secret: 'ms-secret' };

function read(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (Buffer.isBuffer(body)) {
    res.writeHead(status, { 'content-type': 'application/octet-stream', 'content-length': String(body.length), ...headers });
    return res.end(body);
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const graphError = (res: http.ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>) =>
  send(res, status, { error: { code, message, innerError: { date: '2024-01-02T03:04:05', 'request-id': randomUUID(), 'client-request-id': randomUUID() } } }, headers);

/** `B12` -> [column 1, row 11]. */
function cellRef(ref: string): [number, number] | undefined {
  const m = /^\$?([A-Z]{1,3})\$?(\d+)$/.exec(ref.toUpperCase());
  if (!m) return undefined;
  const col = [...m[1]!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
  return [col, Number(m[2]) - 1];
}

export async function startFakeGraph(): Promise<FakeGraph> {
  const files = new Map<string, DriveFile>();
  const calls: Call[] = [];
  const downloads: Call[] = [];
  const tokenCalls: URLSearchParams[] = [];
  const tokens = new Set<string>(['ms-valid']);
  const grants = new Map<string, DriveFile>();
  let base = '';

  const item = (f: DriveFile) => ({
    id: f.id,
    name: f.path.slice(f.path.lastIndexOf('/') + 1),
    size: f.data.length,
    webUrl: `https://onedrive.example/personal/${encodeURIComponent(f.path)}`,
    file: { mimeType: f.contentType },
    parentReference: { path: `/drive/root:${f.path.slice(0, f.path.lastIndexOf('/'))}` },
  });
  const addFile = (path: string, data: string | Buffer, workbook?: Workbook): DriveFile => {
    const p = '/' + path.replace(/^\/+/, '');
    const f: DriveFile = { id: randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase(), path: p, data: Buffer.isBuffer(data) ? data : Buffer.from(data), contentType: 'application/octet-stream', workbook };
    files.set(p.toLowerCase(), f);
    return f;
  };

  function workbookCall(f: DriveFile, rest: string, method: string, body: Buffer, res: http.ServerResponse) {
    const wb = f.workbook;
    if (!wb) return graphError(res, 400, 'invalidRequest', 'The file is not a workbook.');
    if (wb.denied) return graphError(res, 403, 'AccessDenied', 'You do not have permissions to open this file in the browser.');
    let m: RegExpExecArray | null;
    if (method === 'GET' && rest === 'tables') return send(res, 200, { value: Object.keys(wb.tables).map((name, i) => ({ id: `{${i}}`, name })) });
    if ((m = /^tables\/([^/]+)\/rows\/add$/.exec(rest)) && method === 'POST') {
      const table = wb.tables[m[1]!];
      if (!table) return graphError(res, 404, 'ItemNotFound', "The requested resource doesn't exist.");
      let input: { index?: number | null; values?: unknown };
      try {
        input = JSON.parse(body.toString('utf8')) as typeof input;
      } catch {
        return graphError(res, 400, 'BadRequest', 'Unable to read JSON request payload.');
      }
      const values = input.values;
      if (!Array.isArray(values) || !values.every((r) => Array.isArray(r) && r.length === table.columns.length)) {
        return graphError(res, 400, 'InvalidArgument', 'The argument is invalid or missing or has an incorrect format.');
      }
      const index = typeof input.index === 'number' ? Math.min(input.index, table.rows.length) : table.rows.length;
      table.rows.splice(index, 0, ...(values as unknown[][]));
      return send(res, 201, { '@odata.context': `${base}/$metadata#workbookTableRow`, index, values });
    }
    if ((m = /^worksheets\/([^/]+)\/range\(address='((?:[^']|'')*)'\)$/.exec(rest)) && method === 'GET') {
      const sheetName = m[1]!;
      const sheet = wb.sheets[sheetName];
      if (!sheet) return graphError(res, 404, 'ItemNotFound', "The requested resource doesn't exist.");
      const [from, to = from] = m[2]!.replace(/''/g, "'").split(':');
      const a = cellRef(from ?? '');
      const b = cellRef(to ?? '');
      if (!a || !b) return graphError(res, 400, 'InvalidArgument', 'The argument is invalid or missing or has an incorrect format.');
      const values: unknown[][] = [];
      for (let r = a[1]; r <= b[1]; r++) {
        const row: unknown[] = [];
        for (let c = a[0]; c <= b[0]; c++) row.push(sheet[r]?.[c] ?? '');
        values.push(row);
      }
      const text = values.map((row) => row.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : String(v))));
      return send(res, 200, { address: `${sheetName}!${m[2]}`, rowCount: values.length, columnCount: values[0]?.length ?? 0, values, text });
    }
    return graphError(res, 400, 'BadRequest', `Unsupported workbook call ${method} ${rest}`);
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const rawUrl = req.url ?? '/';
      const url = new URL(rawUrl, 'http://x');
      if (url.pathname === '/common/oauth2/v2.0/token') {
        const form = new URLSearchParams(body.toString('utf8'));
        tokenCalls.push(form);
        if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== OAUTH_APP.refresh_token || form.get('client_id') !== OAUTH_APP.client_id || form.get('client_secret') !== OAUTH_APP.client_secret) {
          return send(res, 400, { error: 'invalid_grant', error_description: 'AADSTS70000: The provided value for the refresh_token is not valid.', error_codes: [70000] });
        }
        const token = `ms-renewed-${tokenCalls.length}`;
        tokens.add(token);
        return send(res, 200, { token_type: 'Bearer', scope: form.get('scope') ?? '', expires_in: 3600, access_token: token, refresh_token: 'rt-new' });
      }
      const grant = /^\/download\/([^/]+)$/.exec(url.pathname);
      if (grant) {
        downloads.push({ method: req.method ?? '', path: url.pathname, rawUrl, headers: req.headers, body });
        const f = grants.get(grant[1]!);
        if (!f) return send(res, 404, Buffer.from('expired'));
        return send(res, 200, f.data);
      }
      const path = decodeURIComponent(url.pathname);
      calls.push({ method: req.method ?? '', path, rawUrl, headers: req.headers, body });
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      if (!auth || !tokens.has(auth[1]!)) return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token has expired or is not yet valid.');
      if (fake.throttleNext) {
        fake.throttleNext = false;
        return graphError(res, 429, 'TooManyRequests', 'Too many requests.', { 'retry-after': '7' });
      }
      const m = /^\/v1\.0\/me\/drive\/root:(\/[^:]+):\/(.+)$/.exec(path);
      if (!m) return graphError(res, 400, 'BadRequest', `Resource not found for the segment '${path}'.`);
      const [, filePath, rest] = m as unknown as [string, string, string];
      const existing = files.get(filePath.toLowerCase());
      if (rest === 'content' && req.method === 'PUT') {
        const f = addFile(filePath, body);
        f.contentType = String(req.headers['content-type'] ?? 'application/octet-stream');
        return send(res, existing ? 200 : 201, item(f));
      }
      if (!existing) return graphError(res, 404, 'itemNotFound', 'The resource could not be found.');
      if (rest === 'content' && req.method === 'GET') {
        const id = randomUUID();
        grants.set(id, existing);
        res.writeHead(302, { location: `${base.replace(/\/v1\.0$/, '')}/download/${id}` });
        return res.end();
      }
      if (rest.startsWith('workbook/')) return workbookCall(existing, rest.slice('workbook/'.length), req.method ?? '', body, res);
      return graphError(res, 400, 'BadRequest', `Unsupported call ${req.method} ${rest}`);
    })().catch((e: unknown) => send(res, 500, { error: { code: 'generalException', message: String(e) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `${origin}/v1.0`;
  const fake: FakeGraph = {
    base,
    tokenUrl: `${origin}/common/oauth2/v2.0/token`,
    files,
    calls,
    downloads,
    tokenCalls,
    tokens,
    throttleNext: false,
    addFile,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}
