import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { condition } from '../src/condition.js';
import { conditions } from '../src/conditions.js';

const one = (input: string, operator: string, value = '', vars: Record<string, string> = {}) => runAction(condition, { input, operator, value, action: 'noop' }, { vars });
const passed = async (input: string, operator: string, value = '', vars: Record<string, string> = {}) => (await one(input, operator, value, vars)).output.at(-1) === 'Condition passed';

describe('condition operators', () => {
  it.each([
    ['abc', 'eq', 'abc', true],
    ['abc', 'eq', 'abd', false],
    ['', 'eq', '', true],
    ['abc', 'neq', 'abd', true],
    ['abc', 'sw', 'ab', true],
    ['abc', 'ew', 'bc', true],
    ['abc', 'ct', 'b', true],
    ['abc', 'nct', 'b', false],
    ['250', 'gt', '100', true],
    ['9', 'gt', '10', false],
    ['b', 'gt', 'a', true],
    ['10', 'gte', '10', true],
    ['1.5', 'lt', '2', true],
    ['2', 'lte', '1', false],
    ['user_42', 'regex', '/^[a-z0-9_]{3,32}$/', true],
    ['UP', 'regex', '/^up$/i', true],
    ['x y', 'regex', '/^\\w+$/', false],
  ])('%s %s %s -> %s', async (input, op, value, want) => {
    expect(await passed(input as string, op as string, value as string)).toBe(want);
  });

  it.each([
    ['true', 'true', true],
    ['1', 'true', true],
    ['no', 'true', false],
    ['false', 'false', true],
    ['0', 'false', true],
    ['42', 'num', true],
    ['123.45', 'num', true],
    ['0x539', 'num', true],
    ['02471', 'num', true],
    ['0b10100111001', 'num', true],
    ['4a', 'num', false],
    ['42', 'int', true],
    ['123.45', 'int', false],
    ['42', 'float', true],
    ['123.45', 'float', true],
    ['x', 'float', false],
    ['{"a":1}', 'json', true],
    ['{a:1}', 'json', false],
    ['a@b.co', 'email', true],
    ['a@b', 'email', false],
    ['webhook.site', 'domain', true],
    ['not a domain', 'domain', false],
    ['https://webhook.site?value=xxx', 'url', true],
    ['webhook.site', 'url', false],
  ])('%s %s -> %s', async (input, op, want) => {
    expect(await passed(input as string, op as string)).toBe(want);
  });

  it('"exists" looks at the variable named in the input', async () => {
    expect(await passed('$http.error$', 'ex', '', { 'http.error': 'timeout' })).toBe(true);
    expect(await passed('$http.error$', 'ex')).toBe(false);
    expect(await passed('$request.method$', 'ex')).toBe(true);
    expect(await passed('http.error', 'ex', '', { 'http.error': '' })).toBe(true);
  });

  it('"is null" passes for a missing variable, an empty value and the word null; "is not null" is its opposite', async () => {
    expect(await passed('$data.x$', 'null')).toBe(true);
    expect(await passed('$data.x$', 'null', '', { 'data.x': '' })).toBe(true);
    expect(await passed('$data.x$', 'null', '', { 'data.x': 'null' })).toBe(true);
    expect(await passed('$data.x$', 'null', '', { 'data.x': '0' })).toBe(false);
    expect(await passed('$data.x$', 'nnull', '', { 'data.x': 'false' })).toBe(true);
    expect(await passed('$data.x$', 'nnull')).toBe(false);
    expect(await passed('data.x', 'nnull', '', { 'data.x': 'a' })).toBe(true);
    expect((await one('$data.x$', 'nnull', '', { 'data.x': 'a' })).output[0]).toBe('$data.x$ is not null: yes');
  });

  it('a JSON null extracted by Extract JSON is null', async () => {
    const r = await runAction(
      conditions,
      {
        conditions: [
          { input: '$j.a$', operator: 'null' },
          { input: '$j.b$', operator: 'nnull' },
        ],
        mode: 'all',
        action: 'noop',
      },
      { vars: { 'j.a': '', 'j.b': '1' } },
    );
    expect(r.output.at(-1)).toBe('Condition passed');
  });

  it('variables are replaced in input and value and the comparison is logged', async () => {
    const r = await one('$a$', 'eq', '$b$', { a: 'same', b: 'same' });
    expect(r.output).toEqual(['"same" is equal to "same": yes', 'Condition passed']);
  });
});

describe('condition outcomes', () => {
  it('stop stops when the condition passes', async () => {
    expect((await runAction(condition, { input: 'a', operator: 'eq', value: 'a', action: 'stop' })).stopped).toBe(true);
    expect((await runAction(condition, { input: 'a', operator: 'eq', value: 'b', action: 'stop' })).stopped).toBe(false);
  });

  it('continue stops unless the condition passes', async () => {
    expect((await runAction(condition, { input: 'a', operator: 'eq', value: 'a', action: 'continue' })).stopped).toBe(false);
    expect((await runAction(condition, { input: 'a', operator: 'eq', value: 'b', action: 'continue' })).stopped).toBe(true);
  });

  it('an invalid regex is an action error', async () => {
    expect((await runAction(condition, { input: 'a', operator: 'regex', value: '/(/', action: 'noop' })).errors[0]).toMatch(/Invalid regular expression/);
  });

  it('requires operator and action from the documented lists', () => {
    expect(() => validateParams(condition, { input: 'a', operator: 'like', action: 'stop' })).toThrow(/parameters\.operator/);
    expect(() => validateParams(condition, { input: 'a', operator: 'eq' })).toThrow(/parameters\.action: is required/);
  });
});

describe('conditions', () => {
  const list = [
    { input: '$total$', operator: 'gt', value: '100' },
    { input: '$country$', operator: 'eq', value: 'DK' },
  ];
  const run = (mode: string, action: string, vars: Record<string, string>) => runAction(conditions, { conditions: list, mode, action }, { vars });

  it('all, one and none', async () => {
    const big = { total: '250', country: 'SE' };
    expect((await run('all', 'continue', big)).stopped).toBe(true);
    expect((await run('one', 'continue', big)).stopped).toBe(false);
    expect((await run('none', 'continue', big)).stopped).toBe(true);
    expect((await run('none', 'continue', { total: '5', country: 'SE' })).stopped).toBe(false);
    expect((await run('all', 'continue', { total: '500', country: 'DK' })).stopped).toBe(false);
  });

  it('logs every condition and the result', async () => {
    const r = await run('all', 'noop', { total: '250', country: 'SE' });
    expect(r.output).toEqual(['"250" is greater than "100": yes', '"SE" is equal to "DK": no', 'Condition not passed']);
    expect(r.stopped).toBe(false);
  });

  it('needs conditions, mode and action', () => {
    expect(() => validateParams(conditions, { conditions: [] })).toThrow(/parameters\.conditions/);
    expect(() => validateParams(conditions, { conditions: list, action: 'stop' })).toThrow(/parameters\.mode: is required/);
    expect(() => validateParams(conditions, { conditions: list, mode: 'some', action: 'stop' })).toThrow(/parameters\.mode/);
    expect(() => validateParams(conditions, { conditions: [{ input: 'x', operator: 'nope' }], mode: 'all', action: 'stop' })).toThrow(/parameters\.conditions\.0\.operator/);
  });
});
