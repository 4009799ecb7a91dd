// Tests: a database migrated up to a given version only, as one made before the later migrations.
import type { Database } from 'better-sqlite3';
import { migrate, migrations } from '../migrations.js';

export function migrateUpTo(db: Database, version: number): void {
  const all = migrations.splice(0);
  migrations.push(...all.filter((m) => m.version <= version));
  try {
    migrate(db);
  } finally {
    migrations.splice(0, migrations.length, ...all);
  }
}
