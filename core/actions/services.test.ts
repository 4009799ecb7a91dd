import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { container } from 'tsyringe';
import { CLOCK, COUNTERS, GLOBAL_VARIABLES, HTTP_CLIENT, LOGGER, NETWORK, fetchHttpClient, openNetwork, systemClock } from '../sdk/index.js';
import { fakeClock, memoryCounters, memoryGlobals, silentLogger } from '../sdk/testing.js';
import { accountGlobals, servicesFromContainer } from './services.js';

describe('services', () => {
  it('servicesFromContainer resolves every service by its SDK token; overrides win', async () => {
    const c = container.createChildContainer();
    const globals = memoryGlobals();
    c.registerInstance(HTTP_CLIENT, fetchHttpClient);
    c.registerInstance(GLOBAL_VARIABLES, globals);
    c.registerInstance(COUNTERS, memoryCounters());
    c.registerInstance(CLOCK, systemClock);
    c.registerInstance(LOGGER, silentLogger);
    c.registerInstance(NETWORK, openNetwork);
    const own = memoryGlobals();
    const s = servicesFromContainer(c, { globals: own });
    expect(s.http).toBe(fetchHttpClient);
    expect(s.net).toBe(openNetwork);
    // Account-scoped services have no container default.
    await expect(s.providers.get('1', 'aws')).rejects.toThrow(/not available/);
    expect(s.clock).toBe(systemClock);
    expect(s.globals).toBe(own);
  });

  it('accountGlobals scopes the store to one owner', async () => {
    const rows = new Map<string, string>();
    const store = {
      get: async (owner: string, name: string) => (rows.has(`${owner}/${name}`) ? { value: rows.get(`${owner}/${name}`)! } : null),
      set: async (owner: string, name: string, value: string) => void rows.set(`${owner}/${name}`, value),
      all: async (owner: string) => Object.fromEntries([...rows].filter(([k]) => k.startsWith(owner + '/')).map(([k, v]) => [k.slice(owner.length + 1), v])),
    };
    const a = accountGlobals(store, 'user:1', fakeClock());
    await a.set('x', '1');
    await accountGlobals(store, 'user:2').set('x', '2');
    expect(await a.get('x')).toBe('1');
    expect(await a.get('y')).toBeNull();
    expect(await a.all()).toEqual({ x: '1' });
  });
});
