import { describe, expect, it } from 'vitest';
import { accept, flag, number, parseArgs, text, UsageError } from './args.js';

describe('parseArgs', () => {
  it('separates words from options, with values as `--x v`, `--x=v` or a short form', () => {
    const p = parseArgs(['wait', 'tok', '--query', 'method:POST', '--timeout=5', '-s', 'http://h:1', '--', '--not-an-option']);
    expect(p.words).toEqual(['wait', 'tok', '--not-an-option']);
    expect(text(p, 'query')).toBe('method:POST');
    expect(number(p, 'timeout', 0, 60, 30)).toBe(5);
    expect(text(p, 'server')).toBe('http://h:1');
  });

  it('reads flags, and keeps a value that looks like a query with a dash', () => {
    const p = parseArgs(['export', 'tok', '--har', '--query=-method:GET', '-q']);
    expect(flag(p, 'har')).toBe(true);
    expect(flag(p, 'quiet')).toBe(true);
    expect(flag(p, 'csv')).toBe(false);
    expect(text(p, 'query')).toBe('-method:GET');
  });

  it.each([
    [['--frob'], 'unknown option --frob'],
    [['--timeout'], '--timeout needs a value'],
    [['--timeout', '--json'], '--timeout needs a value'],
    [['--json=yes'], '--json takes no value'],
    [['--json', '--json'], '--json is given twice'],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(new UsageError(message));
  });

  it('refuses an option the command does not take, and numbers out of range', () => {
    expect(() => accept(parseArgs(['--har']), 'wait', ['query'])).toThrow('--har does not go with wait');
    expect(() => number(parseArgs(['--timeout', 'soon']), 'timeout', 0, 60)).toThrow('--timeout must be a number from 0 to 60');
    expect(() => number(parseArgs(['--timeout', '61']), 'timeout', 0, 60)).toThrow(UsageError);
    expect(number(parseArgs([]), 'timeout', 0, 60)).toBeUndefined();
  });
});
