import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { untilAborted } from './async.js';
import { providerId } from './index.js';
import { postgresTypes } from './sql.js';

describe('providerId', () => {
  it('takes text or an integer and gives trimmed text', () => {
    expect(providerId().parse(' 7 ')).toBe('7');
    expect(providerId().parse(12)).toBe('12');
  });
  it('rejects blank text and fractions', () => {
    expect(providerId().safeParse('  ').error?.issues[0]?.message).toBe('is required');
    expect(providerId().safeParse(1.5).success).toBe(false);
  });
});

describe('untilAborted', () => {
  it('gives the promise when the signal stays quiet', async () => {
    await expect(untilAborted(new AbortController().signal, Promise.resolve(3))).resolves.toBe(3);
  });
  it('rejects with the reason at once and runs onAbort once', async () => {
    const c = new AbortController();
    let calls = 0;
    const wait = untilAborted(c.signal, new Promise(() => {}), () => calls++);
    c.abort(new Error('time is up'));
    c.abort(new Error('again'));
    await expect(wait).rejects.toThrow('time is up');
    expect(calls).toBe(1);
  });
  it('rejects at once on an already aborted signal', async () => {
    await expect(untilAborted(AbortSignal.abort(new Error('gone')), Promise.resolve(1))).rejects.toThrow('gone');
  });
});

describe('postgresTypes', () => {
  const parse = (oid: number, text: string) => (postgresTypes(pg).getTypeParser(oid, 'text') as (v: string) => unknown)(text);
  it('keeps dates, times and bytea as the server writes them', () => {
    expect(parse(1114, '2024-01-02 03:04:05')).toBe('2024-01-02 03:04:05');
    expect(parse(1184, '2024-01-02 03:04:05+02')).toBe('2024-01-02 03:04:05+02');
    expect(parse(17, '\\x0102')).toBe('\\x0102');
  });
  it('gives int8 as a number when it fits, as text otherwise', () => {
    expect(parse(20, '42')).toBe(42);
    expect(parse(20, '9223372036854775807')).toBe('9223372036854775807');
  });
  it('leaves the other types to the driver', () => {
    expect(parse(16, 't')).toBe(true);
    expect(parse(23, '5')).toBe(5);
  });
});
