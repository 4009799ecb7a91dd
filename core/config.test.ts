import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8084, MAX_BODY_BYTES: 10 * 1024 * 1024, EMAIL_DOMAIN: 'email.localhost', SMTP_PORT: 2525, DNS_PORT: 5300, SQLITE_SYNCHRONOUS: 'NORMAL', SQLITE_WRITER: 'auto' });
    expect(c.baseUrl).toBeNull();
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', MAX_BODY_BYTES: '-1' })).toThrowError(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', MONGODB_URI: 'postgres://x' });
    } catch (e) {
      expect((e as Error).message).toMatch(/PORT="eighty"/);
      expect((e as Error).message).toMatch(/MONGODB_URI/);
    }
  });

  it('takes the SQLite writer modes and refuses others, naming the variable', () => {
    expect(loadConfig({ SQLITE_WRITER: 'worker' }).SQLITE_WRITER).toBe('worker');
    expect(loadConfig({ SQLITE_WRITER: 'in-thread' }).SQLITE_WRITER).toBe('in-thread');
    expect(() => loadConfig({ SQLITE_WRITER: 'thread' })).toThrowError(/SQLITE_WRITER/);
  });

  it('reads lists and trims the base URL', () => {
    const c = loadConfig({ PLUGINS: 'a, b', TRUSTED_PROXIES: '10.0.0.1', BASE_URL: 'https://hooks.example.test/' });
    expect(c.PLUGINS).toEqual(['a', 'b']);
    expect(c.TRUSTED_PROXIES).toEqual(['10.0.0.1']);
    expect(c.baseUrl).toBe('https://hooks.example.test');
  });

  it('reads SECRET_KEY_PREVIOUS as a list of keys and never prints a bad one', () => {
    const [k1, k2] = ['p'.repeat(32), 'q'.repeat(40)];
    expect(loadConfig({ SECRET_KEY_PREVIOUS: `${k1}, ${k2}` }).SECRET_KEY_PREVIOUS).toEqual([k1, k2]);
    expect(loadConfig({}).SECRET_KEY_PREVIOUS).toEqual([]);
    let message = '';
    try {
      loadConfig({ SECRET_KEY_PREVIOUS: `${k1},too-short-old-key` });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/SECRET_KEY_PREVIOUS\.1="<hidden>": each key must be at least 32 characters/);
    expect(message).not.toContain('too-short-old-key');
  });
});
