// The built-in plugins' manifests declare what their code defines (action and provider types, the
// npm packages src/ imports, the SDK as a peer): the loader trusts them to defer imports.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPluginDirs, expectedManifest, manifestText } from './plugin-manifests.js';

describe('plugin manifests', () => {
  it('every built-in manifest matches its plugin (run `npx tsx scripts/plugin-manifests.ts` to rewrite them)', async () => {
    const dirs = builtinPluginDirs();
    expect(dirs.length).toBeGreaterThan(10);
    for (const dir of dirs) {
      const written = readFileSync(path.join(dir, 'package.json'), 'utf8');
      expect(written, path.basename(dir)).toBe(manifestText(await expectedManifest(dir)));
    }
  });
});
