// The plugin's own container: it registers a service of its own and overrides core's logger for its
// actions only, through the running service (PLUGINS=./examples/plugin-hello) and at the loader.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGGER, type Logger } from '@capture/sdk';
import { rootContainer, silentLogger } from '@capture/sdk/testing';
import { loadPlugins } from '../core/actions/loader.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const PLUGIN = '@capture-examples/plugin-hello';

interface Line {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

function recordingLogger(lines: Line[], base: Record<string, unknown> = {}): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields: { ...base, ...fields } });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (f) => recordingLogger(lines, { ...base, ...f }) };
}

describe('examples/plugin-hello: its own container', () => {
  const lines: Line[] = [];
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ PLUGINS: './examples/plugin-hello' }, { logger: recordingLogger(lines) });
  });
  afterAll(() => s?.close());

  it("its actions' ctx.services.logger is the one it registered; core's lines stay untagged", async () => {
    const t = await s.token({ actions: true });
    const added = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'hello', parameters: { name: '$request.query.name$', respond: true } } });
    expect(added.status).toBe(200);
    const from = lines.length;
    const r = await s.call('GET', `/${t.uuid}?name=Ada`);
    expect(r.text).toBe('Hello, Ada!');
    const run = lines.slice(from);
    expect(run.filter((l) => l.msg === 'Greeted')).toEqual([{ level: 'info', msg: 'Greeted', fields: { plugin: PLUGIN, name: 'Ada' } }]);
    expect(run.filter((l) => l.fields.plugin === PLUGIN && l.msg !== 'Greeted')).toEqual([]);
  });

  it('the override stays in its container: other plugins resolve the host logger', async () => {
    const hostLines: Line[] = [];
    const host = rootContainer.createChildContainer();
    const hostLogger = recordingLogger(hostLines);
    host.registerInstance(LOGGER, hostLogger);
    const { registry, failures } = await loadPlugins({ packages: ['./examples/plugin-hello'], container: host, logger: silentLogger });
    expect(failures).toEqual([]);
    const hello = registry.get('hello')!.container;
    const other = registry.get('modify_response')!.container;
    expect(other.resolve(LOGGER)).toBe(hostLogger);
    expect(host.resolve(LOGGER)).toBe(hostLogger);
    hello.resolve(LOGGER).info('from hello');
    expect(hostLines).toEqual([{ level: 'info', msg: 'from hello', fields: { plugin: PLUGIN } }]);
  });
});
