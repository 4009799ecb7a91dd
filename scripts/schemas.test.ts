import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreSchemas } from './schemas.js';

describe('schemas/', () => {
  it.each(Object.entries(coreSchemas()))('%s is current (run `npm run schemas` after changing a zod schema)', (name, schema) => {
    const file = path.join(import.meta.dirname, '..', 'schemas', name);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(schema);
  });
});
