import { describe, expect, it } from 'vitest';
import { uuidv7 } from './uuid.js';

describe('uuidv7', () => {
  it('is a version 7, RFC variant UUID that sorts by time', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
  });

  it('carries the whole 48-bit millisecond time, high bits included', () => {
    expect(uuidv7(0x123456789abc).replace(/-/g, '').slice(0, 12)).toBe('123456789abc');
    expect(uuidv7(0xffffffffffff).slice(0, 13)).toBe('ffffffff-ffff');
    expect(uuidv7(0).slice(0, 13)).toBe('00000000-0000');
  });

  it('does not repeat', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => uuidv7(5)));
    expect(seen.size).toBe(10_000);
  });
});
