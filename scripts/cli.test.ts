import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { main } from './cli.js';

const root = path.join(import.meta.dirname, '..');
const examples = path.join(root, 'workflows', 'examples');
let dir: string;
let out: string[];
let stdout: string[];
let stderr: string[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  vi.stubEnv('DATA_DIR', dir);
  vi.stubEnv('LOG_LEVEL', 'silent');
  // Vite (under vitest) sets BASE_URL=/ for itself; the service's BASE_URL is unset here.
  vi.stubEnv('BASE_URL', '');
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), stdout.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), stderr.push(String(s)), true));
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = async (...argv: string[]) => {
  out = [];
  stdout = [];
  stderr = [];
  return main(argv);
};

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

const TOKEN = '9a3e2c1d-5b4f-4e6a-8c7d-0e1f2a3b4c5d';
const head = `apiVersion: capture/v1\nkind: TokenActions\nmetadata:\n  token: ${TOKEN}\nspec:\n  steps:\n`;

describe('npm run cli -- workflows', () => {
  it('validates the example documents without touching a database', async () => {
    vi.stubEnv('DATA_DIR', path.join(dir, 'never-created'));
    const files = fs.readdirSync(examples).map((f) => path.join(examples, f));
    expect(await run('workflows', 'validate', ...files)).toBe(0);
    expect(out.join('')).toMatch(/ok .*json-echo\.yaml \(4 steps\)/);
    expect(stdout.join('')).toContain(`${files.length} documents valid, 0 failed`);
    expect(out.join('')).not.toContain('database:');
    expect(fs.existsSync(path.join(dir, 'never-created'))).toBe(false);
    vi.stubEnv('DATA_DIR', dir);
  });

  it('reports every error of a file at once, each with its line and column, and exits 1', async () => {
    const bad = write(
      'bad.yaml',
      head +
        '    - type: modify_response\n' + //       7
        '      parameters:\n' + //                  8
        '        status: 999\n' + //                9
        '    - type: text_split\n' + //            10
        '      parameters: {source: a}\n' + //     11
        '    - type: no_such_type\n' + //          12
        '      delay: -1\n', //                    13
    );
    expect(await run('workflows', 'validate', bad)).toBe(1);
    const lines = stderr.join('').trim().split('\n');
    expect(lines).toEqual([
      `${bad}:9:9: spec.steps.0.parameters.status: must be an HTTP status code`,
      `${bad}:11:7: spec.steps.1.parameters.delimiter: is required`,
      `${bad}:12:7: spec.steps.2.type: Unknown action type "no_such_type"`,
      `${bad}:13:7: spec.steps.2.delay: must be >= 0`,
    ]);
    expect(stdout.join('')).toBe('0 documents valid, 1 failed\n');
  });

  it('reports YAML syntax errors with their line and column, in every document of a file', async () => {
    const broken = write('broken.yaml', `${head}    - type: log\n      parameters: {text: a}\n---\n${head}    - type: log\n      parameters: {text: [a}\n`);
    expect(await run('workflows', 'validate', broken)).toBe(1);
    expect(stdout.join('')).toMatch(/ok +.*broken\.yaml \(1 step\)\n1 document valid, 1 failed\n$/);
    expect(stderr.join('')).toMatch(new RegExp(`^${broken}:17:28: Flow sequence in block collection must be sufficiently indented and end with a \\]\n`));
  });

  it('names the file that cannot be read and the file that holds no document', async () => {
    const empty = write('empty.yaml', '# nothing here\n');
    expect(await run('workflows', 'validate', path.join(dir, 'missing.yaml'), empty)).toBe(1);
    expect(stderr.join('')).toBe(`${path.join(dir, 'missing.yaml')}: cannot be read (ENOENT)\n${empty}:1:1: holds no document\n`);
    expect(stdout.join('')).toBe('0 documents valid, 2 failed\n');
  });

  it('refuses a DATA_DIR without a database unless --create, naming the setting and the flag', async () => {
    const missing = path.join(dir, 'typo');
    vi.stubEnv('DATA_DIR', missing);
    const file = path.join(examples, 'json-echo.yaml');
    expect(await run('workflows', 'apply', file)).toBe(1);
    expect(stderr.join('')).toBe(
      `database: SQLite ${missing}/capture.sqlite\n` +
        `error: DATA_DIR=${missing}: there is no database at ${missing}/capture.sqlite. Set DATA_DIR to the folder the server uses, or add --create to "workflows apply" to create a new database there.\n`,
    );
    expect(fs.existsSync(missing)).toBe(false);
    expect(await run('workflows', 'export', 'anything')).toBe(1);
    expect(fs.existsSync(missing)).toBe(false);

    expect(await run('workflows', 'apply', '--create', file)).toBe(0);
    expect(stderr[0]).toBe(`database: SQLite ${missing}/capture.sqlite (new)\n`);
    expect(stdout.join('')).toMatch(/applied +.*json-echo\.yaml -> token 5e1f0c2a-7b6d-4c3e-9a8f-0d1e2f3a4b5c \(4 steps\)\n1 document applied, 0 failed\n$/);
    expect(fs.existsSync(path.join(missing, 'capture.sqlite'))).toBe(true);
    // Now that it exists, no flag is needed.
    expect(await run('workflows', 'apply', file)).toBe(0);
    expect(stderr[0]).toBe(`database: SQLite ${missing}/capture.sqlite\n`);
    vi.stubEnv('DATA_DIR', dir);
  });

  it('names a MongoDB database by its URI without the password', async () => {
    vi.stubEnv('MONGODB_URI', 'mongodb://bob:hunter2secret@127.0.0.1:9/capture?serverSelectionTimeoutMS=300');
    try {
      expect(await run('workflows', 'export', 'anything')).toBe(1);
    } finally {
      vi.stubEnv('MONGODB_URI', '');
    }
    expect(stderr[0]).toBe('database: MongoDB mongodb://bob:***@127.0.0.1:9/capture?serverSelectionTimeoutMS=300\n');
    expect(stderr.join('')).toMatch(/error: MONGODB_URI=mongodb:\/\/bob:\*\*\*@127\.0\.0\.1:9\/capture.*: cannot use the MongoDB server/);
    expect(out.join('')).not.toContain('hunter2secret');
  });

  it('applies a document to the configured store and exports it back', async () => {
    const file = path.join(examples, 'json-echo.yaml');
    expect(await run('workflows', 'apply', '--create', file)).toBe(0);
    expect(stderr[0]).toBe(`database: SQLite ${dir}/capture.sqlite (new)\n`);
    expect(await run('workflows', 'apply', file)).toBe(0);
    const token = YAML.parse(fs.readFileSync(file, 'utf8')).metadata.token;
    const exported = path.join(dir, 'out.yaml');
    expect(await run('workflows', 'export', token, exported)).toBe(0);
    expect(stderr.join('')).toBe(`database: SQLite ${dir}/capture.sqlite\nwrote ${exported}\n`);
    const doc = YAML.parse(fs.readFileSync(exported, 'utf8'));
    expect(doc.spec.steps.map((s: { type: string }) => s.type)).toEqual(['auto_json', 'conditions', 'log', 'modify_response']);
    expect(doc.spec.steps[2].condition).toBe(doc.spec.steps[1].id);
    expect(await run('workflows', 'export', token)).toBe(0);
    expect(YAML.parse(stdout.join(''))).toEqual(doc);
    expect(await run('workflows', 'export', 'no-such-token')).toBe(1);
  });

  it('applies the good documents, reports the bad ones where they are wrong, and exits 1', async () => {
    const good = path.join(examples, 'json-echo.yaml');
    const bad = write('bad-apply.yaml', `${head}    - type: modify_response\n      parameters:\n        status: 999\n`);
    const unknown = write('unknown-token.yaml', head.replace(TOKEN, 'not-a-token') + '    - type: log\n      parameters: {text: a}\n');
    expect(await run('workflows', 'apply', good, bad, unknown)).toBe(1);
    expect(stderr.join('')).toBe(
      `database: SQLite ${dir}/capture.sqlite\n` +
        `${bad}:9:9: spec.steps.0.parameters.status: must be an HTTP status code\n` +
        `${unknown}:4:3: metadata.token: no token "not-a-token" (name an existing token, or a new UUID)\n`,
    );
    expect(stdout.join('')).toMatch(/applied +.*json-echo\.yaml .*\n1 document applied, 2 failed\n$/);
    // Nothing of the bad document was stored: its token does not exist.
    expect(await run('workflows', 'export', TOKEN)).toBe(1);
  });

  it('applies a secret sealed and exports it as the marker with a warning, never in plain', async () => {
    const token = '7d1c5a52-3c0e-4c8e-9d51-8f6a2b9e0c11';
    const file = path.join(dir, 'secret.yaml');
    const step = { type: 'text_encrypt', parameters: { source: 'x', password: 'cli-secret-pw' } };
    fs.writeFileSync(file, YAML.stringify({ apiVersion: 'capture/v1', kind: 'TokenActions', metadata: { token }, spec: { steps: [step] } }));
    expect(await run('workflows', 'apply', file)).toBe(0);
    const db = fs.readFileSync(path.join(dir, 'capture.sqlite')).toString('latin1') + (fs.existsSync(path.join(dir, 'capture.sqlite-wal')) ? fs.readFileSync(path.join(dir, 'capture.sqlite-wal')).toString('latin1') : '');
    expect(db).toContain(token);
    expect(db).not.toContain('cli-secret-pw');
    const exported = path.join(dir, 'secret-out.yaml');
    expect(await run('workflows', 'export', token, exported)).toBe(0);
    expect(out.join('')).toMatch(/warning: 1 secret parameter\(s\) exported as "\*{8}"/);
    const text = fs.readFileSync(exported, 'utf8');
    expect(text).not.toContain('cli-secret-pw');
    expect(YAML.parse(text).spec.steps[0].parameters.password).toBe('********');
    // Applying the export again keeps the stored secret rather than storing the marker.
    expect(await run('workflows', 'apply', exported)).toBe(0);
  });

  it('prints usage for --help (exit 0), and for unknown commands, options and missing arguments (exit 2)', async () => {
    expect(await run('--help')).toBe(0);
    expect(stdout.join('')).toMatch(/^usage: npm run cli/);
    expect(await run('workflows', 'apply', '--help')).toBe(0);
    expect(stdout.join('')).toMatch(/--create/);
    for (const [argv, why] of [
      [['nope'], 'unknown command "nope"'],
      [[], 'no command given'],
      [['workflows', 'apply', '--forcefully', 'x.yaml'], 'unknown option --forcefully'],
      [['workflows', 'apply', '--force', 'x.yaml'], '--force goes with migrate or backup'],
      [['migrate', '--from', 'a'], 'migrate needs --from <where> and --to <where>'],
      [['migrate', '--to'], '--to needs a value'],
      [['backup'], 'backup needs one output file'],
      [['workflows', 'validate', '--from=x', 'y.yaml'], '--from and --to go with migrate'],
      [['backup', '--page-size', '9', 'x.sqlite'], '--page-size goes with migrate'],
      [['workflows', 'validate'], 'workflows validate needs at least one file'],
      [['workflows', 'export'], 'workflows export needs a token'],
      [['workflows', 'validate', '--create', 'x.yaml'], '--create goes with workflows apply'],
      [['secrets', 'rotate', 'now'], 'secrets rotate takes no arguments'],
    ] as const) {
      expect(await run(...argv)).toBe(2);
      expect(stderr.join('')).toContain(`error: ${why}`);
      expect(stderr.join('')).toContain('usage: npm run cli');
      expect(stdout).toEqual([]);
    }
  });

  it('exits with the code as a process: 1 for an invalid file, 2 for a usage error', () => {
    const bad = write('process.yaml', `${head}    - type: text_split\n      parameters: {source: a}\n`);
    const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
    const env = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent', BASE_URL: '' };
    const invalid = spawnSync(tsx, ['scripts/cli.ts', 'workflows', 'validate', bad], { cwd: root, env, encoding: 'utf8' });
    expect(invalid.stderr).toContain(`${bad}:8:7: spec.steps.0.parameters.delimiter: is required`);
    expect(invalid.stdout).toContain('0 documents valid, 1 failed');
    expect(invalid.status).toBe(1);
    const usage = spawnSync(tsx, ['scripts/cli.ts', 'workflows', 'frobnicate'], { cwd: root, env, encoding: 'utf8' });
    expect(usage.stderr).toContain('error: unknown command "workflows frobnicate"');
    expect(usage.status).toBe(2);
  }, 60_000);
});
