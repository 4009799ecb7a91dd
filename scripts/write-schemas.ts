// Writes the JSON Schemas of the API's resources and of workflow documents into schemas/.
// `npm run schemas`; a test checks the checked-in files are current.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT as root } from '../core/util/paths.js';
import { coreSchemas } from './schemas.js';

for (const [name, schema] of Object.entries(coreSchemas())) {
  const file = path.join(root, 'schemas', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(schema, null, 2) + '\n');
  console.log('wrote', path.relative(root, file));
}
