import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { textMap } from '../src/text-map.js';
import { textReplace } from '../src/text-replace.js';
import { textSplit } from '../src/text-split.js';

describe('text_replace', () => {
  it('replaces every pair in order, with variables in source, search and replacement', async () => {
    const r = await runAction(
      textReplace,
      {
        source: 'Hello $who$, hello!',
        variable_name: 'out',
        replacements: [
          { search: 'ello', replace: 'i' },
          { search: '$from$', replace: '$to$' },
        ],
      },
      { vars: { who: 'Bob', from: 'Bob', to: 'Ann' } },
    );
    expect(r.vars.out).toBe('Hi Ann, hi!');
    expect(r.output).toEqual(['Replaced 3 occurrences; result in $out$']);
  });

  it('needs at least one replacement with a search text', () => {
    expect(() => validateParams(textReplace, { source: 'a', variable_name: 'o', replacements: [] })).toThrow(/parameters.replacements/);
    expect(() => validateParams(textReplace, { source: 'a', variable_name: 'o', replacements: [{ search: '' }] })).toThrow(/parameters.replacements.0.search/);
  });
});

describe('text_split', () => {
  it('numbers the parts from 1', async () => {
    const r = await runAction(textSplit, { source: 'hello,world', delimiter: ',', variable_name: 'v' });
    expect(r.vars).toEqual({ 'v.1': 'hello', 'v.2': 'world' });
  });

  it('\\n splits by line', async () => {
    const r = await runAction(textSplit, { source: 'a\r\nb\nc', delimiter: '\\n' });
    expect(r.vars).toEqual({ 'split.1': 'a', 'split.2': 'b', 'split.3': 'c' });
  });

  it('stops at 1024 variables', async () => {
    const r = await runAction(textSplit, { source: Array.from({ length: 2000 }, (_, i) => i).join(','), delimiter: ',' });
    expect(Object.keys(r.vars)).toHaveLength(1024);
    expect(r.vars['split.1024']).toBe('1023');
  });

  it('requires a non-empty delimiter', () => {
    expect(() => validateParams(textSplit, { source: 'a', delimiter: '' })).toThrow(/parameters.delimiter/);
  });
});

describe('text_map', () => {
  const mappings = [
    { from: 'John', to: '123' },
    { from: 'Ann', to: '456' },
  ];

  it('sets the "to" of the first matching mapping', async () => {
    const r = await runAction(textMap, { source: 'Big John', operator: 'ew', variable_name: '$user_id$', default: 'unknown', mappings });
    expect(r.vars).toEqual({ user_id: '123' });
  });

  it('falls back to the default', async () => {
    const r = await runAction(textMap, { source: 'Jack', operator: 'ew', variable_name: 'user_id', default: 'unknown', mappings });
    expect(r.vars.user_id).toBe('unknown');
  });

  it('compares numbers as numbers and supports regex', async () => {
    expect((await runAction(textMap, { source: '10', operator: 'gt', variable_name: 'v', default: '', mappings: [{ from: '9', to: 'big' }] })).vars.v).toBe('big');
    expect((await runAction(textMap, { source: 'abc-42', operator: 'regex', variable_name: 'v', default: '', mappings: [{ from: '/\\d+$/', to: 'num' }] })).vars.v).toBe('num');
  });

  it('refuses an operator that takes no value', () => {
    expect(() => validateParams(textMap, { source: 'a', operator: 'json', variable_name: 'v', default: '', mappings })).toThrow(/parameters.operator/);
  });
});
