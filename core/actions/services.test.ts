import { describe, expect, it } from 'vitest';
import { testConfig } from '../config.js';
import { container } from '@capture/sdk/container';
import { DATABASES, GLOBAL_VARIABLES, LOGGER, type Logger, PROVIDERS, systemClock } from '@capture/sdk';
import { fakeClock, silentLogger } from '@capture/sdk/testing';
import { createSqliteStore } from '../store/sqlite/index.js';
import { accountGlobals, registerCoreServices, runServices } from './services.js';

describe('services', () => {
  it('resolves ctx.services from the container it is asked in, scoped to the run owner', async () => {
    const store = createSqliteStore(':memory:');
    try {
      const host = container.createChildContainer();
      registerCoreServices(host, { config: testConfig(), store, clock: systemClock, logger: silentLogger });
      // What the globals, providers and databases modules register.
      host.registerInstance(GLOBAL_VARIABLES, { forAccount: (o) => accountGlobals(store.globals, `user:${o.userId}`) });
      host.registerInstance(PROVIDERS, { forAccount: () => ({ get: () => Promise.reject(new Error('none')), saveCredentials: async () => {} }) });
      host.registerInstance(DATABASES, { forAccount: () => ({ query: () => Promise.reject(new Error('none')) }) });
      const own: Logger = { ...silentLogger, child: () => own };
      const plugin = host.createChildContainer();
      plugin.registerInstance(LOGGER, own);

      const a = runServices(host, { tokenId: 't1', userId: 1, groupId: null });
      const b = runServices(plugin, { tokenId: 't2', userId: 2, groupId: null });
      expect(a.logger).toBe(silentLogger);
      expect(b.logger).toBe(own);
      expect(a.clock).toBe(systemClock);
      expect(b.http).toBe(a.http);
      await a.globals.set('x', '1');
      expect(await a.globals.get('x')).toBe('1');
      expect(await b.globals.get('x')).toBeNull();
      await expect(a.requests.list('nope', { limit: 1 })).rejects.toThrow(/not found/);
    } finally {
      await store.close();
    }
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
