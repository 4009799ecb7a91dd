import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { boolean, defineAction, integer, numeric, systemClock, variableName, z } from './index.js';
import { parseRegex, regexReplace } from './regex.js';
import { fetchHttpClient } from './testing.js';

describe('parameter helpers', () => {
  it('numbers and integers come as JSON or text, within bounds', () => {
    expect(numeric().parse('1.5')).toBe(1.5);
    expect(integer({ min: 1 }).parse(' 60 ')).toBe(60);
    expect(integer().safeParse('1.5').success).toBe(false);
    expect(integer({ max: 5, message: 'too big' }).safeParse('6').error?.issues[0].message).toBe('too big');
  });

  it('booleans accept the usual spellings', () => {
    expect(['true', '1', 'on', 'YES', true].map((v) => boolean().parse(v))).toEqual([true, true, true, true, true]);
    expect(['false', '0', 'off', '', false].map((v) => boolean().parse(v))).toEqual([false, false, false, false, false]);
    expect(boolean().safeParse('maybe').success).toBe(false);
  });

  it('variable names may be typed with dollars', () => {
    expect(variableName().parse(' $user_id$ ')).toBe('user_id');
    expect(variableName().safeParse('').success).toBe(false);
  });
});

describe('defineAction', () => {
  it('insists on lower_snake_case types and fills defaults', () => {
    expect(() => defineAction({ type: 'Bad-Type', title: '', category: '', description: '', parameters: z.object({}), execute() {} })).toThrow(/lower_snake_case/);
    const a = defineAction({ type: 'ok_type', title: '', category: '', description: '', parameters: z.object({}), execute() {} });
    expect(a).toMatchObject({ creatable: true, sets: [], untemplated: [] });
  });
});

describe('regex helpers', () => {
  it('reads /pattern/flags and drops flags JavaScript lacks', () => {
    expect(parseRegex('/a.b/isx').flags).toBe('is');
    expect(parseRegex('a/b').source).toBe('a\\/b');
    expect(regexReplace(/o/g, 'foo', '0')).toBe('f00');
  });
});

describe('default services', () => {
  it('fetchHttpClient sends and reads bytes', async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.writeHead(201, { 'x-echo': req.method! }).end(`got ${body}`));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetchHttpClient.request({ method: 'POST', url: `http://127.0.0.1:${port}/`, body: Buffer.from('hi'), timeoutMs: 5000 });
      expect(res.status).toBe(201);
      expect(res.headers['x-echo']).toBe('POST');
      expect(res.body.toString()).toBe('got hi');
    } finally {
      server.close();
    }
  });

  it('systemClock.sleep ends early on abort', async () => {
    const ac = new AbortController();
    const t = Date.now();
    setTimeout(() => ac.abort(), 20);
    await systemClock.sleep(5000, ac.signal);
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
