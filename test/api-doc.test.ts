// The shell examples of the documentation pages that have them work as written: each page's run
// in order in one bash session against a fresh service (its address in place of localhost:8084,
// ADMIN_API_KEY set), each printing what the page says (conventions in
// helpers/readme-examples.ts). The Databases examples need the PostgreSQL server of this machine
// (DATABASES_TEST_URL, as core/http/databases uses).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellExamples, type Example } from './helpers/readme-examples.js';
import { expectAsDocumented, runExamples, type Outcome } from './helpers/run-examples.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATABASES_URL = process.env.DATABASES_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// docs/api.md first: its users are the first ones of the fresh service.
const PAGES = ['docs/api.md', 'docs/search.md', 'docs/testing.md'];
const examples = new Map(
  PAGES.map((page) => [
    page,
    shellExamples(fs.readFileSync(path.join(ROOT, page), 'utf8'))
      .filter((b) => !b.skip)
      .flatMap((b) => b.examples),
  ]),
);

let s: TestServer;
const outcomes = new Map<Example, Outcome>();

beforeAll(async () => {
  s = await startTestServer({ DATABASES_POSTGRES_URL: DATABASES_URL });
  for (const page of PAGES) {
    const ran = await runExamples(examples.get(page)!, { address: new URL(s.url).host, env: { ...process.env, ADMIN_API_KEY: ADMIN_KEY } });
    for (const [e, o] of ran) outcomes.set(e, o);
  }
}, 300_000);

afterAll(async () => {
  await s?.close();
});

describe.each(PAGES)('%s examples', (page) => {
  const mine = examples.get(page)!;

  it('has shell examples with documented output', () => {
    expect(mine.filter((e) => e.output !== undefined).length).toBeGreaterThanOrEqual(page === 'docs/api.md' ? 10 : 1);
  });

  it.each(mine.map((e) => [`line ${e.line}: ${e.command.split('\n')[0]!.slice(0, 90)}`, e] as const))('%s', (_name, e) => {
    expectAsDocumented(e, outcomes.get(e), page);
  });
});
