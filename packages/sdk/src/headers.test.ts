import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { headerLineFields, headerLines, headerProblem, headerSafe, parseHeaderLines, sendableHeaders, setResponseHeader } from './headers.js';
import type { ResponseDraft } from './types.js';

describe('header safety', () => {
  it('headerProblem refuses bad names, line breaks, NUL and characters beyond Latin-1', () => {
    expect(headerProblem('X-Ok', 'fine é\tvalue')).toBeUndefined();
    expect(headerProblem('X Bad', 'v')).toMatch(/not a valid header name/);
    expect(headerProblem('X-A', 'a\r\nb')).toMatch(/X-A must not contain line breaks/);
    expect(headerProblem('X-A', 'a\nb')).toMatch(/line breaks/);
    expect(headerProblem('X-A', 'a\0')).toMatch(/control characters/);
    expect(headerProblem('X-A', '日本')).toMatch(/Latin-1/);
  });

  it('headerSafe turns line breaks and control characters into a space and percent-encodes beyond Latin-1', () => {
    expect(headerSafe('plain é')).toBe('plain é');
    expect(headerSafe('a\r\nSet-Cookie: x=1')).toBe('a Set-Cookie: x=1');
    expect(headerSafe('text/html\0')).toBe('text/html');
    expect(headerSafe('x 日本')).toBe('x %E6%97%A5%E6%9C%AC');
    expect(headerProblem('X-A', headerSafe('\u2028a\r\n\0日\ud800'))).toBeUndefined();
  });

  it('sendableHeaders drops bad names and connection headers', () => {
    expect(sendableHeaders({ 'X-A': 'a\nb', 'Bad Name': 'v', 'Transfer-Encoding': 'chunked', 'content-length': '1', Connection: 'close', 'X-B': 'ok' })).toEqual({
      'X-A': 'a b',
      'X-B': 'ok',
    });
  });

  it('setResponseHeader sets Content-Type apart, replaces a name in another case, and throws on a bad value', () => {
    const draft: ResponseDraft = { status: 200, content: '', contentType: 'text/html', headers: { 'x-a': '1' } };
    setResponseHeader(draft, 'X-A', '2');
    setResponseHeader(draft, 'content-type', 'text/plain');
    expect(draft).toMatchObject({ contentType: 'text/plain', headers: { 'X-A': '2' } });
    expect(() => setResponseHeader(draft, 'X-B', 'a\r\nSet-Cookie: x=1')).toThrow(/line breaks/);
    expect(draft.headers).toEqual({ 'X-A': '2' });
  });

  it('parseHeaderLines splits on CRLF, LF and bare CR and refuses control characters in a value', () => {
    expect(parseHeaderLines('A: 1\r\nB: 2\rC: 3\n\nD:4')).toEqual([
      ['A', '1'],
      ['B', '2'],
      ['C', '3'],
      ['D', '4'],
    ]);
    expect(() => parseHeaderLines('A: x\0')).toThrow(/control characters/);
  });

  it('headerLineFields finds parameters declared with headerLines(), described or not', () => {
    const schema = z.object({ headers: headerLines(), more: headerLines().describe('more'), content: z.string() });
    expect(headerLineFields(schema)).toEqual(['headers', 'more']);
    expect(schema.parse({ headers: 'A: 1', content: '' }).headers).toEqual([['A', '1']]);
    expect(schema.safeParse({ headers: 'nope', content: '' }).success).toBe(false);
  });
});
