// No input can crash or exhaust the service: every document and body it parses is measured first
// (packages/sdk/src/parse-limits.ts). Each deep or huge form goes to each entry point of a real service
// process, since a stack overflow inside V8's regexp compiler aborts the process and must not take
// the test runner with it; after each, the service still answers and still captures a request.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './helpers/service-process.js';

const ADMIN_KEY = 'test-admin-key-0123456789';
const root = path.join(import.meta.dirname, '..');

const deepJson = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const deepFlow = (n: number) => '['.repeat(n) + ']'.repeat(n);
const DEEP = /nests deeper than 64 levels/;

let service: ServiceProcess;
let key: string;
let specServer: http.Server;
let specUrl: string;
let dir: string;

interface Answer {
  status: number;
  data: any;
  text: string;
}

async function call(method: string, url: string, opts: { key?: string; body?: string; type?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.key) headers['api-key'] = opts.key;
  if (opts.type) headers['content-type'] = opts.type;
  const res = await fetch(service.url + url, { method, headers, body: opts.body });
  const text = await res.text();
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, data, text };
}

const json = (value: unknown) => ({ body: JSON.stringify(value), type: 'application/json' });

/** The service answers and captures: a new request to a new token is stored and listed. */
async function stillCaptures(): Promise<void> {
  const token = await call('POST', '/token', json({}));
  expect(token.status, service.output().slice(-2000)).toBe(200);
  const uuid = token.data.uuid as string;
  expect((await call('POST', `/${uuid}`, { body: 'still here', type: 'text/plain' })).status).toBe(200);
  const latest = await call('GET', `/token/${uuid}/request/latest`);
  expect(latest.data.content).toBe('still here');
}

/** A token whose chain is one action, with `body` captured on it: the action's output lines. */
async function actionOutput(type: string, parameters: Record<string, unknown>, body: string, contentType = 'application/json'): Promise<string> {
  const token = (await call('POST', '/token', { key, ...json({ actions: true }) })).data.uuid as string;
  const created = await call('POST', `/token/${token}/actions`, { key, ...json({ type, parameters }) });
  expect(created.status, created.text).toBeLessThan(300);
  const captured = await call('POST', `/${token}`, { body, type: contentType });
  expect(captured.status, captured.text).toBeLessThan(500);
  const latest = await call('GET', `/token/${token}/request/latest`, { key });
  return JSON.stringify(latest.data.custom_action_output);
}

beforeAll(async () => {
  service = await startServiceProcess({ DATA_DIR: ':memory:', ADMIN_API_KEY: ADMIN_KEY, TOKEN_CREATE_PER_MIN_FREE: '100000', TOKEN_CREATE_PER_MIN_PREMIUM: '100000' });
  const user = await call('POST', '/users', { key: ADMIN_KEY, ...json({ name: 'limits', email: 'limits@example.test', premium: true }) });
  key = user.data.api_key;
  // An OpenAPI spec that nests too deep, for the Mock action's spec_url.
  specServer = http.createServer((_req, res) => res.end('openapi: 3.0.0\npaths: ' + deepFlow(900)));
  await new Promise<void>((resolve) => specServer.listen(0, '127.0.0.1', resolve));
  specUrl = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}/spec.yaml`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parse-limits-'));
}, 180_000);

afterAll(async () => {
  await service?.stop();
  specServer?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('workflow documents', () => {
  it('refuses deep YAML flow collections with a 422 instead of dying', async () => {
    const token = (await call('POST', '/token', json({}))).data.uuid as string;
    for (const n of [800, 900, 1200]) {
      const r = await call('PUT', `/token/${token}/workflow`, { body: 'apiVersion: ' + deepFlow(n), type: 'text/yaml' });
      expect(r.status, r.text).toBe(422);
      expect(r.data).toEqual({ message: 'The document nests deeper than 64 levels', errors: { document: ['line 1, column 75: The document nests deeper than 64 levels'] } });
    }
    await stillCaptures();
  });

  it('refuses deep YAML block collections (nested sequences and keys on one line)', async () => {
    const token = (await call('POST', '/token', json({}))).data.uuid as string;
    for (const body of ['- '.repeat(3000) + 'x', '? '.repeat(3000) + 'x']) {
      const r = await call('PUT', `/token/${token}/workflow`, { body, type: 'text/yaml' });
      expect(r.status, r.text).toBe(422);
      expect(r.data.message).toMatch(DEEP);
    }
    await stillCaptures();
  });

  it('refuses deep JSON documents on the token workflow, its test run and the actions API', async () => {
    const token = (await call('POST', '/token', json({}))).data.uuid as string;
    for (const [method, url, body] of [
      ['PUT', `/token/${token}/workflow`, deepJson(2500)],
      ['POST', `/token/${token}/workflow/test`, `{"document":${deepJson(2500)}}`],
      ['POST', `/token/${token}/actions`, `{"type":"auto_json","parameters":${deepJson(2500)}}`],
    ]) {
      const r = await call(method!, url!, { body, type: 'application/json' });
      expect(r.status, `${method} ${url}: ${r.text}`).toBe(422);
      expect(r.data).toEqual({ message: 'The request body nests deeper than 64 levels', errors: { body: ['The request body nests deeper than 64 levels'] } });
    }
    await stillCaptures();
  });

  it('refuses deep schedule documents, YAML and JSON', async () => {
    const schedule = await call('POST', '/schedules', { key, ...json({ name: 'limits', interval: 'daily', request_url: 'https://example.com/', request_method: 'GET' }) });
    expect(schedule.status, schedule.text).toBe(200);
    const url = `/schedules/${schedule.data.id}/document`;
    const yaml = await call('PUT', url, { key, body: 'apiVersion: ' + deepFlow(1200), type: 'text/yaml' });
    expect(yaml.status, yaml.text).toBe(422);
    expect(yaml.data.message).toMatch(DEEP);
    const fromJson = await call('PUT', url, { key, body: deepJson(2500), type: 'application/json' });
    expect(fromJson.status, fromJson.text).toBe(422);
    expect(fromJson.data.message).toMatch(DEEP);
    await stillCaptures();
  });

  it('refuses a document larger than 4 MiB with a 413', async () => {
    const token = (await call('POST', '/token', json({}))).data.uuid as string;
    // Valid but for its size: a long comment above an empty chain.
    const body = `# ${'x'.repeat(4 * 1024 * 1024)}\napiVersion: capture/v1\nkind: TokenActions\nmetadata:\n  token: ${token}\nspec:\n  steps: []\n`;
    const r = await call('PUT', `/token/${token}/workflow`, { body, type: 'text/yaml' });
    expect(r.status, r.text.slice(0, 300)).toBe(413);
    expect(r.data).toEqual({ message: 'The document is larger than 4 MiB', errors: { document: ['The document is larger than 4 MiB'] } });
    await stillCaptures();
  });

  it('the CLI reports a deep workflow file at its line and column and exits 1', () => {
    const file = path.join(dir, 'deep.yaml');
    fs.writeFileSync(file, 'apiVersion: ' + deepFlow(900));
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'cli', 'main.ts'), 'workflows', 'validate', file], { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env.PATH } });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`${file}:1:75: The document nests deeper than 64 levels`);
  });
});

