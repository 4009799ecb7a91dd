import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActionRegistry } from '../actions/registry.js';
import { BadRequest, ValidationError } from '../errors.js';
import { ScheduleKind } from '../scheduler/document.js';
import { ScheduleService } from '../scheduler/service.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import { systemClock } from '../util/time.js';
import { documentErrors } from './check.js';
import { TokenActionsKind, normaliseDocument } from './document.js';
import { kindOf, parseDocument, parseDocuments, readWorkflowFolder } from './kernel.js';

const actions = (token: string) => `apiVersion: capture/v1\nkind: TokenActions\nmetadata: {token: ${token}}\nspec:\n  steps:\n    - type: log\n      parameters: {text: hi}\n`;
const schedule = (name: string) => `apiVersion: capture/v1\nkind: Schedule\nmetadata: {name: ${name}, owner: ops@example.test}\nspec:\n  interval: hourly\n  request: {url: "https://status.example.test/"}\n`;

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

describe('workflow kernel: parsing', () => {
  it('reads one or several documents, YAML or JSON, and leaves empty ones out', () => {
    expect(parseDocuments(`${actions('a')}---\n---\n${schedule('s')}`).map((d) => (d as { kind: string }).kind)).toEqual(['TokenActions', 'Schedule']);
    expect(parseDocuments('{"apiVersion": "capture/v1", "kind": "Schedule"}')).toEqual([{ apiVersion: 'capture/v1', kind: 'Schedule' }]);
    expect(parseDocuments('')).toEqual([]);
    expect(parseDocument('')).toBeNull();
  });

  it('a syntax error is a 400 naming its line and column', () => {
    const e = thrown(() => parseDocuments('kind: Schedule\nspec:\n  a: [1, 2\n')) as BadRequest;
    expect(e).toBeInstanceOf(BadRequest);
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^Invalid YAML at line \d+, column \d+: /);
  });

  it('an API body holds one document: two are a 400', () => {
    const e = thrown(() => parseDocument(`${actions('a')}---\n${actions('b')}`)) as BadRequest;
    expect(e.status).toBe(400);
    expect(e.message).toBe('Expected one workflow document, got 2');
  });
});

describe('workflow kernel: kinds and validation', () => {
  it('both kinds are registered and found by their `kind`', () => {
    expect(kindOf({ kind: 'TokenActions' })).toBe(TokenActionsKind);
    expect(kindOf({ kind: 'Schedule' })).toBe(ScheduleKind);
    expect(kindOf({ kind: 'Nope' })).toBeUndefined();
    expect(kindOf('Schedule')).toBeUndefined();
  });

  it('one pass checks the structure, names every field and fills defaults, without touching the input', () => {
    const input = { apiVersion: 'capture/v1', kind: 'Schedule', metadata: { name: 'x' }, spec: { interval: 'hourly', request: { url: 'ftp://x', method: 'get' } } };
    const before = structuredClone(input);
    const e = thrown(() => ScheduleKind.validate(input)) as ValidationError;
    expect(e.status).toBe(422);
    expect(e.errors).toEqual({ 'spec.request.url': ['must be an absolute http or https URL'] });
    expect(input).toEqual(before);
    const ok = ScheduleKind.validate({ ...input, spec: { ...input.spec, request: { url: 'https://x.test/', method: 'post' } } });
    expect(ok.spec.request).toEqual({ url: 'https://x.test/', method: 'POST', headers: [], body: '', timeout: 5 });
    expect(ok.spec.cron).toBeNull();
  });

  it('TokenActions documents keep only the fields the schema knows', () => {
    const doc = normaliseDocument({ ...(parseDocument(actions('a')) as object), extra: 1, spec: { steps: [{ type: 'log', parameters: {}, surprise: true }] } });
    expect(Object.keys(doc)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(Object.keys(doc.spec.steps[0]!).sort()).toEqual(['disabled', 'id', 'parameters', 'type']);
  });

  it('documentErrors checks a Schedule by its own kind, and an unknown kind as a TokenActions document', async () => {
    const registry = new ActionRegistry(); // no step is validated here: a Schedule has none, the other no steps
    expect(await documentErrors({ ...(parseDocument(schedule('s')) as object), spec: { interval: 'yearly', request: { url: 'https://x.test/' } } }, registry)).toHaveProperty(['spec.interval']);
    expect(await documentErrors({ apiVersion: 'capture/v1', kind: 'Nope', metadata: { token: 'a' }, spec: { steps: [] } }, registry)).toHaveProperty(['kind']);
  });
});

describe('workflow kernel: the folder walker', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wf-kernel-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the YAML/JSON files directly in the folder, in name order; subfolders such as examples/ are not read', async () => {
    fs.writeFileSync(path.join(dir, 'b.yaml'), `${actions('a')}---\n${schedule('s')}`);
    fs.writeFileSync(path.join(dir, 'a.json'), '{"kind": "Schedule"}');
    fs.writeFileSync(path.join(dir, 'c.yml'), 'kind: [');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'kind: Schedule');
    fs.mkdirSync(path.join(dir, 'examples'));
    fs.writeFileSync(path.join(dir, 'examples', 'x.yaml'), schedule('example'));
    fs.mkdirSync(path.join(dir, 'more.yaml'));
    const files = await readWorkflowFolder(dir);
    expect(files.map((f) => [f.file, f.docs.length, Boolean(f.error)])).toEqual([
      ['a.json', 1, false],
      ['b.yaml', 2, false],
      ['c.yml', 0, true],
    ]);
    expect(files[2]!.error).toMatch(/^Invalid YAML at line 1, column \d+/);
    expect(await readWorkflowFolder(path.join(dir, 'missing'))).toEqual([]);
  });

  it('the Schedule loader follows the same rule: examples/ is not applied (it used to recurse into it)', async () => {
    const store = createSqliteStore(':memory:');
    try {
      await store.users.create({ name: 'ops', email: 'ops@example.test', premium: true, created_at: 0, updated_at: 0 });
      const service = new ScheduleService(store, systemClock, { plan: async () => undefined, unplan: async () => undefined });
      fs.mkdirSync(path.join(dir, 'examples'));
      fs.writeFileSync(path.join(dir, 'examples', 'example.yaml'), schedule('example'));
      fs.writeFileSync(path.join(dir, 'both.yaml'), `${schedule('one')}---\n${actions('a')}---\n${schedule('two')}`);
      expect(await service.applyDirectory(dir)).toEqual({ created: 2, updated: 0, unchanged: 0, failed: [] });
      const names = (await store.schedules.list({ userIds: [1] }, 1, 10)).items.map((s) => [s.source, (s.document as { metadata: { name: string } }).metadata.name]);
      expect(names.sort()).toEqual([
        ['file:both.yaml#one', 'one'],
        ['file:both.yaml#two', 'two'],
      ]);
    } finally {
      await store.close();
    }
  });
});
