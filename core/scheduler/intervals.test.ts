import { describe, expect, it } from 'vitest';
import { INTERVALS, cronError, cronFor, nextRun } from './intervals.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('next run of each interval (UTC, controlled clock)', () => {
  // Wednesday 2024-02-28 13:47:12.345 UTC, in a leap year.
  const now = at('2024-02-28T13:47:12.345Z');
  it.each([
    ['1-minute', '2024-02-28T13:48:00.000Z'],
    ['5-minute', '2024-02-28T13:50:00.000Z'],
    ['10-minute', '2024-02-28T13:50:00.000Z'],
    ['hourly', '2024-02-28T14:00:00.000Z'],
    ['daily', '2024-02-29T00:00:00.000Z'],
    ['weekly', '2024-03-04T00:00:00.000Z'],
    ['monthly', '2024-03-01T00:00:00.000Z'],
  ] as const)('%s', (interval, expected) => {
    expect(iso(nextRun(interval, null, now))).toBe(expected);
  });

  it('every preset has a cron expression and `cron` needs one', () => {
    for (const i of INTERVALS.filter((x) => x !== 'cron')) expect(cronFor(i, undefined)).toMatch(/\S+( \S+){4}/);
    expect(() => cronFor('cron', null)).toThrow(/required/);
    expect(cronFor('cron', ' */7 * * * * ')).toBe('*/7 * * * *');
  });

  it('a time exactly on a tick runs at the following tick, never twice', () => {
    expect(iso(nextRun('hourly', null, at('2024-02-28T14:00:00.000Z')))).toBe('2024-02-28T15:00:00.000Z');
    expect(iso(nextRun('1-minute', null, at('2024-02-28T14:00:00.000Z')))).toBe('2024-02-28T14:01:00.000Z');
    expect(iso(nextRun('monthly', null, at('2024-03-01T00:00:00.000Z')))).toBe('2024-04-01T00:00:00.000Z');
  });

  it('successive ticks of a 5-minute schedule over an hour boundary', () => {
    let t = at('2024-02-28T13:52:00.000Z');
    const ticks: string[] = [];
    for (let i = 0; i < 3; i++) ticks.push(iso((t = nextRun('5-minute', null, t))));
    expect(ticks).toEqual(['2024-02-28T13:55:00.000Z', '2024-02-28T14:00:00.000Z', '2024-02-28T14:05:00.000Z']);
  });

  it('weekly is Monday 00:00 even from a Monday afternoon or a Sunday night', () => {
    expect(iso(nextRun('weekly', null, at('2024-03-04T12:00:00Z')))).toBe('2024-03-11T00:00:00.000Z');
    expect(iso(nextRun('weekly', null, at('2024-03-10T23:59:59Z')))).toBe('2024-03-11T00:00:00.000Z');
  });

  it('monthly crosses the year', () => {
    expect(iso(nextRun('monthly', null, at('2024-12-15T00:00:00Z')))).toBe('2025-01-01T00:00:00.000Z');
  });
});

describe('cron expressions', () => {
  it.each([
    ['*/15 * * * *', '2024-02-28T13:47:00Z', '2024-02-28T14:00:00.000Z'],
    ['0 9 * * 1-5', '2024-03-01T10:00:00Z', '2024-03-04T09:00:00.000Z'],
    // The 29th of February only exists in leap years.
    ['0 0 29 2 *', '2024-03-01T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    // Day 31 skips the months without one.
    ['30 12 31 * *', '2024-04-01T00:00:00Z', '2024-05-31T12:30:00.000Z'],
    // Sunday as 0 and as 7.
    ['0 0 * * 0', '2024-03-01T00:00:00Z', '2024-03-03T00:00:00.000Z'],
    ['0 0 * * 7', '2024-03-01T00:00:00Z', '2024-03-03T00:00:00.000Z'],
    ['59 23 31 12 *', '2024-12-31T23:59:00Z', '2025-12-31T23:59:00.000Z'],
    ['@hourly', '2024-02-28T13:47:00Z', '2024-02-28T14:00:00.000Z'],
    ['0 0 1 1 *', '2024-06-01T00:00:00Z', '2025-01-01T00:00:00.000Z'],
  ])('%s after %s is %s', (expr, from, expected) => {
    expect(cronError(expr)).toBeNull();
    expect(iso(nextRun('cron', expr, at(from)))).toBe(expected);
  });

  it('runs in UTC whatever the process time zone', () => {
    expect(iso(nextRun('cron', '0 2 * * *', at('2024-03-31T00:30:00Z')))).toBe('2024-03-31T02:00:00.000Z');
  });

  it.each([
    ['not a cron', /five fields/],
    ['', /empty/],
    ['* * * *', /five fields/],
    ['* * * * * *', /five fields/],
    ['61 * * * *', /not a valid cron/],
    ['* 24 * * *', /not a valid cron/],
    ['* * 32 * *', /not a valid cron/],
    ['* * * 13 *', /not a valid cron/],
    ['0 0 30 2 *', /not a valid cron/],
    ['a b c d e', /not a valid cron/],
    ['@fortnightly', /not a valid cron/],
  ])('rejects %j', (expr, message) => {
    expect(cronError(expr)).toMatch(message);
  });
});
