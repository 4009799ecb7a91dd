// What a script does to the chain: variables in and out, Global Variables, the response, stop and
// dont_save, the request's files, HTTP through ctx.services.http (a local server), hosted databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, memoryGlobals, stubDatabases, validateParams } from '@capture/sdk/testing';
import { script } from '../src/script.js';
import { error, output, run } from './helpers.js';
import { localServer, type Answer, type LocalServer } from './local-server.js';

let server: LocalServer;
const http = { http: fetchHttpClient };

beforeAll(async () => {
  server = await localServer((req): ReturnType<Answer> => {
    if (req.url === '/json') return { headers: { 'content-type': 'application/json', 'x-id': '7' }, body: '{"value": 42}' };
    if (req.url === '/missing') return { status: 404, body: 'nope' };
    if (req.url === '/slow') return { delayMs: 3000, body: 'late' };
    if (req.url === '/binary') return { body: Buffer.from([0xff, 0x00, 0x80]) };
    if (req.url === '/lib.ws') return { body: 'greeting = "hello " + name\nreturn greeting.string_upper()' };
    if (req.url.split('?')[0] === '/echo') return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: req.body.toString('latin1') }) };
    return { body: 'ok' };
  });
});

afterAll(async () => {
  await server.close();
});

describe('variables', () => {
  it('reads action and request variables with var()/get(), with or without dollar signs', async () => {
    const r = await run("dump(var('name'), var('$name$'), get('name'), var('request.method'), var('request.header.x-a'), var('missing'), var('missing', 'd'))", {
      vars: { name: 'Ann' },
      request: { headers: { 'x-a': ['b'] } },
    });
    expect(r.output).toEqual(['"Ann"\n"Ann"\n"Ann"\n"POST"\n"b"\nnull\n"d"']);
  });

  it('exports variables with set() for the next actions, arrays as JSON', async () => {
    const r = await run("set('a', 'text')\nset('$b$', 5)\nset('c', ['x': 1])\nset('d', true)\necho(var('a'))");
    expect(r.vars).toMatchObject({ a: 'text', b: '5', c: '{"x":1}', d: 'true' });
    expect(r.output).toEqual(['text']);
  });

  it('lists the variables in `variables`', async () => {
    const r = await run("dump(variables['request.header.user-agent'], variables['mine'])", { vars: { mine: 'v' } });
    expect(r.output).toEqual(['"vitest"\n"v"']);
  });

  it('reads Global Variables and stores them with store()', async () => {
    const globals = memoryGlobals({ api_key: 'secret' });
    const r = await run("echo(var('api_key'))\nstore('count', 3)\nstore('list', [1, 2])\necho(var('count'))", { services: { globals } });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['secret', '3']);
    expect(Object.fromEntries(globals.values)).toEqual({ api_key: 'secret', count: '3', list: '[1,2]' });
  });

  it('delete() removes a Global Variable (more in actions.test.ts)', async () => {
    expect(await output("echo(delete('x'))", { globals: { x: '1' } })).toEqual(['true']);
  });
});

describe('the response and the chain', () => {
  it('respond() sets content, status and headers and stops', async () => {
    const r = await run("respond('{\"ok\":true}', 202, ['Content-Type: application/json', 'X-One: 1'])\necho('not reached')");
    expect(r.response).toEqual({ status: 202, content: '{"ok":true}', contentType: 'application/json', headers: { 'X-One': '1' } });
    expect(r.stopped).toBe(true);
    expect(r.output).toEqual([]);
  });

  it('set_response(), set_content(), set_status() and set_header() change the response and go on', async () => {
    const r = await run("set_response('a', 201, ['X-A': 'b'])\nset_content('body')\nset_status(418)\nset_header('X-B', 'c')\nset_header('content-type', 'text/html')\necho('went on')");
    expect(r.response).toEqual({ status: 418, content: 'body', contentType: 'text/html', headers: { 'X-A': 'b', 'X-B': 'c' } });
    expect(r.stopped).toBe(false);
    expect(r.output).toEqual(['went on']);
  });

  it('refuses invalid statuses and header names', async () => {
    expect(await error('set_status(99)')).toBe('Error at line 1:1: set_status(): 99 is not an HTTP status code (100-599)');
    expect(await error("set_header('Bad Name', 'x')")).toBe('Error at line 1:1: set_header(): "Bad Name" is not a valid header name');
  });

  it('stop() ends the script and the chain; dont_save() marks the request', async () => {
    const r = await run("dont_save()\necho('a')\nstop()\necho('b')");
    expect(r.output).toEqual(['a']);
    expect(r.stopped).toBe(true);
    expect(r.dontSave).toBe(true);
  });

  it('dd() dumps and stops', async () => {
    const r = await run("dd(['a': 1])\necho('b')");
    expect(r.output).toEqual(['["a": 1]']);
    expect(r.stopped).toBe(true);
  });

  it('writes echo, print, dump and note lines to the output', async () => {
    expect(await output("echo('a', 1, true, null, [1])\nprint('p')\ndump('s', 2)\nnote('n')")).toEqual(['a 1 true  [1]', 'p', '"s"\n2', 'Note: n']);
  });

  it('exec() runs code in the current scope', async () => {
    expect(await output("x = 2\ny = exec('z = x * 10\\nreturn z + 1')\ndump(y, z)\ndump(exec('x + 1'))")).toEqual(['21\n20', '3']);
    expect(await error("exec('a = (')")).toBe('Error at line 1:1: exec(): Syntax error at line 1:6: Unexpected end of the script: an expression is missing');
  });

  it('import() downloads code and runs it in the current scope', async () => {
    expect(
      await output(
        `name = "world"\nresult = import('${'URL'}/lib.ws')\necho(result)`.replace('URL', () => server.url),
        { services: http },
      ),
    ).toEqual(['HELLO WORLD']);
    expect(await error(`import('${server.url}/missing')`, { services: http })).toBe(`Error at line 1:1: import(): could not download ${server.url}/missing: status 404`);
  });

  it('deprecated delay() hands its code to the chain to queue (more in actions.test.ts)', async () => {
    expect((await run("delay(5, 'echo(1)')")).later).toEqual([{ delay: 5, type: 'script', parameters: { script: 'echo(1)' } }]);
  });
});

