import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParameterSecrets } from '../actions/secret-params.js';
import { ActionRegistry } from '../actions/registry.js';
import { defineAction, secret, z } from '@capture/sdk';
import { sampleToken } from '../store/store.contract.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { Store } from '../store/types.js';
import { rotateSecrets } from './rotate-secrets.js';
import { createSealer } from './sealing.js';

const login = defineAction({
  type: 'login',
  title: 'Login',
  category: 'test',
  description: 'One secret.',
  parameters: z.object({ user: z.string(), password: secret(z.string()) }),
  execute() {},
});

const registry = new ActionRegistry();
registry.addAll('test', [login]);
const oldSealer = createSealer('old-key');
const newSealer = createSealer('new-key', ['old-key']);
const oldSecrets = new ParameterSecrets(registry, oldSealer);
const newSecrets = new ParameterSecrets(registry, newSealer);

const workflow = (password: string) => ({ kind: 'TokenActions', spec: { steps: [{ id: 's1', type: 'login', parameters: oldSecrets.seal('login', { user: 'bob', password }) }] } });
const passwordOf = (doc: Record<string, unknown> | undefined) => newSecrets.open('login', (doc as ReturnType<typeof workflow>).spec.steps[0]!.parameters).password;

let store: Store;
beforeEach(() => {
  store = createSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

describe('rotateSecrets', () => {
  it('keeps a save made while it ran: re-reads the record and re-seals what is stored now', async () => {
    const t = sampleToken();
    await store.tokens.create(t);
    await store.workflows.putForToken(t.uuid, workflow('before'), 1);
    // A user saves a new password between the rotation's read and its write.
    let raced = false;
    const racing: Store = Object.create(store);
    racing.workflows = Object.assign(Object.create(store.workflows), {
      async replaceDocument(tokenId: string, expected: Record<string, unknown>, document: Record<string, unknown>) {
        if (!raced) {
          raced = true;
          await store.workflows.putForToken(tokenId, workflow('saved meanwhile'), 2);
        }
        return store.workflows.replaceDocument(tokenId, expected, document);
      },
    });
    const report = await rotateSecrets(racing, newSealer, newSecrets);
    expect(report.workflows).toEqual({ resealed: 1, current: 0, failed: [] });
    const stored = await store.workflows.getForToken(t.uuid);
    expect(passwordOf(stored?.document)).toBe('saved meanwhile');
    expect(createSealer('new-key').isCurrent(String((stored?.document as ReturnType<typeof workflow>).spec.steps[0]!.parameters.password).slice('sealed:'.length))).toBe(true);
  });

  it('re-seals providers and templates of every user, page after page', async () => {
    const ids = [];
    for (let i = 0; i < 150; i++) {
      const id = randomUUID();
      ids.push(id);
      await store.providers.create({ id, user_id: 1 + (i % 3), type: 'vault', name: `p${i}`, settings: {}, secret: oldSealer.seal({ api_key: `k${i}` }), created_at: i, updated_at: i });
    }
    const steps = [{ id: randomUUID(), type: 'login', parameters: oldSecrets.seal('login', { user: 'a', password: 'tpl' }) }];
    const tpl = await store.templates.create({ user_id: 7, name: 'T', variables: [], actions: steps, created_at: 1, updated_at: 1 });
    const report = await rotateSecrets(store, newSealer, newSecrets);
    expect(report.providers).toEqual({ resealed: 150, current: 0, failed: [] });
    expect(report.templates).toEqual({ resealed: 1, current: 0, failed: [] });
    const only = createSealer('new-key');
    for (const [i, id] of ids.entries()) expect(only.open((await store.providers.get(1 + (i % 3), id))!.secret)).toEqual({ api_key: `k${i}` });
    const stored = (await store.templates.get(7, tpl.id))!;
    expect(new ParameterSecrets(registry, only).open('login', stored.actions[0]!.parameters as Record<string, unknown>).password).toBe('tpl');
    expect(stored.updated_at).toBe(1);
  });
});
