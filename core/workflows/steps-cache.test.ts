// The steps a capture runs are kept per token for a second: an edit through one workflow service
// is seen by it at once; a second service on the same store (another process) sees it once its
// entry is a second old, as the token cache does.
import { describe, expect, it } from 'vitest';
import { loadPlugins } from '../actions/loader.js';
import { ParameterSecrets } from '../actions/secret-params.js';
import { createSealer } from '../auth/sealing.js';
import { silentLogger } from '../logger.js';
import { fakeClock } from '@capture/sdk/testing';
import { createSqliteStore } from '../store/sqlite/index.js';
import { sampleToken } from '../store/store.contract.js';
import { WorkflowService } from './service.js';

describe('chainSteps', () => {
  it('sees its own edits at once and another process’s within a second; the steps it shares are frozen', async () => {
    const store = createSqliteStore(':memory:');
    try {
      const { registry } = await loadPlugins({ logger: silentLogger });
      const clock = fakeClock();
      const service = () => new WorkflowService(store, registry, clock, new ParameterSecrets(registry, createSealer('k'.repeat(32))));
      const here = service();
      const elsewhere = service();
      const token = sampleToken({ actions: true });
      await store.tokens.create(token);
      const texts = async (s: WorkflowService) => (await s.chainSteps(token)).map((step) => step.parameters.text);

      expect(await texts(here)).toEqual([]);
      await here.create(token, { type: 'log', parameters: { text: 'one' } });
      expect(await texts(here)).toEqual(['one']);
      expect(await texts(elsewhere)).toEqual(['one']);

      const first = await here.create(token, { type: 'log', parameters: { text: 'two' } });
      expect(await texts(here)).toEqual(['one', 'two']);
      // The other service still holds what it read; a second later it reads again.
      expect(await texts(elsewhere)).toEqual(['one']);
      clock.advance(1001);
      expect(await texts(elsewhere)).toEqual(['one', 'two']);

      // Every edit path saves through the service: update, disable, remove.
      await here.update(token, first.uuid, { type: 'log', parameters: { text: 'changed' } });
      expect(await texts(here)).toEqual(['one', 'changed']);
      await here.disable(token, first.uuid);
      expect((await here.chainSteps(token)).map((s) => s.disabled)).toEqual([false, true]);
      await here.remove(token, first.uuid);
      expect(await texts(here)).toEqual(['one']);

      // Shared by every capture of the token: nothing may change them.
      const steps = await here.chainSteps(token);
      expect(await here.chainSteps(token)).toBe(steps);
      expect(Object.isFrozen(steps) && Object.isFrozen(steps[0]) && Object.isFrozen(steps[0]!.parameters)).toBe(true);
      // Edits read the store, not the cache: the other service's edit keeps this one's step.
      await elsewhere.create(token, { type: 'log', parameters: { text: 'three' } });
      expect(await texts(elsewhere)).toEqual(['one', 'three']);
    } finally {
      await store.close();
    }
  });
});
