import { describe, expect, it } from 'vitest';
import { container } from '../sdk/container.js';
import { CLOCK, COUNTERS, GLOBAL_VARIABLES, HTTP_CLIENT, LOGGER, NETWORK, fetchHttpClient, openNetwork, systemClock } from '../sdk/index.js';
import { fakeClock, memoryCounters, memoryGlobals, silentLogger } from '../sdk/testing.js';
import { createSqliteStore } from '../store/sqlite/index.js';
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

  it('accountGlobals scopes the store to one owner, and deletes by name', async () => {
    const store = createSqliteStore(':memory:');
    try {
      const a = accountGlobals(store.globals, 'user:1', fakeClock());
      const b = accountGlobals(store.globals, 'user:2');
      await a.set('x', '1');
      await b.set('x', '2');
      expect(await a.get('x')).toBe('1');
      expect(await a.get('y')).toBeNull();
      expect(await a.all()).toEqual({ x: '1' });
      expect(await a.delete('x')).toBe(true);
      expect(await a.delete('x')).toBe(false);
      expect(await a.get('x')).toBeNull();
      expect(await b.get('x')).toBe('2');
    } finally {
      await store.close();
    }
  });
});
