// guardStream for streams opened with a share link (recheckOnEveryUpdate): a share changes without
// changing the token's owner or password, so every token.updated is checked, once.
import { describe, expect, it, vi } from 'vitest';
import { Unauthorized } from '../errors.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { guardStream } from './access-guard.js';
import { createBus, type RealtimeEvent } from './bus.js';

const token = (patch: Partial<TokenRecord> = {}) => ({ uuid: 't1', user_id: 7, password_hash: null, ...patch }) as TokenRecord;
const created = (uuid: string): RealtimeEvent => ({ type: 'request.created', tokenId: 't1', request: { uuid, token_id: 't1', sorting: 1 } as RequestRecord });
const updated = (t: TokenRecord): RealtimeEvent => ({ type: 'token.updated', tokenId: 't1', token: t });
const kinds = (events: RealtimeEvent[]) => events.map((e) => (e.type === 'request.created' ? e.request.uuid : e.type));
const settle = () => new Promise((r) => setImmediate(r));

function setup(results: Array<'ok' | 'revoked'>) {
  const bus = createBus();
  const got: RealtimeEvent[] = [];
  const revoked: unknown[] = [];
  const check = vi.fn(async () => {
    if (results.shift() === 'revoked') throw new Unauthorized('This share link is not valid');
    return token();
  });
  guardStream({ bus, token: token(), userId: null, recheckOnEveryUpdate: true, check, deliver: (e) => got.push(e), revoke: (err) => revoked.push(err) });
  return { bus, got, revoked, check };
}

describe('guardStream with a share link', () => {
  it('checks on every token.updated, even one that leaves owner and password alone, then delivers it once', async () => {
    const { bus, got, check, revoked } = setup(['ok', 'ok']);
    bus.publish(created('a'));
    bus.publish(updated(token({ description: 'x' } as Partial<TokenRecord>)));
    bus.publish(created('b'));
    expect(kinds(got)).toEqual(['a']);
    await settle();
    expect(check).toHaveBeenCalledTimes(1);
    expect(kinds(got)).toEqual(['a', 'token.updated', 'b']);
    bus.publish(updated(token()));
    await settle();
    expect(check).toHaveBeenCalledTimes(2);
    expect(kinds(got)).toEqual(['a', 'token.updated', 'b', 'token.updated']);
    expect(revoked).toEqual([]);
  });

  it('ends the stream when the check fails (link revoked or replaced) and delivers nothing held', async () => {
    const { bus, got, revoked } = setup(['revoked']);
    bus.publish(updated(token()));
    bus.publish(created('after'));
    await settle();
    expect(got).toEqual([]);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toBeInstanceOf(Unauthorized);
    bus.publish(created('later'));
    expect(got).toEqual([]);
  });

  it('a token.updated held during a check is checked after it', async () => {
    const { bus, got, check, revoked } = setup(['ok', 'revoked']);
    bus.publish(updated(token()));
    bus.publish(updated(token({ description: 'second' } as Partial<TokenRecord>)));
    bus.publish(created('x'));
    await settle();
    await settle();
    expect(check).toHaveBeenCalledTimes(2);
    expect(kinds(got)).toEqual(['token.updated']);
    expect(revoked).toHaveLength(1);
  });
});
