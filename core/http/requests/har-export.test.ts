// Exports of the (matching) requests: HAR 1.2, checked against the spec's required structure, and
// the CSV export honouring the same search.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

// The required members of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), with their types.
const nameValue = { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } };
const nameValues = { type: 'array', items: nameValue };
const HAR_SCHEMA = {
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      properties: {
        version: { const: '1.2' },
        creator: { type: 'object', required: ['name', 'version'], properties: { name: { type: 'string' }, version: { type: 'string' } } },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
            properties: {
              startedDateTime: { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)$' },
              time: { type: 'number', minimum: 0 },
              request: {
                type: 'object',
                required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
                properties: {
                  method: { type: 'string' },
                  url: { type: 'string' },
                  httpVersion: { type: 'string' },
                  cookies: nameValues,
                  headers: nameValues,
                  queryString: nameValues,
                  postData: { type: 'object', required: ['mimeType'], properties: { mimeType: { type: 'string' }, text: { type: 'string' }, params: { type: 'array' } } },
                  headersSize: { type: 'integer' },
                  bodySize: { type: 'integer' },
                },
              },
              response: {
                type: 'object',
                required: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
                properties: {
                  status: { type: 'integer' },
                  statusText: { type: 'string' },
                  httpVersion: { type: 'string' },
                  cookies: nameValues,
                  headers: nameValues,
                  content: {
                    type: 'object',
                    required: ['size', 'mimeType'],
                    properties: { size: { type: 'integer' }, mimeType: { type: 'string' }, text: { type: 'string' }, encoding: { type: 'string' } },
                  },
                  redirectURL: { type: 'string' },
                  headersSize: { type: 'integer' },
                  bodySize: { type: 'integer' },
                },
              },
              cache: { type: 'object' },
              timings: {
                type: 'object',
                required: ['send', 'wait', 'receive'],
                properties: { send: { type: 'number' }, wait: { type: 'number' }, receive: { type: 'number' } },
              },
            },
          },
        },
      },
    },
  },
};
const validateHar = new Ajv2020({ allErrors: true }).compile(HAR_SCHEMA);

describe('GET /token/{id}/requests/export', () => {
  it('format=har writes a valid HAR 1.2 archive of the matching requests with the responses sent', async () => {
    const t = await s.token({ actions: true, default_content: 'thanks' });
    await s.call('POST', `/token/${t.uuid}/actions`, {
      json: { type: 'modify_response', parameters: { content: 'made', status: '201', headers: 'X-Made: 1' } },
    });
    await s.call('POST', `/${t.uuid}/orders?id=7&tag=a&tag=b`, { body: '{"order":7}', headers: { 'Content-Type': 'application/json', Cookie: 'session=abc; theme=dark' } });
    await s.call('PUT', `/${t.uuid}/other`, { body: 'skip me' });
    const note = (await s.call('GET', `/token/${t.uuid}/requests?sorting=oldest`)).data.data[0].uuid;
    await s.call('PUT', `/token/${t.uuid}/request/${note}/note`, { json: { note: 'first order' } });

    const r = await s.call('GET', `/token/${t.uuid}/requests/export?format=har&query=${encodeURIComponent('method:POST')}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="requests-${t.uuid}.har"`);
    const har = JSON.parse(r.text);
    expect(validateHar(har), JSON.stringify(validateHar.errors)).toBe(true);
    expect(har.log.entries).toHaveLength(1);
    const [e] = har.log.entries;
    expect(e.request).toMatchObject({
      method: 'POST',
      url: `${s.url}/${t.uuid}/orders?id=7&tag=a&tag=b`,
      queryString: [
        { name: 'id', value: '7' },
        { name: 'tag', value: 'a' },
        { name: 'tag', value: 'b' },
      ],
      cookies: [
        { name: 'session', value: 'abc' },
        { name: 'theme', value: 'dark' },
      ],
      postData: { mimeType: 'application/json', text: '{"order":7}' },
      bodySize: 11,
    });
    expect(e.request.headers).toContainEqual({ name: 'content-type', value: 'application/json' });
    expect(e.response).toMatchObject({ status: 201, statusText: 'Created', content: { text: 'made', size: 4 } });
    expect(e.response.headers).toContainEqual({ name: 'X-Made', value: '1' });
    expect(e).toMatchObject({ comment: 'first order', _request_id: note });
  });

  it("HAR entries of default answers carry the token's default response", async () => {
    const t = await s.token({ default_content: 'ok!', default_status: 202 });
    await s.call('GET', `/${t.uuid}`);
    const har = JSON.parse((await s.call('GET', `/token/${t.uuid}/requests/export?format=har`)).text);
    expect(validateHar(har), JSON.stringify(validateHar.errors)).toBe(true);
    expect(har.log.entries[0].response).toMatchObject({ status: 202, statusText: 'Accepted', content: { text: 'ok!', mimeType: 'text/html' } });
    expect(har.log.entries[0].request).not.toHaveProperty('postData');
  });

  it('CSV (the default format) honours the search; a bad format or query is a 422', async () => {
    const t = await s.token();
    await s.call('POST', `/${t.uuid}`, { body: 'alpha' });
    await s.call('PUT', `/${t.uuid}`, { body: 'beta' });
    const csv = await s.call('GET', `/token/${t.uuid}/requests/export?query=${encodeURIComponent('method:PUT')}`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('beta');
    const bad = await s.call('GET', `/token/${t.uuid}/requests/export?format=xml`);
    expect(bad.status).toBe(422);
    expect(bad.data.errors).toHaveProperty('format');
    expect((await s.call('GET', `/token/${t.uuid}/requests/export?format=har&query=${encodeURIComponent('method:(')}`)).status).toBe(422);
  });
});
