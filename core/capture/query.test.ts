// Repeated query keys: `query` keeps the last value (the seed's string -> string map), `query_all`
// keeps every value, in the API, in Custom Action variables and in storage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { createActionsModule } from '../actions/module.js';
import { RequestView } from './request-view.js';
import { queryAllOf, queryOf } from './query.js';

describe('queryOf', () => {
  it('keeps the last value in query and every value in extra.query_all when a key repeats', () => {
    const extra: Record<string, unknown> = {};
    expect(queryOf('tags[]=a&x=1&tags[]=b&tags[]=a', extra)).toEqual({ 'tags[]': 'a', x: '1' });
    expect(extra).toEqual({ query_all: { 'tags[]': ['a', 'b', 'a'], x: ['1'] } });
  });

  it('stores nothing more when no key repeats', () => {
    const extra: Record<string, unknown> = {};
    expect(queryOf('a=1&b=&c', extra)).toEqual({ a: '1', b: '', c: '' });
    expect(extra).toEqual({});
    expect(queryOf('', extra)).toBeNull();
    expect(extra).toEqual({});
  });

  it('keeps keys that a plain object cannot hold in query_all', () => {
    const extra: Record<string, unknown> = {};
    queryOf('__proto__=x&constructor=y&constructor=z', extra);
    expect(JSON.stringify(extra)).toBe('{"query_all":{"__proto__":["x"],"constructor":["y","z"]}}');
  });
});

describe('queryAllOf', () => {
  it('is what was stored, or each query value on its own, or null without a query', () => {
    expect(queryAllOf({ a: 'b' }, { query_all: { a: ['a', 'b'] } })).toEqual({ a: ['a', 'b'] });
    expect(queryAllOf({ a: '1', b: '2' }, {})).toEqual({ a: ['1'], b: ['2'] });
    expect(queryAllOf(null, {})).toBeNull();
  });
});

describe('repeated query keys through the service', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({}, { modules: [createActionsModule()] });
  });
  afterAll(() => s?.close());

  it('the request API returns query (last values) and query_all (every value)', async () => {
    const t = await s.token();
    const r = await s.call('GET', `/${t.uuid}/path?tags[]=a&x=1&tags[]=b`);
    expect(r.status).toBe(200);
    const one = await s.call('GET', `/token/${t.uuid}/request/${r.headers.get('x-request-id')}`);
    expect(one.data.query).toEqual({ 'tags[]': 'b', x: '1' });
    expect(one.data.query_all).toEqual({ 'tags[]': ['a', 'b'], x: ['1'] });
    expect(RequestView.parse(one.data)).toMatchObject({ query_all: one.data.query_all }); // as documented
    // Captures without repeats and without a query string have the same shape.
    await s.call('GET', `/${t.uuid}?x=1`);
    await s.call('GET', `/${t.uuid}`);
    const list = (await s.call('GET', `/token/${t.uuid}/requests?sorting=oldest`)).data.data;
    expect(list.map((q: any) => q.query_all)).toEqual([{ 'tags[]': ['a', 'b'], x: ['1'] }, { x: ['1'] }, null]);
  });

  it('Custom Actions read every value as $request.query_all.<key>$ and by position', async () => {
    const t = await s.token({ actions: true });
    const add = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: {
        type: 'modify_response',
        parameters: { content: 'last=$request.query.tags[]$ all=$request.query_all.tags[]$ first=$request.query_all.tags[].0$ x=$request.query_all.x.0$' },
      },
    });
    expect(add.status, add.text).toBe(200);
    const r = await s.call('GET', `/${t.uuid}?tags[]=a&tags[]=b&x=1`);
    expect(r.text).toBe('last=b all=["a","b"] first=a x=1');
  });
});
