import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { autoJson } from '../src/auto-json.js';
import { extractJsonpath } from '../src/extract-jsonpath.js';

const actors = {
  Actors: [
    { name: 'Tom Cruise', age: 56, 'Born At': 'Syracuse, NY' },
    { name: 'Robert Downey Jr.', age: 53, 'Born At': 'New York City, NY' },
  ],
};

describe('auto_json', () => {
  it('creates one variable per leaf from the request body, keys with spaces kept', async () => {
    const r = await runAction(autoJson, {}, { request: { content: JSON.stringify(actors) } });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ 'json.Actors.0.name': 'Tom Cruise', 'json.Actors.1.age': '53', 'json.Actors.0.Born At': 'Syracuse, NY' });
    expect(r.output).toEqual(['Created 6 variables under $json$']);
  });

  it('with a JSONPath, names start below the selection with the match index', async () => {
    const r = await runAction(autoJson, { source: JSON.stringify(actors), jsonpath: '.Actors.0', variable_name: 'a' });
    expect(r.vars).toMatchObject({ 'a.0.name': 'Tom Cruise', 'a.0.age': '56' });
    expect(Object.keys(r.vars).filter((k) => k.startsWith('a.1'))).toEqual([]);
  });

  it('takes the source from variables and keeps the whole document for dotted paths', async () => {
    const r = await runAction(autoJson, { source: '$body$', variable_name: '$doc$' }, { vars: { body: '{"order":{"id":"A7","items":[{"sku":"x"},{"sku":"y"}]}}' } });
    expect(r.vars['doc.order.items.1.sku']).toBe('y');
    expect(JSON.parse(r.vars.doc)).toEqual({ order: { id: 'A7', items: [{ sku: 'x' }, { sku: 'y' }] } });
  });

  it('reports a body that is not JSON as an action error', async () => {
    const r = await runAction(autoJson, {}, { request: { content: 'not json' } });
    expect(r.errors[0]).toMatch(/not valid JSON/);
  });

  it('rejects a non-string variable name', () => {
    expect(() => validateParams(autoJson, { variable_name: 5 })).toThrow(/parameters.variable_name/);
  });
});

describe('extract_jsonpath (deprecated)', () => {
  it('cannot be created through the API but still runs', async () => {
    expect(extractJsonpath.creatable).toBe(false);
    const r = await runAction(extractJsonpath, { jsonpath: '$..name', variable_name: 'names', source: JSON.stringify(actors) });
    expect(JSON.parse(r.vars.names)).toEqual(['Tom Cruise', 'Robert Downey Jr.']);
  });

  it('a single match is stored as text; no match uses the default', async () => {
    const one = await runAction(extractJsonpath, { jsonpath: '$.Actors[1].name', variable_name: 'n', source: JSON.stringify(actors) });
    expect(one.vars.n).toBe('Robert Downey Jr.');
    const none = await runAction(extractJsonpath, { jsonpath: '$.nope', variable_name: 'n', default: '-', source: '{}' });
    expect(none.vars.n).toBe('-');
  });

  it('filter scripts run in the safe evaluator', async () => {
    const r = await runAction(extractJsonpath, { jsonpath: '$.Actors[?(@.age < 55)].name', variable_name: 'n', source: JSON.stringify(actors) });
    expect(r.vars.n).toBe('Robert Downey Jr.');
  });

  it('requires jsonpath and variable_name', () => {
    expect(() => validateParams(extractJsonpath, { variable_name: 'x' })).toThrow(/parameters.jsonpath: is required/);
    expect(() => validateParams(extractJsonpath, { jsonpath: '$' })).toThrow(/parameters.variable_name/);
  });
});