describe('files', () => {
  const files = [
    { id: 'f-1', name: 'doc', filename: 'a.txt', size: 5, content_type: 'text/plain', content: Buffer.from('hello') },
    { id: 'f-2', name: 'img', filename: 'b.png', size: 3, content_type: 'image/png', content: Buffer.from([0x89, 0x50, 0xff]) },
  ];

  it('lists the files and filters them', async () => {
    const r = await run("for (file in files()) {\n  if (r'.*\\.png'.match(file['filename'])) { dump(file['filename'] + ' is png.') }\n}\ndump(files('doc').length(), files()[0]['content_type'])", { request: { files } });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['"b.png is png."', '1\n"text/plain"']);
  });

  it('reads a file by id, bytes as bytes', async () => {
    const r = await run("firstFile = array_get(files(), 0)\nfileContent = file_contents(firstFile['id'])\necho(fileContent)\necho(bin2hex(file_content('f-2')))\necho(base64_encode(file_content('img')))", {
      request: { files },
    });
    expect(r.output).toEqual(['hello', '8950ff', Buffer.from([0x89, 0x50, 0xff]).toString('base64')]);
    expect(await error("file_content('nope')", { request: { files } })).toBe('Error at line 1:1: file_content(): there is no file "nope" in this request');
  });
});

