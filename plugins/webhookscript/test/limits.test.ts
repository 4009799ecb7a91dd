// Scripts cannot hang or exhaust the process: steps, recursion, sizes, time, output, regexes.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/sdk/index.js';
import { error, run } from './helpers.js';

describe('limits', () => {
  it('stops an endless loop after 10 million steps', async () => {
    const started = Date.now();
    expect(await error('i = 0\nwhile (true) {\n  i = i + 1\n}')).toMatch(/^Error at line [23]:\d+: The script was stopped after 10,000,000 steps \(an endless loop\?\)$/);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);

  it('counts steps in every kind of loop and in recursion', async () => {
    const limits = { maxSteps: 50_000 };
    expect(await error('for (;;) {}', { limits })).toMatch(/stopped after 50,000 steps/);
    expect(await error('for (x in 1..100000) { y = x }', { limits })).toMatch(/stopped after 50,000 steps/);
    expect(await error('function f(n) { return f(n) + 1 }\nwhile (true) { f(1) }', { limits: { maxSteps: 50_000, maxDepth: 1_000_000 } })).toMatch(/stopped after|nested too deeply/);
  });

  it('limits recursion depth', async () => {
    expect(await error('function f(n) {\n  return f(n + 1)\n}\nf(0)')).toBe('Error at line 2:10: Too much recursion: more than 200 nested function calls');
    expect(await error('f = (n) => f(n + 1)\nf(0)', { limits: { maxDepth: 50 } })).toBe('Error at line 1:12: Too much recursion: more than 50 nested function calls');
  });

  it('caps string sizes', async () => {
    expect(await error('s = "x"\nwhile (true) { s = s + s }')).toBe('Error at line 2:20: A string may be at most 5,000,000 characters long');
    expect(await error('s = "ab" * 100000000')).toBe('Error at line 1:5: A string may be at most 5,000,000 characters long');
    expect(await error('s = string_random(100).repeat(1000000)')).toMatch(/too long/);
    expect(await error('a = 1..100000\nj = json_encode([a, a, a, a, a, a, a, a, a, a])')).toMatch(/json_encode|at most 5,000,000 characters/);
  });

  it('caps array sizes and the data a script creates', async () => {
    expect(await error('a = 1..2000000')).toBe('Error at line 1:5: A range may have at most 1000000 items');
    expect(await error('a = []\nwhile (true) { a[] = 1 }')).toMatch(/An array may hold at most 1000000 items|stopped after/);
    expect(await error('a = 1..100000\nb = []\nfor (i in 1..100) { b.push(a.array_copy()) }', { limits: { maxAllocation: 1_000_000 } })).toMatch(/created more data than allowed/);
  }, 30_000);

  it('refuses arrays that contain themselves where it would loop', async () => {
    expect(await error('a = []\na.push(a)\necho(json_encode(a))')).toBe('Error at line 3:6: json_encode(): The array contains itself');
    expect(await error('a = []\na.push(a)\ndump(a)')).toBe('Error at line 3:1: dump(): The array contains itself');
  });

  it('refuses scripts nested too deeply to parse', async () => {
    expect(await error('x = ' + '('.repeat(500) + '1' + ')'.repeat(500))).toMatch(/^Syntax error at line 1:\d+: The script is nested more than 200 levels deep$/);
    expect(await error('x = ' + '['.repeat(500) + ']'.repeat(500))).toMatch(/nested more than 200 levels/);
    expect(await error('x = ' + '-'.repeat(5000) + '1')).toMatch(/nested more than 200 levels/);
  });

  it("ends with the chain's time budget", async () => {
    const started = Date.now();
    const r = await run('while (true) { x = 1 }', { budgetMs: 300, services: { clock: systemClock } });
    expect(r.errors[0]).toMatch(/time budget/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('lets other work run while a long script runs', async () => {
    let timerAt = 0;
    let doneAt = 0;
    const started = performance.now();
    setTimeout(() => (timerAt = performance.now() - started), 5);
    await run('i = 0\nwhile (i < 1000000) { i = i + 1 }').then(() => (doneAt = performance.now() - started));
    expect(timerAt).toBeGreaterThan(0);
    expect(timerAt).toBeLessThan(doneAt);
  });

  it('stops a catastrophic regex with the watchdog', async () => {
    expect(await error('x = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" == r"^(a+)+$"')).toMatch(/The regular expression took longer than 1000 ms and was stopped/);
  });

  it('keeps at most 1000 output lines', async () => {
    const r = await run('for (i in 1..2000) { echo(i) }');
    expect(r.errors).toEqual([]);
    expect(r.output).toHaveLength(1001);
    expect(r.output[1000]).toBe('(output cut: more than 1000 lines)');
  });

  it('has no way to reach Node', async () => {
    expect(await error('require("fs")')).toBe('Error at line 1:1: Undefined function "require"');
    expect(await error('eval("1")')).toBe('Error at line 1:1: Undefined function "eval"');
    expect(await error('x = process')).toBe('Error at line 1:5: Undefined variable "process"');
    expect(await error('"".constructor("return process")()')).toBe('Error at line 1:4: Undefined function "constructor" for string (there is no string_constructor() or constructor())');
    expect(await error('x = [:]')).toMatch(/^Syntax error/);
  });
});
