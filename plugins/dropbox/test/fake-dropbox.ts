// A small Dropbox API v2 on loopback for the tests: the RPC host (api) and the content host
// (content) are two servers, as in production, each answering only its own endpoints. Files live in
// memory; answers and errors have Dropbox's shapes (409 `{"error_summary", "error"}` for an
// endpoint's errors, 400 plain text for a malformed call, 401 for a bad token).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeFile {
  path: string;
  id: string;
  rev: string;
  data: Buffer;
}

export interface Call {
  host: 'api' | 'content';
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The RPC body or the Dropbox-API-Arg header, parsed. */
  arg: unknown;
  body: Buffer;
}

export interface FakeDropbox {
  api: string;
  content: string;
  tokenUrl: string;
  files: Map<string, FakeFile>;
  folders: Map<string, string>;
  links: Map<string, { url: string; audience: string }>;
  calls: Call[];
  tokenCalls: URLSearchParams[];
  /** Access tokens the API accepts. */
  tokens: Set<string>;
  /** Answer the next API call with 429 (too_many_write_operations). */
  throttleNext: boolean;
  addFile(path: string, data: string | Buffer): FakeFile;
  close(): Promise<void>;
}

const REFRESH_TOKEN = 'rt-dropbox';
const CLIENT_ID = 'app-key';
const CLIENT_SECRET = 'app-secret';
export const OAUTH_APP = { refresh_token: REFRESH_TOKEN, client_id: CLIENT_ID, client_secret: CLIENT_SECRET };

const headerSafe = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function read(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json', ...headers });
  res.end(text);
}

