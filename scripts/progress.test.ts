import { describe, expect, it } from 'vitest';
import { formatProgress, progress } from './progress.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, s: { isTTY, write: (t: string) => (written.push(t), true) } as unknown as NodeJS.WriteStream };
}

describe('progress on stderr', () => {
  it('shows done/total, percentage, rate (without what a resumed run had done) and ETA', () => {
    expect(formatProgress({ what: 'requests', done: 3000, total: 10_000, resumed: 1000 }, 2000, false)).toBe(`${'requests'.padEnd(22)} 3,000/10,000  30%  1,000/s  ETA 7s`);
    expect(formatProgress({ what: 'users', done: 0, total: 0 }, 0, true)).toMatch(/\[#{24}\] 0\/0 100% .* done$/);
  });

  it('redraws one line per item on a terminal', () => {
    const { written, s } = stream(true);
    const bar = progress(s, () => 0);
    bar.update({ what: 'tokens', done: 1, total: 2 });
    bar.update({ what: 'tokens', done: 2, total: 2 });
    bar.update({ what: 'requests', done: 0, total: 5 });
    bar.end();
    expect(written.join('')).toMatch(/^\r\x1b\[Ktokens .*\r\x1b\[Ktokens .*2\/2 100%.*\n\r\x1b\[Krequests .*0\/5.*\n$/s);
  });

  it('prints plain lines, at most one every few seconds and one when an item ends, when stderr is not a terminal', () => {
    const { written, s } = stream(false);
    let now = 0;
    const bar = progress(s, () => now);
    for (let done = 0; done <= 100; done += 10, now += 1000) bar.update({ what: 'requests', done, total: 100 });
    bar.update({ what: 'requests', done: 100, total: 100 });
    expect(written.every((l) => l.endsWith('\n') && !l.includes('\r'))).toBe(true);
    expect(written.map((l) => l.match(/ (\d+)\/100/)![1])).toEqual(['0', '50', '100']);
  });
});
