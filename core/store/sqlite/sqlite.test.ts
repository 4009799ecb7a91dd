import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runStoreContract, sampleToken } from '../store.contract.js';
import { createSqliteStore } from './index.js';
import { TOKEN_COLUMNS } from './token-columns.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-store-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

runStoreContract('sqlite in memory', async () => createSqliteStore(':memory:'));
runStoreContract('sqlite file (WAL, checkpoints on a worker)', async () => createSqliteStore(path.join(dir, `contract-${Date.now()}.sqlite`)));
runStoreContract('sqlite file, writer thread', async () => createSqliteStore(path.join(dir, `contract-w-${Date.now()}.sqlite`), { writer: 'worker' }));
// The same searches through the search index (search_keys, request_text), which the runs above
// use only for tokens allowed more than 10,000 requests.
runStoreContract('sqlite file, every token search-indexed (SEARCH_INDEX_ABOVE=0)', async () => createSqliteStore(path.join(dir, `contract-s-${Date.now()}.sqlite`), { searchIndexAbove: 0 }));

describe('sqlite token records', () => {
  it('read back with their fields in column order, redaction only when there are rules', async () => {
    const store = createSqliteStore(':memory:');
    const t = sampleToken({ expiry: 3600, cors: true });
    await store.tokens.create(t);
    const got = (await store.tokens.get(t.uuid))!;
    expect(Object.keys(got)).toEqual(TOKEN_COLUMNS.filter((c) => c !== 'redaction'));
    expect(got).toEqual(t);
    expect(got).toMatchObject({ expiry: 3600, cors: true, redirect: false });
    const redaction = { replacement: '*', rules: [{ kind: 'preset' as const, preset: 'card' as const, actions_see_original: true }] };
    await store.tokens.update(t.uuid, { redaction, updated_at: t.updated_at + 1 });
    expect(Object.keys((await store.tokens.get(t.uuid))!).at(-1)).toBe('redaction');
    await store.close();
  });
});
