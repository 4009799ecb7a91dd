import { describe, expect, it, vi } from 'vitest';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { createBus, type RealtimeEvent, type SharedEvent } from './bus.js';

const req = (uuid: string, tokenId = 't1') => ({ uuid, token_id: tokenId, sorting: 1 }) as RequestRecord;
const created = (uuid: string, tokenId = 't1'): RealtimeEvent => ({ type: 'request.created', tokenId, request: req(uuid, tokenId) });

describe('realtime bus', () => {
  it('delivers a token’s events to its subscribers and to subscribeAll, until they unsubscribe', () => {
    const bus = createBus();
    const t1: RealtimeEvent[] = [];
    const all: RealtimeEvent[] = [];
    const off1 = bus.subscribe('t1', (e) => t1.push(e));
    const offAll = bus.subscribeAll((e) => all.push(e));
    expect(bus.subscriberCount('t1')).toBe(1);
    expect(bus.watches('t2')).toBe(true); // subscribeAll watches every token
    bus.publish(created('a'));
    bus.publish(created('b', 't2'));
    expect(t1.map((e) => e.type === 'request.created' && e.request.uuid)).toEqual(['a']);
    expect(all).toHaveLength(2);
    off1();
    offAll();
    expect(bus.subscriberCount('t1')).toBe(0);
    expect(bus.watchedTokens()).toEqual([]);
    expect(bus.hasWatchers()).toBe(false);
    bus.publish(created('c'));
    expect(t1).toHaveLength(1);
  });

  it('drops a request.created already delivered (local hook and cross-process feed may both see it)', () => {
    const bus = createBus();
    const got: RealtimeEvent[] = [];
    bus.subscribe('t1', (e) => got.push(e));
    bus.deliverRemote(created('a'));
    bus.publish(created('a'));
    bus.publish(created('b'));
    bus.deliverRemote(created('b'));
    expect(got).toHaveLength(2);
    expect(bus.seen('a')).toBe(true);
    expect(bus.seen('zzz')).toBe(false);
  });

  it('forgets delivered UUIDs after the dedupe window', () => {
    let now = 1000;
    const bus = createBus({ dedupeMs: 100, now: () => now });
    const got: RealtimeEvent[] = [];
    bus.subscribe('t1', (e) => got.push(e));
    bus.publish(created('a'));
    expect(bus.seen('a')).toBe(true);
    now += 101;
    expect(bus.seen('a')).toBe(false);
    bus.publish(created('b')); // prunes 'a'
    bus.publish(created('a'));
    expect(got).toHaveLength(3);
  });

  it('remembers nothing about tokens nobody listens to', () => {
    const bus = createBus();
    bus.subscribe('t1', () => undefined);
    bus.publish(created('x', 't2'));
    expect(bus.seen('x')).toBe(false);
    bus.publish(created('y', 't1'));
    expect(bus.seen('y')).toBe(true);
  });

  it('shares deletions and token changes with other processes, not captures nor remote events', () => {
    const shared: SharedEvent[] = [];
    const bus = createBus({ share: (e) => shared.push(e) });
    bus.publish(created('a'));
    bus.publish({ type: 'request.deleted', tokenId: 't1', data: { uuid: 'a' } });
    bus.publish({ type: 'token.updated', tokenId: 't1', token: { uuid: 't1' } as TokenRecord });
    bus.publish({ type: 'token.deleted', tokenId: 't1' });
    bus.deliverRemote({ type: 'request.deleted', tokenId: 't1', data: { all: true } });
    expect(shared).toEqual([
      { type: 'request.deleted', tokenId: 't1', data: { uuid: 'a' } },
      { type: 'token.updated', tokenId: 't1', data: {} },
      { type: 'token.deleted', tokenId: 't1', data: {} },
    ]);
  });

  it('delivers a user’s access changes to that user’s listeners and shares them, apart from token events', () => {
    const shared: SharedEvent[] = [];
    const bus = createBus({ share: (e) => shared.push(e) });
    const seven: number[] = [];
    const off = bus.subscribeAccess(7, (e) => seven.push(e.userId));
    bus.subscribeAccess(8, () => seven.push(-1));
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    bus.deliverRemoteAccess({ type: 'user.access_changed', userId: 7 });
    expect(seven).toEqual([7, 7]);
    expect(shared).toEqual([{ type: 'user.access_changed', tokenId: '', data: { user_id: 7 } }]);
    // Access listeners watch no token: the capture feed does not load requests for them.
    expect(bus.watchedTokens()).toEqual([]);
    off();
    bus.publishAccess({ type: 'user.access_changed', userId: 7 });
    expect(seven).toEqual([7, 7]);
  });

  it('isolates a failing listener', () => {
    const onListenerError = vi.fn();
    const bus = createBus({ onListenerError });
    const got: string[] = [];
    bus.subscribe('t1', () => {
      throw new Error('boom');
    });
    bus.subscribe('t1', (e) => got.push(e.type));
    bus.publish(created('a'));
    expect(got).toEqual(['request.created']);
    expect(onListenerError).toHaveBeenCalledOnce();
  });

  it('lets a listener unsubscribe itself while an event is delivered', () => {
    const bus = createBus();
    const got: string[] = [];
    const off = bus.subscribe('t1', () => off());
    bus.subscribe('t1', (e) => got.push(e.type));
    bus.publish(created('a'));
    bus.publish(created('b'));
    expect(got).toHaveLength(2);
    expect(bus.subscriberCount('t1')).toBe(1);
  });
});
