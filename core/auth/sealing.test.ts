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

  it('opens values sealed under a previous key and seals under the current one', () => {
    const old = a.seal({ password: 'from-before' });
    const rotated = createSealer('b'.repeat(32), ['c'.repeat(32), 'a'.repeat(32)]);
    expect(rotated.open(old)).toEqual({ password: 'from-before' });
    expect(rotated.isCurrent(old)).toBe(false);
    const fresh = rotated.seal({ password: 'from-before' });
    expect(rotated.isCurrent(fresh)).toBe(true);
    expect(fresh.split('.')[1]).toBe(createSealer('b'.repeat(32)).seal(1).split('.')[1]);
    // Once the previous key is dropped, only the re-sealed value opens.
    const after = createSealer('b'.repeat(32));
    expect(after.open(fresh)).toEqual({ password: 'from-before' });
    expect(() => after.open(old)).toThrow(/another SECRET_KEY.*SECRET_KEY_PREVIOUS/);
    expect(() => a.open(fresh)).toThrow(/another SECRET_KEY/);
  });

  it('still refuses a key that is neither current nor previous', () => {
    const foreign = createSealer('d'.repeat(32)).seal('x');
    const rotated = createSealer('b'.repeat(32), ['a'.repeat(32)]);
    expect(() => rotated.open(foreign)).toThrow(SealError);
    expect(() => rotated.open(foreign)).toThrow(/another SECRET_KEY/);
    expect(rotated.isCurrent(foreign)).toBe(false);
    expect(rotated.isCurrent('junk')).toBe(false);
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
