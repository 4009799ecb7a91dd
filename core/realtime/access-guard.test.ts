import { describe, expect, it, vi } from 'vitest';
import { Unauthorized } from '../errors.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { guardStream } from './access-guard.js';
import { createBus, type RealtimeEvent } from './bus.js';

const token = (patch: Partial<TokenRecord> = {}) => ({ uuid: 't1', user_id: 7, password_hash: null, ...patch }) as TokenRecord;
const created = (uuid: string): RealtimeEvent => ({ type: 'request.created', tokenId: 't1', request: { uuid, token_id: 't1', sorting: 1 } as RequestRecord });
const updated = (t: TokenRecord): RealtimeEvent => ({ type: 'token.updated', tokenId: 't1', token: t });
const uuids = (events: RealtimeEvent[]) => events.map((e) => (e.type === 'request.created' ? e.request.uuid : e.type));

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function setup(userId: number | null = 7) {
  const bus = createBus();
  const got: RealtimeEvent[] = [];
  const revoked: unknown[] = [];
  const checks: Array<ReturnType<typeof deferred<TokenRecord>>> = [];
  const check = vi.fn(() => {
    const d = deferred<TokenRecord>();
    checks.push(d);
    return d.promise;
  });
  const stop = guardStream({ bus, token: token(), userId, check, deliver: (e) => got.push(e), revoke: (err) => revoked.push(err) });
  return { bus, got, revoked, checks, check, stop };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('guardStream', () => {
  it('delivers captures and settings changes that leave access alone without checking', () => {
    const { bus, got, check } = setup();
    bus.publish(created('a'));
    bus.publish(updated(token({ description: 'x' } as Partial<TokenRecord>)));
    bus.publish(created('b'));
    expect(uuids(got)).toEqual(['a', 'token.updated', 'b']);
    expect(check).not.toHaveBeenCalled();
  });

  it('holds events while the caller’s access is checked again, then delivers them in order', async () => {
    const { bus, got, checks, revoked } = setup();
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    bus.publish(created('a'));
    bus.publish(created('b'));
    expect(got).toEqual([]);
    checks[0]!.resolve(token());
    await settle();
    expect(uuids(got)).toEqual(['a', 'b']);
    expect(revoked).toEqual([]);
    bus.publish(created('c'));
    expect(uuids(got)).toEqual(['a', 'b', 'c']);
  });

  it('revokes the stream and drops what was held when the check fails; nothing is delivered after', async () => {
    const { bus, got, checks, revoked } = setup();
    bus.publish(updated(token({ password_hash: 'new' })));
    bus.publish(created('a'));
    const err = new Unauthorized('Wrong token password');
    checks[0]!.reject(err);
    await settle();
    expect(revoked).toEqual([err]);
    bus.publish(created('b'));
    expect(got).toEqual([]);
    expect(bus.subscriberCount('t1')).toBe(0);
  });

  it('rechecks on an owner change, and ignores other users’ access changes', async () => {
    const { bus, got, check, checks } = setup();
    bus.publishAccess({ type: 'user.access_changed', userId: 8 });
    expect(check).not.toHaveBeenCalled();
    bus.publish(updated(token({ user_id: 8 })));
    expect(check).toHaveBeenCalledTimes(1);
    checks[0]!.resolve(token({ user_id: 8 }));
    await settle();
    expect(uuids(got)).toEqual(['token.updated']);
  });

  it('checks again when access changes while a check runs', async () => {
    const { bus, got, check, checks, revoked } = setup();
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    bus.publish(created('a'));
    checks[0]!.resolve(token());
    await settle();
    expect(check).toHaveBeenCalledTimes(2);
    expect(got).toEqual([]);
    checks[1]!.reject(new Unauthorized('Invalid API key'));
    await settle();
    expect(revoked).toHaveLength(1);
    expect(got).toEqual([]);
  });

  it('ends the stream, without an unhandled rejection, when sending a held event throws', async () => {
    const bus = createBus();
    const revoked: unknown[] = [];
    const boom = new Error('socket gone');
    guardStream({
      bus,
      token: token(),
      userId: 7,
      check: async () => token(),
      deliver: () => {
        throw boom;
      },
      revoke: (err) => revoked.push(err),
    });
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    bus.publish(created('a'));
    await settle();
    expect(revoked).toEqual([boom]);
    expect(bus.subscriberCount('t1')).toBe(0);
  });

  it('a stream opened without a user key does not listen to user changes', () => {
    const { bus, check } = setup(null);
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    expect(check).not.toHaveBeenCalled();
  });
});
