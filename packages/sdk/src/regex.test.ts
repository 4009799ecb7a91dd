import { describe, expect, it } from 'vitest';
import { regexExec, regexTest } from './regex.js';

describe('regex with a time limit', () => {
  it('takes a fractional time limit (what is left of a budget), as whole milliseconds of at least 1', () => {
    expect(regexTest(/b+/, 'abbbc', 999.5)).toBe(true);
    expect(regexExec(/(\d+)/, 'id 42', 500.25)?.[1]).toBe('42');
  });
});
