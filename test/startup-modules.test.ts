// An idle service holds only what it uses: the heavy drivers and libraries of the action plugins
// (and core's optional ones) are imported the first time something needs them, never at start-up.
// This starts the real service with a module trace and checks that none of them was loaded, so a
// new top-level import of one is caught here. (Memory itself is not asserted: it is too noisy.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './helpers/service-process.js';

const TRACE = fileURLToPath(new URL('./helpers/module-trace.mjs', import.meta.url));

/**
 * Loaded only on first use: a package, or the part of it that marks it loaded. (esbuild is not
 * listed: tsx, which runs the service here, uses it; the sandbox's bundling uses it in a worker.)
 */
const LAZY: Array<[name: string, file: RegExp]> = [
  ...[
    'mathjs',
    'nats',
    'amqplib',
    'basic-ftp',
    'pg',
    'mysql2',
    'tedious',
    'ssh2',
    'sharp',
    'pdfkit',
    'cheerio',
    'marked',
    'html-to-text',
    '@xmldom/xmldom',
    'xpath',
    'tweetnacl',
    'mailparser',
    'mailauth',
    '@faker-js/faker',
    'lodash',
    'moment',
    'mongodb',
    '@agendajs/mongo-backend',
    'quickjs-emscripten-core',
    '@jitl/quickjs-wasmfile-release-sync',
  ].map((name): [string, RegExp] => [name, new RegExp(`/node_modules/${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/`)]),
  // The SMTP capture server uses nodemailer's shared helpers; sending mail needs its transport.
  ['nodemailer (sending)', /\/node_modules\/nodemailer\/.*smtp-transport\//],
  // Validate JSON's engines: core's workflow documents use only ajv's 2020 draft.
  ['ajv (draft-07, 2019-09)', /\/node_modules\/ajv\/dist\/(ajv|2019)\.js$/],
];

describe('start-up imports', () => {
  let dir: string;
  let service: ServiceProcess;
  let loaded: string[];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'startup-modules-'));
    const traceFile = path.join(dir, 'modules.txt');
    service = await startServiceProcess({ DATA_DIR: path.join(dir, 'data'), MODULE_TRACE_FILE: traceFile }, 120_000, ['--import', TRACE]);
    // What an idle service's first visitors ask for loads nothing heavy either.
    for (const p of ['/action-types', '/openapi.json', '/healthz']) expect((await fetch(service.url + p)).status).toBe(200);
    expect(await service.stop()).toBe(0);
    loaded = [...new Set(fs.readFileSync(traceFile, 'utf8').split('\n').filter(Boolean))].map((l) => l.replace(/^file:\/\//, ''));
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the trace sees what start-up does load (ES modules and CommonJS alike)', () => {
    expect(loaded.some((f) => f.includes('/node_modules/koa/'))).toBe(true); // an ES module entry
    expect(loaded.some((f) => f.includes('/node_modules/better-sqlite3/lib/database.js'))).toBe(true); // required inside CommonJS
    expect(loaded.some((f) => /\/plugins\/database\/src\/database\.ts$/.test(f))).toBe(true); // every plugin is registered
  });

  it('loads no heavy driver or library before it is needed', () => {
    const early = LAZY.filter(([, file]) => loaded.some((f) => file.test(f))).map(([name]) => name);
    expect(early).toEqual([]);
  });
});
