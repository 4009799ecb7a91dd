import { describe, expect, it } from 'vitest';
import { originForm } from './request-target.js';

describe('originForm', () => {
  it('keeps the path and query of an absolute-form target', () => {
    expect(originForm('http://example.com:8084/abc/def?x=1')).toBe('/abc/def?x=1');
    expect(originForm('HTTPS://example.com')).toBe('/');
    expect(originForm('http://example.com?x=1')).toBe('/?x=1');
  });

  it('reads asterisk-form as /', () => {
    expect(originForm('*')).toBe('/');
  });

  it('returns anything else as it is', () => {
    expect(originForm('/already/origin?x')).toBe('/already/origin?x');
    expect(originForm('example.com:443')).toBe('example.com:443');
  });
});
