import { describe, expect, it } from 'vitest';
import { lazyImport } from './lazy.js';

describe('lazyImport', () => {
  it('imports nothing until first called, then once for every caller', async () => {
    let imports = 0;
    const load = lazyImport(async () => ({ n: ++imports }));
    expect(imports).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(imports).toBe(1);
  });

  it('gives a real package on first use', async () => {
    const loadYaml = lazyImport(() => import('yaml'));
    expect((await loadYaml()).parse('a: 1')).toEqual({ a: 1 });
  });

  it('a failed import reports its error on every use and is tried again', async () => {
    // A package that is not installed (as a missing optional native module would be).
    const missing = 'capture-no-such-package-' + 'for-test';
    const load = lazyImport(() => import(missing));
    await expect(load()).rejects.toThrow(/capture-no-such-package-for-test/);
    await expect(load()).rejects.toThrow(/capture-no-such-package-for-test/);
    let attempts = 0;
    const flaky = lazyImport(async () => {
      if (++attempts === 1) throw new Error('not yet');
      return 'loaded';
    });
    await expect(flaky()).rejects.toThrow('not yet');
    expect(await flaky()).toBe('loaded');
  });
});
