import { describe, expect, it } from 'vitest';
import { ScriptOutput } from './output.js';

function collect(limits: { maxBytes: number; maxLineBytes: number; maxLines: number }, lines: string[]): string[] {
  const kept: string[] = [];
  const out = new ScriptOutput(limits, (line) => kept.push(line));
  for (const line of lines) out.write(line);
  return kept;
}

describe('script output limits', () => {
  it('cuts a long line at the per-line byte cap, never inside a character', () => {
    const [line] = collect({ maxBytes: 1000, maxLineBytes: 10, maxLines: 10 }, ['ééééééé']); // 14 bytes
    expect(line).toBe('ééééé… (line cut at 10 bytes)');
    const [odd] = collect({ maxBytes: 1000, maxLineBytes: 9, maxLines: 10 }, ['ééééééé']);
    expect(odd.startsWith('éééé…')).toBe(true);
  });

  it('stops at the total byte cap with a marker line and keeps nothing after it', () => {
    const kept = collect({ maxBytes: 25, maxLineBytes: 100, maxLines: 100 }, ['0123456789', '0123456789', '0123456789', 'later']);
    expect(kept).toEqual(['0123456789', '0123456789', '01234', '(output cut: more than 25 bytes)']);
  });

  it('counts bytes, not characters', () => {
    const kept = collect({ maxBytes: 8, maxLineBytes: 100, maxLines: 100 }, ['€€', '€']); // 6 + 3 bytes
    expect(kept).toEqual(['€€', '(output cut: more than 8 bytes)']);
  });

  it('stops after the line cap', () => {
    const kept = collect({ maxBytes: 1000, maxLineBytes: 100, maxLines: 2 }, ['a', 'b', 'c', 'd']);
    expect(kept).toEqual(['a', 'b', '(output cut: more than 2 lines)']);
  });
});
