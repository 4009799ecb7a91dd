import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { textDecrypt } from '../src/text-decrypt.js';
import { textEncrypt } from '../src/text-encrypt.js';

describe('text_encrypt / text_decrypt', () => {
  it('round-trips with the same password and differs every time', async () => {
    const a = await runAction(textEncrypt, { source: 'secret ✓', password: 'pw' });
    const b = await runAction(textEncrypt, { source: 'secret ✓', password: 'pw' });
    expect(a.vars.encrypted).not.toBe(b.vars.encrypted);
    const d = await runAction(textDecrypt, { source: '$encrypted$', password: 'pw', variable_name: 'plain' }, { vars: a.vars });
    expect(d.vars.plain).toBe('secret ✓');
  });

  it('a wrong password or altered text is an action error', async () => {
    const a = await runAction(textEncrypt, { source: 'x', password: 'pw' });
    expect((await runAction(textDecrypt, { source: a.vars.encrypted, password: 'nope' })).errors[0]).toMatch(/wrong password/);
    expect((await runAction(textDecrypt, { source: 'aGVsbG8=', password: 'pw' })).errors[0]).toMatch(/not something Encrypt Text produced/);
  });

  it('requires a password', () => {
    expect(() => validateParams(textEncrypt, { source: 'x' })).toThrow(/parameters.password/);
    expect(() => validateParams(textDecrypt, { source: 'x', password: '' })).toThrow(/parameters.password/);
  });
});
