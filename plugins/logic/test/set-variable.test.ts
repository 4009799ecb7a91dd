import { describe, expect, it } from 'vitest';
import { fakeClock, runAction, validateParams } from '@capture/sdk/testing';
import { formatPhpDate, parseDateInput } from '../src/dates.js';
import { setVariable } from '../src/set-variable.js';
import { storeGlobalVariable } from '../src/store-global-variable.js';

const math = async (value: string, vars: Record<string, string> = {}) => {
  const r = await runAction(setVariable, { name: 'r', mode: 'math', value }, { vars });
  return r.errors[0] ?? r.vars.r;
};

describe('set_variable', () => {
  it('text mode sets the value with variables replaced', async () => {
    const r = await runAction(setVariable, { name: '$greeting$', value: 'hi $request.method$' });
    expect(r.vars).toEqual({ greeting: 'hi POST' });
    expect(r.output).toEqual(['Set runtime variable $greeting$ to "hi POST"']);
  });

  it('random mode draws from the chosen character groups', async () => {
    const r = await runAction(setVariable, { name: 'code', mode: 'random', random: { length: 12, characters: ['digits'] } });
    expect(r.vars.code).toMatch(/^\d{12}$/);
    const u = await runAction(setVariable, { name: 'code', mode: 'random', random: [{ length: 5, characters: ['user'], alphabet: 'xy' }] });
    expect(u.vars.code).toMatch(/^[xy]{5}$/);
  });

  it('random mode needs a length within 1..10000', () => {
    expect(() => validateParams(setVariable, { name: 'c', mode: 'random' })).toThrow(/parameters\.random: is required in random mode/);
    expect(() => validateParams(setVariable, { name: 'c', mode: 'random', random: { length: 10001 } })).toThrow(/parameters\.random\.length/);
  });

  it('date mode formats an input date, default ISO 8601 of now', async () => {
    const now = Date.UTC(2024, 0, 31, 12, 0, 0);
    const at = (date: Record<string, string>) => runAction(setVariable, { name: 'd', mode: 'date', date }, { services: { clock: fakeClock(now) } }).then((r) => r.errors[0] ?? r.vars.d);
    expect(await at({})).toBe('2024-01-31T12:00:00+00:00');
    expect(await at({ input: '-30 days', format: 'mysql' })).toBe('2024-01-01 12:00:00');
    expect(await at({ input: '2024-01-31 +1 month', format: 'mysql' })).toBe('2024-03-02 00:00:00');
    expect(await at({ input: '1704164645', format: 'iso8601' })).toBe('2024-01-02T03:04:05+00:00');
    expect(await at({ input: 'tomorrow', format: 'unix' })).toBe(String(Date.UTC(2024, 1, 1) / 1000));
    expect(await at({ input: 'now', format: 'unixmicro' })).toBe(String(now * 1000));
    expect(await at({ input: '2 hours ago', format: 'user', user_format: 'D jS M Y, g:ia \\U\\T\\C' })).toBe('Wed 31st Jan 2024, 10:00am UTC');
    expect(await at({ input: 'whenever' })).toMatch(/Unrecognised date/);
    expect(await at({ format: 'user' })).toMatch(/user_format is required/);
  });

  it('date mode shows the output in a chosen time zone, daylight saving included', async () => {
    const now = Date.UTC(2024, 6, 1, 12, 0, 0);
    const at = (date: Record<string, string>, vars: Record<string, string> = {}) =>
      runAction(setVariable, { name: 'd', mode: 'date', date }, { services: { clock: fakeClock(now) }, vars }).then((r) => r.errors[0] ?? r.vars.d);
    expect(await at({ timezone: 'Europe/Copenhagen' })).toBe('2024-07-01T14:00:00+02:00');
    expect(await at({ input: '2024-01-15 12:00:00', timezone: 'Europe/Copenhagen', format: 'mysql' })).toBe('2024-01-15 13:00:00');
    expect(await at({ timezone: 'America/New_York', format: 'user', user_format: 'Y-m-d H:i T O e I' })).toBe('2024-07-01 08:00 EDT -0400 America/New_York 1');
    expect(await at({ timezone: '-05:30', format: 'user', user_format: 'H:i P Z' })).toBe('06:30 -05:30 -19800');
    expect(await at({ timezone: 'Asia/Tokyo', format: 'unix' })).toBe(String(now / 1000));
    expect(await at({ timezone: '$tz$' }, { tz: 'Asia/Tokyo' })).toBe('2024-07-01T21:00:00+09:00');
    expect(await at({ timezone: '$tz$' }, { tz: 'Mars/Olympus' })).toMatch(/parameters\.date\.timezone: is not a time zone/);
    expect(await at({ timezone: '' })).toBe('2024-07-01T12:00:00+00:00');
    expect(() => validateParams(setVariable, { name: 'd', mode: 'date', date: { timezone: 'Mars/Olympus' } })).toThrow(/parameters\.date\.timezone: is not a time zone/);
  });

  it('math mode: operators, precedence, functions and $pi/$e', async () => {
    expect(await math('$n$ + 1', { n: '41' })).toBe('42');
    expect(await math('round($x$, 2)', { x: '3.14159' })).toBe('3.14');
    expect(await math('2 + 3 * 4 ^ 2 / (1 + 1)')).toBe('26');
    expect(await math('10 % 3 + -7 % 3')).toBe('0');
    expect(await math('0.1 + 0.2')).toBe('0.3');
    expect(await math('avg(1, 2, 3) + avg([4, 5, 6]) + max([1, 9]) + median(3, 1, 2)')).toBe('18');
    expect(await math('round($pi, 4) + round($e, 2)')).toBe('5.8616');
    expect(await math('bindec(101) + hexdec("ff") + octdec(17)')).toBe('275');
    expect(await math('dechex(255)')).toBe('ff');
    expect(await math('intdiv(7, 2) + fmod(7, 2) + abs(-1) + floor(1.7) + ceil(1.2)')).toBe('8');
    expect(await math('round(rad2deg(arctan(1)))')).toBe('45');
    expect(await math('round(log(8, 2)) + lg(100) + ln(1)')).toBe('5');
  });

  it('math mode: comparisons and logic through if()', async () => {
    expect(await math('if($a$ > $b$, $a$ - $b$, $b$ - $a$)', { a: '3', b: '10' })).toBe('7');
    expect(await math('(1 == 1) && !(2 < 1) || 0')).toBe('1');
    expect(await math('if(1 != 1, 1 / 0, 5)')).toBe('5');
  });

  it('math mode refuses anything outside the documented language', async () => {
    expect(await math('x = 5')).toMatch(/Unsupported expression: AssignmentNode/);
    expect(await math('import({})')).toMatch(/Unknown function import/);
    expect(await math('evaluate("1")')).toMatch(/Unknown function evaluate/);
    expect(await math('foo + 1')).toMatch(/Unknown variable foo/);
    expect(await math('1 / 0')).toMatch(/Division by zero/);
    expect(await math('1 +')).toMatch(/Invalid math expression/);
  });

  it('rejects an unknown mode', () => {
    expect(() => validateParams(setVariable, { name: 'x', mode: 'magic' })).toThrow(/parameters\.mode/);
    expect(() => validateParams(setVariable, { value: 'x' })).toThrow(/parameters\.name: is required/);
  });
});

