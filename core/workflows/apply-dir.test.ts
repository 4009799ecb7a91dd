import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlugins } from '../actions/loader.js';
import { ParameterSecrets } from '../actions/secret-params.js';
import { createSealer } from '../auth/sealing.js';
import { silentLogger } from '../logger.js';
import type { ModuleContext } from '../modules.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import { systemClock } from '../util/time.js';
import { applyWorkflowDir } from './apply-dir.js';
import { WorkflowService } from './service.js';

const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';
const T3 = '33333333-3333-4333-8333-333333333333';
const doc = (token: string, text: string) => `apiVersion: capture/v1\nkind: TokenActions\nmetadata: {token: "${token}"}\nspec:\n  steps:\n    - type: log\n      parameters: {text: "${text}"}\n`;

describe('TokenActions documents from workflows/ at start-up', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wf-apply-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('applies every TokenActions document of the files in the folder (several per file), and nothing under examples/', async () => {
    const store = createSqliteStore(':memory:');
    try {
      const { registry } = await loadPlugins({ logger: silentLogger });
      const workflows = new WorkflowService(store, registry, systemClock, new ParameterSecrets(registry, createSealer('k'.repeat(32))));
      const ctx = { store, clock: systemClock, logger: silentLogger } as unknown as ModuleContext; // the parts applyWorkflowDir uses
      fs.writeFileSync(path.join(dir, 'two.yaml'), `${doc(T1, 'one')}---\napiVersion: capture/v1\nkind: Schedule\n---\n${doc(T2, 'two')}`);
      fs.writeFileSync(path.join(dir, 'broken.yaml'), 'kind: [');
      fs.mkdirSync(path.join(dir, 'examples'));
      fs.writeFileSync(path.join(dir, 'examples', 'ex.yaml'), doc(T3, 'example'));
      expect(await applyWorkflowDir(ctx, workflows, dir)).toBe(2);
      for (const [uuid, text] of [
        [T1, 'one'],
        [T2, 'two'],
      ] as const) {
        const token = await store.tokens.resolve(uuid);
        expect(token).not.toBeNull();
        expect((await workflows.steps(token!)).map((s) => s.parameters)).toEqual([{ text }]);
      }
      expect(await store.tokens.resolve(T3)).toBeNull();
      // Idempotent: applying again keeps the step IDs.
      const before = await workflows.steps((await store.tokens.resolve(T1))!);
      expect(await applyWorkflowDir(ctx, workflows, dir)).toBe(2);
      expect((await workflows.steps((await store.tokens.resolve(T1))!)).map((s) => s.id)).toEqual(before.map((s) => s.id));
    } finally {
      await store.close();
    }
  });
});
