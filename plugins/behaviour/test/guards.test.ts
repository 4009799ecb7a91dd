import { describe, expect, it } from 'vitest';
import { fakeClock, memoryCounters, runAction, validateParams } from '@capture/sdk/testing';
import { authBasic } from '../src/auth-basic.js';
import { rateLimit } from '../src/rate-limit.js';
import { sleep } from '../src/sleep.js';

const basic = (user: string, password: string) => ({ authorization: ['Basic ' + Buffer.from(`${user}:${password}`).toString('base64')] });

describe('auth_basic', () => {
  const params = { username: 'u', password: 'p' };

  it('lets the right credentials through untouched', async () => {
    const r = await runAction(authBasic, params, { request: { headers: basic('u', 'p') } });
    expect(r).toMatchObject({ stopped: false, dontSave: false, output: ['Authorised as u'] });
    expect(r.response.status).toBe(200);
  });

  it('missing or wrong credentials answer 401 with WWW-Authenticate, stop and are not saved', async () => {
    for (const headers of [{}, basic('u', 'x'), basic('x', 'p'), { authorization: ['Bearer abc'] }]) {
      const r = await runAction(authBasic, params, { request: { headers } });
      expect(r.response.status).toBe(401);
      expect(r.response.headers['WWW-Authenticate']).toMatch(/^Basic realm=/);
      expect(r).toMatchObject({ stopped: true, dontSave: true });
    }
  });

  it('a password containing a colon works', async () => {
    const r = await runAction(authBasic, { username: 'u', password: 'a:b' }, { request: { headers: basic('u', 'a:b') } });
    expect(r.stopped).toBe(false);
  });

  it('has no effect on e-mails', async () => {
    const r = await runAction(authBasic, params, { request: { type: 'email', headers: {} } });
    expect(r).toMatchObject({ stopped: false, dontSave: false });
  });

  it('requires a password', () => {
    expect(() => validateParams(authBasic, { username: 'u' })).toThrow(/parameters\.password: is required/);
  });
});

describe('rate_limit', () => {
  it('allows count requests per window per IP, then answers 429 without saving', async () => {
    const clock = fakeClock(Date.UTC(2024, 0, 1, 0, 0, 10));
    const counters = memoryCounters();
    const hit = (ip: string) => runAction(rateLimit, { period: 60, count: 2 }, { request: { ip }, services: { clock, counters } });
    expect((await hit('1.1.1.1')).output).toEqual(['Request 1 of 2 in this 60 s window']);
    expect((await hit('1.1.1.1')).response.status).toBe(200);
    const third = await hit('1.1.1.1');
    expect(third.response).toMatchObject({ status: 429, headers: { 'Retry-After': '60' } });
    expect(third).toMatchObject({ stopped: true, dontSave: true });
    expect((await hit('2.2.2.2')).response.status).toBe(200);
    clock.advance(10_000);
    expect((await hit('1.1.1.1')).response).toMatchObject({ status: 429, headers: { 'Retry-After': '50' } });
    clock.advance(50_000);
    expect((await hit('1.1.1.1')).response.status).toBe(200);
  });

  it('the period starts at the first request: two requests either side of a minute boundary share it', async () => {
    const clock = fakeClock(Date.UTC(2024, 0, 1, 0, 0, 59, 999));
    const counters = memoryCounters();
    const hit = () => runAction(rateLimit, { period: 60, count: 1 }, { request: { ip: '1.1.1.1' }, services: { clock, counters } });
    expect((await hit()).response.status).toBe(200);
    clock.advance(2);
    expect((await hit()).response).toMatchObject({ status: 429, headers: { 'Retry-After': '60' } });
    clock.advance(59_997);
    expect((await hit()).response.status).toBe(429);
    clock.advance(1);
    expect((await hit()).response.status).toBe(200);
  });

  it('counts per key when one is given', async () => {
    const counters = memoryCounters();
    const hit = (apiKey: string, ip: string) => runAction(rateLimit, { period: 60, count: 1, key: '$request.header.x-key$' }, { request: { ip, headers: { 'x-key': [apiKey] } }, services: { counters } });
    expect((await hit('a', '1.1.1.1')).response.status).toBe(200);
    expect((await hit('a', '2.2.2.2')).response.status).toBe(429);
    expect((await hit('b', '1.1.1.1')).response.status).toBe(200);
  });

  it('a counter store that fails is an action error, not a refusal', async () => {
    const r = await runAction(rateLimit, { period: 60, count: 1 }, { services: { counters: { hit: () => Promise.reject(new Error('store down')), hitWindow: () => Promise.reject(new Error('store down')) } } });
    expect(r.errors).toEqual(['store down']);
    expect(r.response.status).toBe(200);
  });

  it('requires period and count as integers', () => {
    expect(() => validateParams(rateLimit, { count: 1 })).toThrow(/parameters\.period: is required/);
    expect(() => validateParams(rateLimit, { period: '1.5', count: 1 })).toThrow(/parameters\.period/);
    expect(() => validateParams(rateLimit, { period: 0, count: 1 })).toThrow(/parameters\.period/);
    expect(validateParams(rateLimit, { period: '60', count: 1 })).toEqual({ period: '60', count: 1 });
  });
});

describe('sleep', () => {
  it('waits the delay on the clock', async () => {
    const clock = fakeClock();
    const start = clock.now();
    const r = await runAction(sleep, { delay: '1.5' }, { services: { clock } });
    expect(clock.now() - start).toBe(1500);
    expect(r.output).toEqual(['Slept 1.5 s']);
  });

  it('never sleeps past the time budget', async () => {
    const clock = fakeClock();
    const start = clock.now();
    const r = await runAction(sleep, { delay: 10 }, { services: { clock }, budgetMs: 2000 });
    expect(clock.now() - start).toBe(2000);
    expect(r.output[0]).toMatch(/cut short by the time budget/);
  });

  it('wakes up when the chain is aborted (real timers)', async () => {
    const { systemClock } = await import('@capture/sdk');
    const t = Date.now();
    await runAction(sleep, { delay: 5 }, { services: { clock: systemClock }, budgetMs: 100 });
    expect(Date.now() - t).toBeLessThan(2000);
  });

  it('has no effect beyond 100 / delay sleeps a minute', async () => {
    // A clock that stays in one minute while "sleeping".
    const clock = { now: () => Date.UTC(2024, 0, 1), sleep: async () => {} };
    const counters = memoryCounters();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await runAction(sleep, { delay: 30 }, { services: { clock, counters } }));
    expect(results.map((r) => r.output[0].startsWith('Slept'))).toEqual([true, true, true, false]);
  });

  it('queued, it is not limited', async () => {
    const clock = { now: () => Date.UTC(2024, 0, 1), sleep: async () => {} };
    const counters = memoryCounters();
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await runAction(sleep, { delay: 30 }, { services: { clock, counters }, queued: true, budgetMs: 120_000 }));
    expect(results.map((r) => r.output[0].startsWith('Slept'))).toEqual([true, true, true, true, true]);
  });

  it('accepts at most 30 seconds', () => {
    expect(() => validateParams(sleep, { delay: '31' })).toThrow(/parameters\.delay: must be between 0 and 30 seconds/);
    expect(() => validateParams(sleep, { delay: 'soon' })).toThrow(/parameters\.delay/);
    expect(() => validateParams(sleep, {})).toThrow(/parameters\.delay: is required/);
  });
});
