// Scripts cannot hang or exhaust the process: steps, recursion, sizes, time, output, regexes.
import { describe, expect, it } from 'vitest';
import { systemClock } from '@capture/sdk';
import { error, output, run } from './helpers.js';

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

  it('refuses operator and call chains too long to run', async () => {
    expect(await error('x = ' + '1 + '.repeat(50_000) + '1')).toMatch(/^Syntax error at line 1:1: The script is nested more than 1000 levels deep/);
    expect(await error('x = ' + 'a && '.repeat(50_000) + 'a')).toMatch(/nested more than 1000 levels/);
    expect(await error('x = "a"' + '.upper()'.repeat(50_000))).toMatch(/nested more than 1000 levels/);
    // A long chain that fits still runs.
    expect(await output('echo(' + '1 + '.repeat(500) + '1)')).toEqual(['501']);
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
    expect(r.output[1000]).toBe('(output cut: more than 1,000 lines)');
  });

  it('keeps at most 1 MiB of output, then a marker line, however many lines are echoed', async () => {
    const started = Date.now();
    const r = await run('s = "x" * 5000000\nfor (i in 1..100) { echo(s) }');
    expect(r.errors).toEqual([]);
    expect(r.output.at(-1)).toBe('(output cut: more than 1,048,576 bytes)');
    const kept = r.output.slice(0, -1);
    expect(kept.reduce((n, line) => n + Buffer.byteLength(line), 0)).toBeLessThanOrEqual(1024 * 1024);
    expect(kept.length).toBe(16);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('cuts a line at 64 KiB (UTF-8 bytes, never inside a character)', async () => {
    const r = await run('echo("é" * 40000)\necho("next")');
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual([`${'é'.repeat(32768)}… (line cut at 65,536 bytes)`, 'next']);
  });

  it('stops a run that holds the event loop longer than maxRunMs, heavy steps included', async () => {
    const started = Date.now();
    const source = 's = "ab" * 200000\nwhile (true) { t = s.string_reverse() }';
    expect(await error(source, { limits: { maxRunMs: 300 } })).toMatch(/^Error at line 2:\d+: The script was stopped after running for 0\.3 s \(an endless loop\?\)$/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not count time spent waiting for HTTP against maxRunMs', async () => {
    const http = { request: async () => (await new Promise((r) => setTimeout(r, 150)), { status: 200, headers: {}, body: Buffer.from('ok') }) };
    const r = await run('for (i in 1..3) { r = request("http://example.test/slow") }\necho(r["content"])', { limits: { maxRunMs: 200 }, services: { http } });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['ok']);
  });

  it('has no way to reach Node', async () => {
    expect(await error('require("fs")')).toBe('Error at line 1:1: Undefined function "require"');
    expect(await error('eval("1")')).toBe('Error at line 1:1: Undefined function "eval"');
    expect(await error('x = process')).toBe('Error at line 1:5: Undefined variable "process"');
    expect(await error('"".constructor("return process")()')).toBe('Error at line 1:4: Undefined function "constructor" for string (there is no string_constructor() or constructor())');
    expect(await error('x = [:]')).toMatch(/^Syntax error/);
  });
});
