// The libraries `require()` serves inside the sandbox, each with a small real use.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './index.js';
import type { HostCalls, SandboxJob, SandboxPool } from './index.js';

const host: HostCalls = {
  // The host fetch bridge for real: requests go out with Node's fetch.
  async fetch(req) {
    const res = await fetch(req.url, { method: req.method, headers: req.headers, ...(req.body !== null ? { body: req.body } : {}) });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  },
  globalGet: async () => null,
  globalSet: async () => {},
};

function job(script: string): SandboxJob {
  // Generous: the first require of cheerio/faker on a machine generates their bundle.
  return { script, variables: {}, request: { method: 'GET' }, timeoutMs: 60_000 };
}

/** Parses multipart bodies and answers with what it found, as JSON. */
function startMultipartServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const fields: Record<string, string> = {};
    const files: Array<{ field: string; filename: string; mimeType: string; content: string }> = [];
    let bb;
    try {
      bb = busboy({ headers: req.headers });
    } catch (err) {
      res.writeHead(400).end(String(err));
      return;
    }
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, content: Buffer.concat(chunks).toString('utf8') }));
    });
    bb.on('close', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ contentType: req.headers['content-type'], length: req.headers['content-length'], fields, files }));
    });
    req.pipe(bb);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('sandbox libraries', () => {
  let pool: SandboxPool;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    pool = createSandboxPool({ size: 2 });
    server = await startMultipartServer();
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
    await new Promise((r) => server.close(r));
  });

  it('cheerio: loads HTML and selects text', async () => {
    const r = await pool.run(
      job(`const cheerio = require('cheerio');
           const $ = cheerio.load('<html><head><title>Orders</title></head><body><ul><li class="a">one</li><li>two &amp; three</li></ul></body></html>');
           echo($('title').text(), '|', $('li.a').text(), '|', $('li').last().text(), '|', $('li').length);
           echo($('ul').children().map((i, el) => $(el).text()).get().join(','));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['Orders | one | two & three | 2', 'one,two & three']);
  }, 90_000);

  it('jsonpath (and jsonpath-plus): queries', async () => {
    const r = await pool.run(
      job(`const store = { book: [{ title: 'A', price: 5 }, { title: 'B', price: 15 }], bike: { price: 20 } };
           const jp = require('jsonpath');
           echo(JSON.stringify(jp.query(store, '$.book[?(@.price < 10)].title')));
           echo(JSON.stringify(jp.paths(store, '$..title')[1]), jp.value(store, '$.bike.price'));
           const { JSONPath } = require('jsonpath-plus');
           echo(JSON.stringify(JSONPath({ path: '$..price', json: store })));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['["A"]', '["$","book",1,"title"] 20', '[5,15,20]']);
  });

  it('faker: a name string (as @faker-js/faker and as faker)', async () => {
    const r = await pool.run(
      job(`const { faker } = require('@faker-js/faker');
           const name = faker.person.fullName();
           echo(typeof name, name.length > 3, name.includes(' '));
           faker.seed(42); const a = faker.person.firstName(); faker.seed(42); echo(a === faker.person.firstName());
           const f = require('faker');
           echo(f === faker, f.faker === f, typeof f.name.findName(), typeof f.internet.email());`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['string true true', 'true', 'true true string string']);
  }, 90_000);

  it('moment: formats a fixed date', async () => {
    const r = await pool.run(
      job(`const moment = require('moment');
           echo(moment.utc('2024-03-05T14:07:09Z').format('dddd, MMMM Do YYYY, HH:mm:ss'));
           echo(moment.utc('2024-03-05').add(1, 'month').format('YYYY-MM-DD'), moment.isMoment(moment()));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['Tuesday, March 5th 2024, 14:07:09', '2024-04-05 true']);
  });

  it('form-data: builds a multipart body that fetch and axios send to a server', async () => {
    const r = await pool.run(
      job(
        `const FormData = require('form-data');
           const form = new FormData();
           form.append('name', 'Ada');
           form.append('note', 'héllo "quoted"');
           form.append('count', 3);
           form.append('file', 'file contents\\nline 2', { filename: 'notes.txt', contentType: 'text/plain' });
           const res = await fetch(${JSON.stringify('URL')}, { method: 'POST', body: form });
           const got = await res.json();
           echo(res.status, got.contentType.startsWith('multipart/form-data; boundary=' + form.getBoundary()), Number(got.length) === form.getLengthSync());
           echo(JSON.stringify(got.fields));
           echo(JSON.stringify(got.files));
           const ax = await require('axios').post(${JSON.stringify('URL')}, form, { headers: form.getHeaders({ 'X-Extra': '1' }) });
           echo(JSON.stringify(ax.data.fields));
           const fd = new FormData(); fd.append('a', '1'); fd.set('b', 'x'); fd.append('b', 'y');
           echo(fd.get('a'), fd.getAll('b').join('+'), [...fd.keys()].join(','));`.replaceAll('"URL"', JSON.stringify(url)),
      ),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual([
      '200 true true',
      '{"name":"Ada","note":"héllo \\"quoted\\"","count":"3"}',
      '[{"field":"file","filename":"notes.txt","mimeType":"text/plain","content":"file contents\\nline 2"}]',
      '{"name":"Ada","note":"héllo \\"quoted\\"","count":"3"}',
      '1 x+y a,b,b',
    ]);
  });

  it('lodash: single methods, iteratee shorthands, per-method require, and the whole library when needed', async () => {
    const r = await pool.run(
      job(`const _ = require('lodash');
           const users = [{ name: 'a', age: 30, tags: ['x'] }, { name: 'b', age: 40, tags: [] }, { name: 'c', age: 30, tags: ['y'] }];
           echo(_.get({ a: [{ b: { c: 3 } }] }, 'a[0].b.c'), _.get({}, 'x.y', 'dflt'));
           echo(JSON.stringify(_.map(users, 'name')), JSON.stringify(_.filter(users, { age: 30 }).map((u) => u.name)));
           echo(JSON.stringify(_.find(users, ['name', 'b'])), JSON.stringify(Object.keys(_.groupBy(users, 'age'))));
           echo(_.isEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), JSON.stringify(_.cloneDeep(users[0])), _.sortBy(users, ['age', 'name']).map((u) => u.name).join(''));
           echo(require('lodash/get')({ k: 1 }, 'k'), require('lodash/get') === _.get, typeof _.nope, _.then, _.name);
           echo(JSON.stringify(_([3, 1, 2]).sortBy().map((x) => x * 2).value()), JSON.stringify(_.chain([1, 2]).head().value()));
           echo(_.VERSION.split('.')[0], _.template('hi <%= n %>')({ n: 1 }), 'map' in _, Object.keys(_).length > 250);
           _.mixin({ shout: (s) => s.toUpperCase() + '!' }); echo(_.shout('ok'), _('ok').shout().value());
           echo(JSON.stringify(_.uniq([1, 1, 2])), _.debounce !== undefined, JSON.stringify(_.merge({ a: { b: 1 } }, { a: { c: 2 } })));`),
      host,
    );
    expect(r.error).toBeNull();
    expect(r.output).toEqual([
      '3 dflt',
      '["a","b","c"] ["a","c"]',
      '{"name":"b","age":40,"tags":[]} ["30","40"]',
      'true {"name":"a","age":30,"tags":["x"]} acb',
      '1 true undefined undefined lodash',
      '[2,4,6] 1',
      '4 hi 1 true true',
      'OK! OK!',
      '[1,2] true {"a":{"b":1,"c":2}}',
    ]);
  });

  it('atob/btoa work on binary strings (and btoa takes text as UTF-8)', async () => {
    const r = await pool.run(job(`echo(btoa('user:pass'), atob('dXNlcjpwYXNz'), atob('/w==').charCodeAt(0), btoa(String.fromCharCode(255)), btoa('✓'));`), host);
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['dXNlcjpwYXNz user:pass 255 /w== 4pyT']);
  });

  it('the lazily defined globals can be replaced by the script', async () => {
    const r = await pool.run(job(`fetch = 1; var axios = 'mine'; echo(fetch, axios, typeof respond, typeof require('crypto').createHash)`), host);
    expect(r.error).toBeNull();
    expect(r.output).toEqual(['1 mine function function']);
  });
});
