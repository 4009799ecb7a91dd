import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { main } from './cli.js';

const examples = path.join(import.meta.dirname, '..', 'workflows', 'examples');
let dir: string;
let out: string[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  vi.stubEnv('DATA_DIR', dir);
  vi.stubEnv('LOG_LEVEL', 'silent');
  // Vite (under vitest) sets BASE_URL=/ for itself; the service's BASE_URL is unset here.
  vi.stubEnv('BASE_URL', '');
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = async (...argv: string[]) => {
  out = [];
  return main(argv);
};

describe('npm run cli -- workflows', () => {
  it('validates the example documents', async () => {
    const files = fs.readdirSync(examples).map((f) => path.join(examples, f));
    expect(await run('workflows', 'validate', ...files)).toBe(0);
    expect(out.join('')).toMatch(/ok .*json-echo\.yaml \(4 steps\)/);
  });

  it('reports invalid documents with the field and exits 1', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'apiVersion: capture/v1\nkind: TokenActions\nmetadata: {token: x}\nspec:\n  steps:\n    - type: text_split\n      parameters: {source: a}\n');
    expect(await run('workflows', 'validate', bad)).toBe(1);
    expect(out.join('')).toMatch(/invalid .*bad\.yaml: spec\.steps\.0: parameters\.delimiter/);
  });

  it('applies a document to the configured store and exports it back', async () => {
    const file = path.join(examples, 'json-echo.yaml');
    expect(await run('workflows', 'apply', file)).toBe(0);
    expect(await run('workflows', 'apply', file)).toBe(0);
    const token = YAML.parse(fs.readFileSync(file, 'utf8')).metadata.token;
    const exported = path.join(dir, 'out.yaml');
    expect(await run('workflows', 'export', token, exported)).toBe(0);
    const doc = YAML.parse(fs.readFileSync(exported, 'utf8'));
    expect(doc.spec.steps.map((s: { type: string }) => s.type)).toEqual(['auto_json', 'conditions', 'log', 'modify_response']);
    expect(doc.spec.steps[2].condition).toBe(doc.spec.steps[1].id);
    expect(await run('workflows', 'export', 'no-such-token')).toBe(1);
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

  it('prints usage for unknown commands', async () => {
    expect(await run('nope')).toBe(2);
    expect(out.join('')).toMatch(/usage/);
  });
});
