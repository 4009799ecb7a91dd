import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SealError, createSealer, loadSecretKey } from './sealing.js';

describe('sealing', () => {
  const a = createSealer('a'.repeat(32));
  it('round-trips values and never contains the plain text', () => {
    const sealed = a.seal({ password: 'hunter2-plain' });
    expect(sealed).toMatch(/^v1\.[\w-]{8}\./);
    expect(sealed).not.toContain('hunter2');
    expect(a.open(sealed)).toEqual({ password: 'hunter2-plain' });
    // A fresh IV each time.
    expect(a.seal({ x: 1 })).not.toBe(a.seal({ x: 1 }));
  });

  it('refuses another key, altered text and junk with a clear error', () => {
    const sealed = a.seal('secret');
    expect(() => createSealer('b'.repeat(32)).open(sealed)).toThrow(/another SECRET_KEY/);
    const parts = sealed.split('.');
    parts[4] = (parts[4]![0] === 'A' ? 'B' : 'A') + parts[4]!.slice(1);
    expect(() => a.open(parts.join('.'))).toThrow(SealError);
    expect(() => a.open('junk')).toThrow(/Not a sealed value/);
  });

  it('takes SECRET_KEY, or creates a private key file in DATA_DIR once', async () => {
    expect(loadSecretKey({ SECRET_KEY: 'k'.repeat(40), dataDir: '/nonexistent' })).toBe('k'.repeat(40));
    const dir = await mkdtemp(path.join(tmpdir(), 'seal-'));
    try {
      const first = loadSecretKey({ dataDir: dir });
      expect(loadSecretKey({ dataDir: dir })).toBe(first);
      expect((await stat(path.join(dir, 'secret.key'))).mode & 0o777).toBe(0o600);
      expect((await readFile(path.join(dir, 'secret.key'), 'utf8')).trim()).toBe(first);
      await writeFile(path.join(dir, 'secret.key'), 'short');
      expect(() => loadSecretKey({ dataDir: dir })).toThrow(/no usable key/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
