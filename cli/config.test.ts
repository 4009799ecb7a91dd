import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { configCandidates, DEFAULT_URL, resolveConnection } from './config.js';

let dir: string;
let home: string;
let cwd: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-config-'));
  home = path.join(dir, 'home');
  cwd = path.join(dir, 'project');
  fs.mkdirSync(path.join(home, '.config', 'capture'), { recursive: true });
  fs.mkdirSync(cwd);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (file: string, value: unknown) => {
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};
const userFile = () => path.join(home, '.config', 'capture', 'config.json');

describe('resolveConnection', () => {
  it('defaults to http://localhost:8084 without a key', () => {
    expect(resolveConnection({ env: {}, cwd, home })).toEqual({ url: DEFAULT_URL, from: { url: 'default' } });
  });

  it('takes each setting from the flag, else the environment, else the config file', () => {
    const file = write(userFile(), { url: 'http://file:1', api_key: 'file-key' });
    expect(resolveConnection({ env: {}, cwd, home })).toEqual({ url: 'http://file:1', apiKey: 'file-key', from: { url: file, apiKey: file } });
    const env = { CAPTURE_URL: 'http://env:2', CAPTURE_API_KEY: 'env-key' };
    expect(resolveConnection({ env, cwd, home })).toMatchObject({ url: 'http://env:2', apiKey: 'env-key', from: { url: 'environment', apiKey: 'environment' } });
    expect(resolveConnection({ server: 'http://flag:3', env, cwd, home })).toMatchObject({ url: 'http://flag:3', apiKey: 'env-key', from: { url: 'flag', apiKey: 'environment' } });
    // Per setting: the key still comes from the file when only the URL is set elsewhere.
    expect(resolveConnection({ server: 'http://flag:3', env: {}, cwd, home })).toMatchObject({ url: 'http://flag:3', apiKey: 'file-key' });
    fs.rmSync(file);
  });

  it('reads ./.capturerc before the user file, and --config (or CAPTURE_CONFIG) instead of both', () => {
    write(userFile(), { url: 'http://user:1' });
    const rc = write(path.join(cwd, '.capturerc'), { url: 'http://project:1' });
    const named = write(path.join(dir, 'named.json'), { url: 'http://named:1' });
    expect(resolveConnection({ env: {}, cwd, home }).url).toBe('http://project:1');
    expect(resolveConnection({ config: named, env: {}, cwd, home }).url).toBe('http://named:1');
    expect(resolveConnection({ env: { CAPTURE_CONFIG: named }, cwd, home }).url).toBe('http://named:1');
    expect(configCandidates({ env: { XDG_CONFIG_HOME: '/x' }, cwd, home }).map((c) => c.file)).toEqual([rc, '/x/capture/config.json']);
    fs.rmSync(rc);
    expect(resolveConnection({ env: {}, cwd, home }).url).toBe('http://user:1');
    fs.rmSync(userFile());
  });

  it('says what is wrong with a config file or a URL, naming where it came from', () => {
    const bad = write(path.join(dir, 'bad.json'), '{"url": ');
    expect(() => resolveConnection({ config: bad, env: {}, cwd, home })).toThrow(new RegExp(`^config file ${bad} is not valid JSON`));
    const odd = write(path.join(dir, 'odd.json'), { server: 'http://x' });
    expect(() => resolveConnection({ config: odd, env: {}, cwd, home })).toThrow('unknown setting "server" (url and api_key are known)');
    expect(() => resolveConnection({ config: path.join(dir, 'missing.json'), env: {}, cwd, home })).toThrow(/cannot be read \(ENOENT\)/);
    expect(() => resolveConnection({ env: { CAPTURE_URL: 'localhost:8084' }, cwd, home })).toThrow(new UsageError('CAPTURE_URL must be an http:// or https:// URL, not "localhost:8084"'));
    expect(() => resolveConnection({ server: 'ftp://x', env: {}, cwd, home })).toThrow('--server must be an http:// or https:// URL');
  });
});
