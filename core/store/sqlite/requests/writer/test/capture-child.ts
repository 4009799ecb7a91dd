// Child process for writer.test.ts: captures through the real file store (with the writer given,
// in-thread or worker) as fast as it can and prints the uuid of every capture whose insert()
// resolved (acknowledged), until killed.
import { randomUUID } from 'node:crypto';
import { createSqliteStore } from '../../../index.js';

const file = process.argv[2]!;
const writer = process.argv[3] === 'worker' ? 'worker' : 'in-thread';
const store = createSqliteStore(file, { writer });
if (store.writer.mode !== writer) throw new Error(`expected the ${writer} writer, got ${store.writer.mode}`);
const tokenId = randomUUID();
const now = Date.now();
await store.tokens.create({
  uuid: tokenId,
  user_id: null,
  team_id: null,
  alias: null,
  redirect: false,
  actions: false,
  cors: false,
  expiry: null,
  timeout: 0,
  listen: 0,
  premium: false,
  premium_expires_at: null,
  ip: '127.0.0.1',
  user_agent: 'test',
  default_content: '',
  default_status: 200,
  default_content_type: 'text/html',
  request_limit: 1_000_000,
  description: null,
  group_id: null,
  password_hash: null,
  created_at: now,
  updated_at: now,
  expires_at: null,
});
process.stdout.write(`token ${tokenId}\n`);
let sorting = 1;
function one(): Promise<void> {
  const uuid = randomUUID();
  const body = Buffer.from(`capture ${sorting}`);
  return (
    store.requests
      .insert(
        {
          uuid,
          token_id: tokenId,
          type: 'web',
          team_id: null,
          ip: '127.0.0.1',
          hostname: 'localhost',
          method: 'POST',
          user_agent: 'test',
          url: 'http://localhost/x',
          content_type: 'text/plain',
          body,
          size: body.length,
          query: null,
          headers: {},
          form: null,
          files: [],
          custom_action_output: [],
          custom_action_errors: [],
          time: 0,
          note: null,
          sorting: sorting++,
          created_at: Date.now(),
          updated_at: Date.now(),
          extra: {},
        },
        1_000_000,
      )
      // Pipes are written synchronously on Linux: a printed uuid reached the parent before any kill.
      .then(() => void process.stdout.write(`ack ${uuid}\n`))
  );
}
// 16 concurrent writers, forever.
for (let i = 0; i < 16; i++)
  void (async () => {
    for (;;) await one();
  })();
