import { describe, expect, it } from 'vitest';
import { runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { validateJson } from '../src/validate-json.js';

const person = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://example.com/person.schema.json',
  type: 'object',
  properties: { firstName: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['firstName'],
};

describe('validate_json', () => {
  it('valid JSON without a schema gives count 0', async () => {
    const r = await runAction(validateJson, {}, { request: { content: '{"a":1}' } });
    expect(r.errors).toEqual([]);
    expect(r.vars).toEqual({ 'validator.count': '0', 'validator.errors': '[]' });
  });

  it('invalid JSON is an action error and counted', async () => {
    const r = await runAction(validateJson, { source: '{oops' });
    expect(r.errors[0]).toMatch(/not valid JSON/);
    expect(r.vars['validator.count']).toBe('1');
  });

  it('lists every schema violation with property, pointer, message and constraint', async () => {
    const r = await runAction(validateJson, { source: '{"firstName":[1,2],"age":"21"}', schema: JSON.stringify(person) });
    expect(r.vars['validator.count']).toBe('2');
    const errors = JSON.parse(r.vars['validator.errors']);
    expect(errors).toEqual([expect.objectContaining({ property: 'firstName', pointer: '/firstName', constraint: 'type', context: 1 }), expect.objectContaining({ property: 'age', pointer: '/age', constraint: 'type' })]);
    expect(r.errors[0]).toMatch(/does not match the JSON Schema: firstName must be string/);
  });

  it('names a missing required property', async () => {
    const r = await runAction(validateJson, { source: '{}', schema: person });
    expect(JSON.parse(r.vars['validator.errors'])[0]).toMatchObject({ property: 'firstName', pointer: '/firstName', constraint: 'required' });
  });

  it('downloads a schema given as a URL through the HTTP service', async () => {
    const http = stubHttp(() => ({ body: JSON.stringify(person) }));
    const r = await runAction(validateJson, { source: '{"firstName":"Ann","age":3}', schema: 'https://schemas.example/person.json' }, { services: { http } });
    expect(r.errors).toEqual([]);
    expect(r.vars['validator.count']).toBe('0');
    expect(http.sent[0]).toMatchObject({ method: 'GET', url: 'https://schemas.example/person.json' });
  });

  it('a failed download is an action error', async () => {
    const http = stubHttp(() => ({ status: 404 }));
    const r = await runAction(validateJson, { source: '{}', schema: 'https://schemas.example/missing.json' }, { services: { http } });
    expect(r.errors[0]).toMatch(/answered 404/);
  });

  it('an invalid schema is an action error', async () => {
    const r = await runAction(validateJson, { source: '{}', schema: '{"type": 12}' });
    expect(r.errors[0]).toMatch(/JSON Schema is invalid/);
  });

  it('rejects a schema that is neither text nor an object', () => {
    expect(() => validateParams(validateJson, { schema: 12 })).toThrow(/parameters.schema/);
  });
});
