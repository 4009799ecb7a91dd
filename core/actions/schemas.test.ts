import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../util/paths.js';
import { actionCatalogue } from './catalogue.js';
import { actionSchemas } from './schemas.js';

const dir = path.join(REPO_ROOT, 'schemas', 'actions');
const HOW = 'run `npx tsx scripts/write-action-schemas.ts` after changing an action schema';

describe('schemas/actions/', () => {
  it(`every file is current (${HOW})`, async () => {
    const schemas = await actionSchemas();
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files, HOW).toEqual(Object.keys(schemas).sort());
    for (const [file, schema] of Object.entries(schemas)) {
      expect(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), `${file}: ${HOW}`).toEqual(schema);
    }
  });

  it(`docs/actions.md is current (${HOW})`, async () => {
    expect(fs.readFileSync(path.join(REPO_ROOT, 'docs', 'actions.md'), 'utf8'), HOW).toBe(await actionCatalogue());
  });
});
