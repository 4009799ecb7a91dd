import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { extractRegex } from '../src/extract-regex.js';

describe('extract_regex', () => {
  it('stores the first group, every group and named groups', async () => {
    const r = await runAction(extractRegex, { regex: '/order (?<id>[A-Z]\\d+) total (\\d+)/i', variable_name: 'm' }, { request: { content: 'ORDER A7 total 250' } });
    expect(r.vars).toMatchObject({ m: 'A7', 'm.0': 'ORDER A7 total 250', 'm.1': 'A7', 'm.2': '250', 'm.id': 'A7' });
  });

  it('without groups stores the whole match', async () => {
    const r = await runAction(extractRegex, { regex: '\\d+', variable_name: 'n', source: 'abc 42 def' });
    expect(r.vars.n).toBe('42');
  });

  it('no match sets the default, or nothing', async () => {
    expect((await runAction(extractRegex, { regex: 'x', variable_name: 'n', source: 'abc', default: 'none' })).vars.n).toBe('none');
    expect((await runAction(extractRegex, { regex: 'x', variable_name: 'n', source: 'abc' })).vars).toEqual({});
  });

  it('an invalid pattern is an action error', async () => {
    const r = await runAction(extractRegex, { regex: '(', variable_name: 'n', source: 'abc' });
    expect(r.errors[0]).toMatch(/Invalid regular expression/);
  });

  it('a catastrophic pattern is stopped instead of blocking the process', async () => {
    const r = await runAction(extractRegex, { regex: '/(a+)+$/', variable_name: 'n', source: 'a'.repeat(40) + 'b' });
    expect(r.errors[0]).toMatch(/took longer than/);
  });

  it('requires regex and variable_name', () => {
    expect(() => validateParams(extractRegex, { variable_name: 'n' })).toThrow(/parameters.regex/);
    expect(() => validateParams(extractRegex, { regex: 'x', variable_name: '' })).toThrow(/parameters.variable_name/);
  });
});
