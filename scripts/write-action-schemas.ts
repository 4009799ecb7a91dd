// Writes schemas/actions/<type>.json for every action type of the built-in plugins and core (removes
// files of types that are gone), and the catalogue docs/actions.md. `npx tsx scripts/write-action-schemas.ts`; a test checks the
// checked-in files are current.
import fs from 'node:fs';
import path from 'node:path';
import { actionCatalogue } from '../core/actions/catalogue.js';
import { actionSchemas } from '../core/actions/schemas.js';
import { REPO_ROOT } from '../core/util/paths.js';

const dir = path.join(REPO_ROOT, 'schemas', 'actions');
const schemas = await actionSchemas();
fs.mkdirSync(dir, { recursive: true });
for (const file of fs.readdirSync(dir)) {
  if (file.endsWith('.json') && !schemas[file]) {
    fs.unlinkSync(path.join(dir, file));
    console.log('removed', file);
  }
}
for (const [file, schema] of Object.entries(schemas)) {
  fs.writeFileSync(path.join(dir, file), JSON.stringify(schema, null, 2) + '\n');
  console.log('wrote', path.join('schemas/actions', file));
}

const docs = path.join(REPO_ROOT, 'docs', 'actions.md');
fs.writeFileSync(docs, await actionCatalogue());
console.log('wrote docs/actions.md');
