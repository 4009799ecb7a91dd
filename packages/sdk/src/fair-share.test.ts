import { describe, expect, it } from 'vitest';
import { FairQueue, accountOf } from './fair-share.js';

/** Takes everything that may start now; gives `account:item` in the order taken. */
function drain(q: FairQueue<string>): string[] {
  const taken: string[] = [];
  for (let next = q.take(); next; next = q.take()) taken.push(`${next.account}:${next.item}`);
  return taken;
}

describe('fair queue', () => {
  it('takes accounts in turn, whatever order their runs arrived in', () => {
    const q = new FairQueue<string>(10);
    for (let i = 1; i <= 3; i++) q.push('a', `a${i}`);
    q.push('b', 'b1');
    q.push('c', 'c1');
    q.push('b', 'b2');
    expect(drain(q)).toEqual(['a:a1', 'b:b1', 'c:c1', 'a:a2', 'b:b2', 'a:a3']);
    expect(q.waiting).toBe(0);
  });

  it("holds an account's runs beyond its cap until one of them is done; other accounts go ahead", () => {
    const q = new FairQueue<string>(2);
    for (let i = 1; i <= 20; i++) q.push('flood', `f${i}`);
    q.push('quiet', 'q1');
    expect(drain(q)).toEqual(['flood:f1', 'quiet:q1', 'flood:f2']);
    expect(q.running('flood')).toBe(2);
    expect(q.waiting).toBe(18);
    q.done('flood');
    expect(drain(q)).toEqual(['flood:f3']);
    q.done('quiet');
    expect(q.running('quiet')).toBe(0);
  });

  it('lets a waiting run give up, and empties on clear', () => {
    const q = new FairQueue<string>(1);
    q.push('a', 'a1');
    q.push('a', 'a2');
    q.push('b', 'b1');
    expect(q.remove('a', 'a2')).toBe(true);
    expect(q.remove('a', 'a2')).toBe(false);
    expect(q.waiting).toBe(2);
    expect(q.clear().sort()).toEqual(['a1', 'b1']);
    expect(q.take()).toBeUndefined();
  });

  it("counts a token's runs against its owner, or against the token when anonymous", () => {
    expect(accountOf({ uuid: 't1', user_id: 7 })).toBe('user:7');
    expect(accountOf({ uuid: 't2', user_id: 7 })).toBe('user:7');
    expect(accountOf({ uuid: 't3', user_id: null })).toBe('token:t3');
  });
});