describe('dates', () => {
  it('parses relative phrases against now', () => {
    const now = Date.UTC(2024, 5, 15, 10, 0, 0);
    expect(parseDateInput('+1 week 2 days', now)).toBe(now + 9 * 86_400_000);
    expect(parseDateInput('yesterday', now)).toBe(Date.UTC(2024, 5, 14));
    expect(formatPhpDate(Date.UTC(2024, 0, 1), 'W o N')).toBe('01 2024 1');
  });
});

describe('store_global_variable', () => {
  it('stores the value and later actions can read it', async () => {
    const r = await runAction(storeGlobalVariable, { name: 'last', value: '$request.content$' }, { request: { content: 'v1' }, globals: { other: 'x' } });
    expect(r.globals).toEqual({ other: 'x', last: 'v1' });
    expect(r.output).toEqual(['Stored global variable $last$']);
  });

  it('requires a name', () => {
    expect(() => validateParams(storeGlobalVariable, { value: 'x' })).toThrow(/parameters\.name/);
  });

  it('a store that fails is an action error', async () => {
    const r = await runAction(
      storeGlobalVariable,
      { name: 'n', value: 'v' },
      { services: { globals: { get: async () => null, all: async () => ({}), set: async () => Promise.reject(new Error('read-only')), delete: async () => false } } },
    );
    expect(r.errors).toEqual(['read-only']);
  });
});
