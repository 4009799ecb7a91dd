// Writes core/store/sqlite/schema.sql, the schema a fresh database has after every migration.
// `npx tsx scripts/write-sqlite-schema.ts` after adding a migration; core/store/sqlite/schema.test.ts
// checks the checked-in file is current.
import fs from 'node:fs';
import path from 'node:path';
import { freshSchema } from '../core/store/sqlite/schema.js';
import { REPO_ROOT } from '../core/util/paths.js';

const file = path.join(REPO_ROOT, 'core', 'store', 'sqlite', 'schema.sql');
fs.writeFileSync(file, freshSchema());
console.log('wrote core/store/sqlite/schema.sql');