describe('JSON bodies of the API', () => {
  it('answer 422 for a deep body on any route, before any validator sees it', async () => {
    const token = (await call('POST', '/token', json({}))).data.uuid as string;
    for (const [method, url] of [
      ['POST', '/token'],
      ['PUT', `/token/${token}`],
      ['POST', '/templates'],
      ['POST', '/users'],
    ]) {
      const r = await call(method!, url!, { key: ADMIN_KEY, body: `{"name":${deepJson(3000)}}`, type: 'application/json' });
      expect(r.status, `${method} ${url}: ${r.text}`).toBe(422);
      expect(r.data.message).toMatch(DEEP);
    }
    await stillCaptures();
  });
});

describe('actions on captured bodies and their own documents', () => {
  it('Extract JSON and the JSON variables of templating refuse a deep body by name', async () => {
    expect(await actionOutput('auto_json', {}, deepJson(3000))).toContain('Error: The source nests deeper than 64 levels');
    // A deep body is not walked as JSON: the variable stays as typed, and the chain goes on.
    expect(await actionOutput('text_split', { source: '$request.content.a.a$', delimiter: ',' }, deepJson(3000))).toContain('Split into 1 variable');
    await stillCaptures();
  });

  it('Validate JSON refuses a deep input and a deep schema by name', async () => {
    expect(await actionOutput('validate_json', { schema: '{"type":"object"}' }, deepJson(3000))).toContain('The input nests deeper than 64 levels');
    const deepSchema = '{"properties":{"a":'.repeat(2000) + '{}' + '}}'.repeat(2000);
    expect(await actionOutput('validate_json', { schema: deepSchema }, '{}')).toContain('The JSON Schema nests deeper than 64 levels');
    await stillCaptures();
  });

  it('Extract XPath refuses deep XML and HTML by name', async () => {
    const xpath = { xpath: '//a', variable_name: 'x' };
    expect(await actionOutput('extract_xpath', xpath, '<a>'.repeat(5000) + '</a>'.repeat(5000), 'text/xml')).toContain('The source nests deeper than 64 levels');
    expect(await actionOutput('extract_xpath', xpath, '<html>' + '<div>'.repeat(5000), 'text/html')).toContain('The source nests deeper than 64 levels');
    await stillCaptures();
  });

  it('the Mock action refuses a deep OpenAPI spec, inline (YAML, JSON) or fetched', async () => {
    const refused = 'Invalid OpenAPI/Swagger spec: the spec nests deeper than 64 levels';
    for (const n of [800, 900, 1200]) expect(await actionOutput('openapi_mock', { spec: 'openapi: 3.0.0\npaths: ' + deepFlow(n) }, '')).toContain(refused);
    expect(await actionOutput('openapi_mock', { spec: `{"openapi":"3.0.0","paths":${deepJson(3000)}}` }, '')).toContain(refused);
    expect(await actionOutput('openapi_mock', { spec_url: specUrl }, '')).toContain(refused);
    await stillCaptures();
  });

  it('WebhookScript refuses deep JSON and long operator chains by name', async () => {
    expect(await actionOutput('script', { script: "echo(json_decode(var('request.content')))" }, deepJson(3000))).toContain('json_decode(): the JSON nests deeper than 64 levels');
    expect(await actionOutput('script', { script: "echo(json_path(var('request.content'), '$..a'))" }, deepJson(3000))).toContain('json_path(): the first argument nests deeper than 64 levels');
    expect(await actionOutput('script', { script: 'echo(' + '1 + '.repeat(50_000) + '1)' }, '')).toContain('The script is nested more than 1000 levels deep');
    await stillCaptures();
  });

  it('scripts nested deeply in brackets stop with an error (bounded before this change too)', async () => {
    expect(await actionOutput('script', { script: 'echo(' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ')' }, '')).toContain('The script is nested more than 200 levels deep');
    expect(await actionOutput('javascript', { script: 'console.log(' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ')' }, '')).toContain('maximum stack size');
    await stillCaptures();
  });
});