const routeError = (tag: string, inner: string, leaf: string) => ({
  error_summary: `${inner}/${leaf}/..`,
  error: { '.tag': tag, [tag]: { '.tag': leaf } },
});

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function startFakeDropbox(): Promise<FakeDropbox> {
  const files = new Map<string, FakeFile>();
  const folders = new Map<string, string>();
  const links = new Map<string, { url: string; audience: string }>();
  const calls: Call[] = [];
  const tokenCalls: URLSearchParams[] = [];
  const tokens = new Set<string>(['at-valid']);
  let revs = 0;
  let urls = { api: '', content: '' };

  const name = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const fileMeta = (f: FakeFile) => ({ '.tag': 'file', name: name(f.path), id: f.id, path_lower: f.path.toLowerCase(), path_display: f.path, rev: f.rev, size: f.data.length, server_modified: '2024-01-02T03:04:05Z' });
  const folderMeta = (p: string) => ({ '.tag': 'folder', name: name(p), id: `id:${Buffer.from(p.toLowerCase()).toString('hex').slice(0, 12)}`, path_lower: p.toLowerCase(), path_display: p });
  const addFolders = (p: string) => {
    const parts = p.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) {
      const sub = '/' + parts.slice(0, i).join('/');
      if (!folders.has(sub.toLowerCase())) folders.set(sub.toLowerCase(), sub);
    }
  };
  const addFile = (path: string, data: string | Buffer): FakeFile => {
    addFolders(path.slice(0, path.lastIndexOf('/')));
    const f = { path, id: `id:${randomUUID().slice(0, 8)}`, rev: `015${(++revs).toString(16).padStart(6, '0')}`, data: Buffer.isBuffer(data) ? data : Buffer.from(data) };
    files.set(path.toLowerCase(), f);
    return f;
  };
  const malformed = (p: unknown) => typeof p !== 'string' || !/^(\/|id:|rev:|ns:)/.test(p) || (p.length > 1 && p.endsWith('/'));

  function rpc(endpoint: string, arg: Record<string, unknown>, res: http.ServerResponse) {
    const path = arg.path as string;
    if (malformed(path)) return send(res, 409, routeError('path', 'path', 'malformed_path'));
    const key = path.toLowerCase();
    switch (endpoint) {
      case 'files/create_folder_v2':
        if (files.has(key)) return send(res, 409, { error_summary: 'path/conflict/file/..', error: { '.tag': 'path', path: { '.tag': 'conflict', conflict: { '.tag': 'file' } } } });
        if (folders.has(key)) return send(res, 409, { error_summary: 'path/conflict/folder/..', error: { '.tag': 'path', path: { '.tag': 'conflict', conflict: { '.tag': 'folder' } } } });
        addFolders(path);
        return send(res, 200, { metadata: folderMeta(path) });
      case 'files/delete_v2': {
        const f = files.get(key);
        if (f) {
          files.delete(key);
          return send(res, 200, { metadata: fileMeta(f) });
        }
        const folder = folders.get(key);
        if (folder) {
          for (const k of [...files.keys()]) if (k.startsWith(key + '/')) files.delete(k);
          for (const k of [...folders.keys()]) if (k === key || k.startsWith(key + '/')) folders.delete(k);
          return send(res, 200, { metadata: folderMeta(folder) });
        }
        return send(res, 409, routeError('path_lookup', 'path_lookup', 'not_found'));
      }
      case 'files/get_metadata': {
        const f = files.get(key);
        if (f) return send(res, 200, fileMeta(f));
        if (folders.has(key)) return send(res, 200, folderMeta(folders.get(key)!));
        return send(res, 409, routeError('path', 'path', 'not_found'));
      }
      case 'files/get_temporary_link': {
        const f = files.get(key);
        if (f) return send(res, 200, { metadata: fileMeta(f), link: `${urls.content}/apitl/1/${f.id.slice(3)}` });
        if (folders.has(key)) return send(res, 409, routeError('path', 'path', 'not_file'));
        return send(res, 409, routeError('path', 'path', 'not_found'));
      }
      case 'sharing/create_shared_link_with_settings': {
        const f = files.get(key);
        if (!f) return send(res, 409, routeError('path', 'path', 'not_found'));
        const settings = (arg.settings ?? {}) as { audience?: unknown };
        const audience = typeof settings.audience === 'string' ? settings.audience : ((settings.audience as { '.tag'?: string } | undefined)?.['.tag'] ?? 'public');
        if (!['public', 'team', 'no_one', 'members', 'password'].includes(audience))
          return send(res, 400, `Error in call to API function "sharing/create_shared_link_with_settings": settings.audience: unknown tag '${audience}'`);
        if (links.has(key)) return send(res, 409, { error_summary: 'shared_link_already_exists/..', error: { '.tag': 'shared_link_already_exists' } });
        const link = { url: `https://www.dropbox.com/scl/fi/${f.id.slice(3)}/${encodeURIComponent(name(f.path))}?rlkey=k${links.size}&dl=0`, audience };
        links.set(key, link);
        return send(res, 200, { '.tag': 'file', url: link.url, name: name(f.path), path_lower: key, link_permissions: { resolved_visibility: { '.tag': audience } } });
      }
      case 'sharing/list_shared_links': {
        const l = links.get(key);
        return send(res, 200, { links: l ? [{ '.tag': 'file', url: l.url, path_lower: key }] : [], has_more: false });
      }
      default:
        return send(res, 400, `Unknown API function: "${endpoint}"`);
    }
  }

  function content(endpoint: string, arg: Record<string, unknown>, body: Buffer, req: http.IncomingMessage, res: http.ServerResponse) {
    const path = arg.path as string;
    if (endpoint === 'files/download') {
      if (malformed(path)) return send(res, 409, routeError('path', 'path', 'malformed_path'));
      const f = files.get(path.toLowerCase());
      if (!f) return send(res, 409, routeError('path', 'path', folders.has(path.toLowerCase()) ? 'not_file' : 'not_found'));
      return send(res, 200, f.data, { 'dropbox-api-result': headerSafe(fileMeta(f)) });
    }
    if (endpoint === 'files/upload') {
      if (req.headers['content-type'] !== 'application/octet-stream') {
        return send(
          res,
          400,
          `Error in call to API function "files/upload": Bad HTTP "Content-Type" header: "${req.headers['content-type'] ?? ''}".  Expecting one of "application/octet-stream", "text/plain; charset=dropbox-cors-hack".`,
        );
      }
      if (malformed(path)) return send(res, 409, { error_summary: 'path/malformed_path/..', error: { '.tag': 'path', reason: { '.tag': 'malformed_path' }, upload_session_id: 'x' } });
      const conflict = (leaf: 'file' | 'folder') =>
        send(res, 409, { error_summary: `path/conflict/${leaf}/..`, error: { '.tag': 'path', reason: { '.tag': 'conflict', conflict: { '.tag': leaf } }, upload_session_id: 'x' } });
      const key = path.toLowerCase();
      if (folders.has(key)) return conflict('folder');
      const mode = typeof arg.mode === 'string' ? { '.tag': arg.mode } : ((arg.mode ?? { '.tag': 'add' }) as { '.tag': string; update?: string });
      const existing = files.get(key);
      let target = path;
      if (existing && mode['.tag'] === 'add') {
        if (!arg.autorename) return conflict('file');
        const dot = path.lastIndexOf('.');
        const [base, ext] = dot > path.lastIndexOf('/') ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
        for (let i = 1; files.has(target.toLowerCase()); i++) target = `${base} (${i})${ext}`;
      }
      if (mode['.tag'] === 'update' && (!existing || existing.rev !== mode.update)) return conflict('file');
      if (!['add', 'overwrite', 'update'].includes(mode['.tag'])) return send(res, 400, `Error in call to API function "files/upload": mode: unknown tag '${mode['.tag']}'`);
      return send(res, 200, fileMeta(addFile(target, body)));
    }
    return send(res, 400, `Unknown API function: "${endpoint}"`);
  }

  function handler(host: 'api' | 'content'): http.RequestListener {
    return (req, res) => {
      void (async () => {
        const body = await read(req);
        const url = new URL(req.url ?? '/', 'http://x');
        if (host === 'api' && url.pathname === '/oauth2/token') {
          const form = new URLSearchParams(body.toString('utf8'));
          tokenCalls.push(form);
          if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return send(res, 400, { error: 'invalid_request', error_description: 'bad content type' });
          if (form.get('grant_type') !== 'refresh_token') return send(res, 400, { error: 'unsupported_grant_type' });
          if (form.get('refresh_token') !== REFRESH_TOKEN || form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
            return send(res, 400, { error: 'invalid_grant', error_description: 'refresh token is invalid or revoked' });
          }
          const token = `at-renewed-${tokenCalls.length}`;
          tokens.add(token);
          return send(res, 200, { access_token: token, token_type: 'bearer', expires_in: 14400 });
        }
        const endpoint = url.pathname.replace(/^\/2\//, '');
        const isContent = endpoint === 'files/upload' || endpoint === 'files/download';
        if (req.method !== 'POST') return send(res, 400, `Error in call to API function "${endpoint}": Expecting POST`);
        if (isContent !== (host === 'content')) return send(res, 400, `Error in call to API function "${endpoint}": This function is only available on ${isContent ? 'content' : 'api'}.dropboxapi.com`);
        let arg: Record<string, unknown>;
        try {
          if (isContent) {
            const header = req.headers['dropbox-api-arg'];
            if (typeof header !== 'string') return send(res, 400, `Error in call to API function "${endpoint}": Must provide HTTP header "Dropbox-API-Arg" or URL parameter "arg".`);
            if (/[^\x20-\x7e]/.test(header)) return send(res, 400, `Error in call to API function "${endpoint}": HTTP header "Dropbox-API-Arg": could not decode input as JSON`);
            arg = JSON.parse(header) as Record<string, unknown>;
          } else {
            if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
              return send(
                res,
                400,
                `Error in call to API function "${endpoint}": Bad HTTP "Content-Type" header: "${req.headers['content-type'] ?? ''}".  Expecting one of "application/json", "application/json; charset=utf-8", "text/plain; charset=dropbox-cors-hack".`,
              );
            }
            arg = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
          }
        } catch {
          return send(res, 400, `Error in call to API function "${endpoint}": request body: could not decode input as JSON`);
        }
        calls.push({ host, method: req.method, path: url.pathname, headers: req.headers, arg, body });
        const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
        if (!auth || !tokens.has(auth[1]!)) return send(res, 401, { error_summary: 'expired_access_token/..', error: { '.tag': 'expired_access_token' } });
        if (fake.throttleNext) {
          fake.throttleNext = false;
          return send(res, 429, { error_summary: 'too_many_write_operations/..', error: { reason: { '.tag': 'too_many_write_operations' }, retry_after: 1 } }, { 'retry-after': '1' });
        }
        if (isContent) return content(endpoint, arg, body, req, res);
        return rpc(endpoint, arg, res);
      })().catch((e: unknown) => send(res, 500, String(e)));
    };
  }

  const api = await listen(handler('api'));
  const cont = await listen(handler('content'));
  urls = { api: api.url, content: cont.url };
  const fake: FakeDropbox = {
    api: api.url,
    content: cont.url,
    tokenUrl: `${api.url}/oauth2/token`,
    files,
    folders,
    links,
    calls,
    tokenCalls,
    tokens,
    throttleNext: false,
    addFile,
    close: async () => {
      await Promise.all(
        [api.server, cont.server].map((s) => {
          s.closeAllConnections();
          return new Promise<void>((r) => s.close(() => r()));
        }),
      );
    },
  };
  return fake;
}
