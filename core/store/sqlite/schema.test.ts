// core/store/sqlite/schema.sql is the schema the migrations leave: a reader learns the tables
// there, not by adding up the migrations.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freshSchema } from './schema.js';

const HOW = 'run `npx tsx scripts/write-sqlite-schema.ts` after adding a migration';

describe('core/store/sqlite/schema.sql', () => {
  it('is the schema of a freshly migrated database', () => {
    const checkedIn = fs.readFileSync(new URL('./schema.sql', import.meta.url), 'utf8');
    expect(checkedIn, HOW).toBe(freshSchema());
  });

  it('lists the requests table and its indexes, and no FTS5 shadow table', () => {
    const schema = freshSchema();
    expect(schema).toMatch(/^CREATE TABLE "?requests"? \(/m);
    expect(schema).toMatch(/^CREATE VIRTUAL TABLE request_text USING fts5/m);
    expect(schema).not.toMatch(/request_text_data/);
  });
});
