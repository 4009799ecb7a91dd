// The example plugin as the service loads it: by path, by package name from node_modules, and in a
// chain next to the built-in plugins (examples/plugin-hello's own tests use @capture/sdk/testing only).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger, TEST_TOKEN, testRequest, testServices } from '@capture/sdk/testing';
import { loadPlugins } from '../core/actions/loader.js';
import { runChain } from '@capture/sdk/runner';

const here = path.resolve(import.meta.dirname, '..', 'examples', 'plugin-hello');
const app = mkdtempSync(path.join(tmpdir(), 'capture-app-'));
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('examples/plugin-hello', () => {
  it('loads by path, as PLUGINS=./examples/plugin-hello would', async () => {
    const { registry, failures, plugins } = await loadPlugins({ pluginsDir: null, packages: ['./examples/plugin-hello'], logger: silentLogger });
    expect(failures).toEqual([]);
    expect(plugins).toEqual([expect.objectContaining({ name: '@capture-examples/plugin-hello', types: ['hello'] })]);
    expect(registry.list()[0]).toMatchObject({ type: 'hello', title: 'Say Hello', category: 'example' });
  });

  it('loads by package name when installed in node_modules', async () => {
    mkdirSync(path.join(app, 'node_modules', '@capture-examples'), { recursive: true });
    symlinkSync(here, path.join(app, 'node_modules', '@capture-examples', 'plugin-hello'), 'dir');
    const { registry, failures } = await loadPlugins({ pluginsDir: null, packages: ['@capture-examples/plugin-hello'], resolveFrom: app, logger: silentLogger });
    expect(failures).toEqual([]);
    expect(registry.has('hello')).toBe(true);
  });

  it('runs in a chain next to the built-in plugins', async () => {
    const { registry, failures } = await loadPlugins({ packages: ['./examples/plugin-hello'], logger: silentLogger });
    expect(failures).toEqual([]);
    const r = await runChain({
      token: TEST_TOKEN,
      request: testRequest({ query: { name: 'Ada' } }),
      rawBody: Buffer.alloc(0),
      services: testServices(),
      registry,
      actions: [
        { uuid: 'a1', type: 'hello', order: 1, parameters: { name: '$request.query.name$' } },
        { uuid: 'a2', type: 'modify_response', order: 2, parameters: { content: '$hello.upper$' } },
      ],
    });
    expect(r.output).toEqual(['[1 hello] Hello, Ada!', '[2 modify_response] Response set: status 200']);
    expect(r.response?.content).toBe('HELLO, ADA!');
  });
});