describe('HTTP through ctx.services.http', () => {
  it('request() sends method, headers and body and gives content, status, headers and url', async () => {
    const r = await run(
      `res = request('${server.url}/echo', '{"a":1}', 'PUT', ['Content-Type: application/json', 'X-Token: t'])
sent = json_decode(res['content'])
dump(res['status'], sent['method'], sent['headers']['x-token'], sent['body'], res['headers']['content-type'], res['url'])`,
      { services: http },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual([`200\n"PUT"\n"t"\n"{\\"a\\":1}"\n"application/json"\n"${server.url}/echo"`]);
  });

  it('request() GETs by default; a 404 is a status, not an error', async () => {
    const r = await run(`res = request('${server.url}/json')\ndump(json_decode(res['content'])['value'], res['headers']['x-id'])\nmiss = request('${server.url}/missing')\ndump(miss['status'], miss['content'])`, {
      services: http,
    });
    expect(r.output).toEqual(['42\n"7"', '404\n"nope"']);
  });

  it('a request that fails gives status null and the error as content', async () => {
    const r = await run(`res = request('http://127.0.0.1:1/x')\ndump(res['status'])\necho(res['content'])`, { services: http });
    expect(r.errors).toEqual([]);
    expect(r.output[0]).toBe('null');
    expect(r.output[1]).toMatch(/fetch failed|ECONNREFUSED/);
  });

  it('times out after the timeout argument', async () => {
    const r = await run(`res = request('${server.url}/slow', '', 'GET', [], false, 0.2)\ndump(res['status'], res['content'])`, { services: http });
    expect(r.output).toEqual(['null\n"Request timed out after 0.2 s"']);
  });

  it('keeps binary response bodies as bytes', async () => {
    const r = await run(`echo(bin2hex(request('${server.url}/binary')['content']))`, { services: http });
    expect(r.output).toEqual(['ff0080']);
  });

  it('http() sends text, urlencoded, multipart and forward requests', async () => {
    const r = await run(
      `u = '${server.url}/echo'
a = http(u, ['method': 'POST', 'content': '{"example": "json"}', 'headers': ['Content-Type: application/json']])['content'].json_decode()
b = http(u, ['mode': 'urlencoded', 'urlencoded': [['name': 'a b', 'value': 'ç']]])['content'].json_decode()
c = http(u, ['method': 'POST', 'mode': 'multipart', 'multipart': [['name': 'value1', 'content': 'This is a value'], ['name': 'f', 'filename': 'x.txt', 'content-type': 'text/plain', 'content': 'hi']]])['content'].json_decode()
d = http(u, ['mode': 'forward', 'headers': ['X-Extra: 1']])['content'].json_decode()
dump(a['method'], a['body'], b['method'], b['body'], b['headers']['content-type'])
echo(c['body'])
dump(c['headers']['content-type'] == r'^multipart/form-data; boundary=')
dump(d['method'], d['url'], d['body'], d['headers']['x-original'], d['headers']['x-extra'])`,
      { services: http, request: { method: 'PATCH', url: 'http://localhost:8084/abc?q=1', content: 'orig', headers: { 'x-original': ['yes'], host: ['localhost:8084'] } } },
    );
    expect(r.errors).toEqual([]);
    expect(r.output[0]).toBe('"POST"\n"{\\"example\\": \\"json\\"}"\n"POST"\n"a+b=%C3%A7"\n"application/x-www-form-urlencoded"');
    expect(r.output[1]).toMatch(
      /^--(-+WebhookScript\w+)\r\nContent-Disposition: form-data; name="value1"\r\n\r\nThis is a value\r\n--\1\r\nContent-Disposition: form-data; name="f"; filename="x.txt"\r\nContent-Type: text\/plain\r\n\r\nhi\r\n--\1--\r\n$/,
    );
    expect(r.output[2]).toBe('true');
    expect(r.output[3]).toBe('"PATCH"\n"/echo?q=1"\n"orig"\n"yes"\n"1"');
  });

  it('multipart() uploads items', async () => {
    const r = await run(
      `res = multipart('${server.url}/echo', [['name': 'file[]', 'filename': 'file1.txt', 'content': 'hello world', 'headers': ['Header1': 'value']], ['name': 'client_id', 'content': 'abcd123']], 'POST', ['Api-Key: xxxx'])
sent = res['content'].json_decode()
dump(sent['headers']['api-key'], sent['body'].contains('Header1: value'), sent['body'].contains('name="client_id"'))`,
      { services: http },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['"xxxx"\ntrue\ntrue']);
  });

  it('only sends http(s) URLs, and at most the configured number of requests', async () => {
    expect(await error("request('file:///etc/passwd')", { services: http })).toBe('Error at line 1:1: request(): "file:///etc/passwd" is not an http(s) URL');
    expect(await error(`for (i in 1..5) { request('${server.url}/json') }`, { services: http, limits: { maxHttpRequests: 3 } })).toBe('Error at line 1:19: A script may send at most 3 HTTP requests');
  });
});

describe('hosted databases', () => {
  it('db() gives a function that runs statements with parameters', async () => {
    const databases = stubDatabases((id, sql, _params) => (sql.startsWith('select') ? { result: [{ name: 'example', email: 'user@example.com', at: new Date(Date.UTC(2024, 0, 1)) }] } : { result: [], rows: 1 }));
    const r = await run(
      `mydb = db('mydb')
res = mydb('insert into users (name, email) values (?, ?)', [get('request.query.name'), 'a@b.c'])
dump(res)
res = mydb('select * from users where email = :email', ['email': 'user@example.com'])
dump(res['result'])`,
      { services: { databases }, request: { query: { name: 'Ann' } } },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['["result": [], "error": null, "rows": 1, "time": 0]', '[0: ["name": "example", "email": "user@example.com", "at": "2024-01-01T00:00:00.000Z"]]']);
    expect(databases.calls).toEqual([
      { id: 'mydb', sql: 'insert into users (name, email) values (?, ?)', params: ['Ann', 'a@b.c'] },
      { id: 'mydb', sql: 'select * from users where email = :email', params: { email: 'user@example.com' } },
    ]);
  });

  it('gives SQL errors in `error`', async () => {
    const databases = stubDatabases(() => ({ result: null, error: 'relation "nonexisting" does not exist' }));
    expect(await output("dump(db('x')('select * from nonexisting')['error'])", { services: { databases } })).toEqual(['"relation \\"nonexisting\\" does not exist"']);
  });
});

describe('parameters', () => {
  it('requires the script', () => {
    expect(validateParams(script, { script: 'echo(1)' })).toEqual({ script: 'echo(1)' });
    expect(() => validateParams(script, {})).toThrow(/script/);
    expect(() => validateParams(script, { script: 5 })).toThrow(/script/);
  });

  it('does not replace $variables$ in the script', async () => {
    const r = await run("echo('$name$')", { vars: { name: 'Ann' } });
    expect(r.output).toEqual(['$name$']);
  });
});
