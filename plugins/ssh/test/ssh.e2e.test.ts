// The SFTP actions in a running server: a token's chain uploads the captured body to an SSH
// server on a loopback port (allowed by the default outbound policy), downloads it back into a
// variable and runs a command with it, logging in with a key pair generated through the Providers
// API.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startSshServer, type TestSshServer, type TestUser } from './ssh-server.js';

let s: TestServer;
let ssh: TestSshServer;
const sshUser: TestUser = { username: 'capture', password: 'e2e-pass', publicKeys: [] };

beforeAll(async () => {
  ssh = await startSshServer([sshUser]);
  s = await startTestServer({}, { modules: [createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
  await ssh?.close();
});

it('uploads the captured body over SFTP, reads it back and uses it in a command run with a generated key', async () => {
  const user = await s.user(false);
  const created = await s.call('POST', '/providers', { key: user.key, json: { type: 'ssh_key', name: 'deploy key' } });
  expect(created.status, created.text).toBe(201);
  expect(created.data.settings.public_key).toMatch(/^ssh-ed25519 AAAA/);
  expect(JSON.stringify(created.data)).not.toContain('PRIVATE KEY');
  sshUser.publicKeys!.push(created.data.settings.public_key);

  const t = await s.token({ actions: true }, user.key);
  const login = { host: '127.0.0.1', port: ssh.port, username: 'capture', password: 'e2e-pass' };
  const actions = [
    { type: 'sftp_upload', order: 1, parameters: { ...login, path: 'hooks/$request.method$.json', content: '$request.content$' } },
    { type: 'sftp_download', order: 2, parameters: { ...login, path: 'hooks/POST.json', variable_name: 'saved' } },
    { type: 'ssh_run_command', order: 3, parameters: { host: '127.0.0.1', port: ssh.port, username: 'capture', provider_id: created.data.id, command: 'echo got $saved.order$\nwarn done', variable_name: 'run' } },
  ];
  for (const a of actions) {
    const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: a, key: user.key });
    expect(r.status, r.text).toBe(200);
  }
  fs.mkdirSync(path.join(ssh.root, 'hooks'));

  const body = JSON.stringify({ order: 42, note: 'héllo' });
  const hook = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'application/json' } });
  expect(hook.status).toBe(200);

  expect(fs.readFileSync(path.join(ssh.root, 'hooks', 'POST.json'), 'utf8')).toBe(body);
  expect(ssh.commands).toEqual(['echo got 42\nwarn done']);

  const list = await s.call('GET', `/token/${t.uuid}/requests`, { key: user.key });
  const [req] = list.data.data;
  expect(req.custom_action_errors).toEqual([]);
  const output = req.custom_action_output.join('\n');
  expect(output).toContain(`[1 sftp_upload] Uploaded ${Buffer.byteLength(body)} bytes to hooks/POST.json on capture@127.0.0.1`);
  expect(output).toContain('[2 sftp_download] Downloaded hooks/POST.json');
  expect(output).toContain('[3 ssh_run_command] Ran the command on capture@127.0.0.1: exit code 0');
  expect(output).toContain(ssh.fingerprint);
});

it('uploads a binary body over SFTP, downloads it and answers with the exact bytes', async () => {
  const t = await s.token({ actions: true });
  const login = { host: '127.0.0.1', port: ssh.port, username: 'capture', password: 'e2e-pass' };
  const actions = [
    { type: 'sftp_upload', order: 1, parameters: { ...login, path: 'upload.bin', content: '$request.content$' } },
    { type: 'sftp_download', order: 2, parameters: { ...login, path: 'upload.bin', variable_name: 'back' } },
    { type: 'modify_response', order: 3, parameters: { content: '$back$', headers: 'Content-Type: application/octet-stream' } },
  ];
  for (const a of actions) {
    const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: a });
    expect(r.status, r.text).toBe(200);
  }
  const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const hook = await s.call('POST', `/${t.uuid}`, { body: allBytes, headers: { 'Content-Type': 'application/octet-stream' } });
  expect(hook.status).toBe(200);
  expect(fs.readFileSync(path.join(ssh.root, 'upload.bin')).equals(allBytes)).toBe(true);
  expect(hook.buf.equals(allBytes)).toBe(true);
});
