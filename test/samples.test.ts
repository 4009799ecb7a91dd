// Sample deliveries through the running service: GET /samples, and POST /samples/send into a token
// (captured through the pipeline, so the token's verify_signature action checks it) or to a URL
// (through the outbound policy, with an API key), and who may do which.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify as githubVerify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  s = await startTestServer();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(202, { 'Content-Type': 'text/plain', 'X-Receiver': 'yes' }).end('thanks');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/github`;
});

afterAll(async () => {
  await s?.close();
  await new Promise((r) => receiver?.close(r));
});

async function addActions(token: string, key: string | undefined, steps: Array<[string, Record<string, unknown>]>) {
  for (const [type, parameters] of steps) {
    const r = await s.call('POST', `/token/${token}/actions`, { key, json: { type, parameters } });
    expect(r.status, r.text).toBe(200);
  }
}

describe('GET /samples', () => {
  it('lists every provider with its source, licence, verify_signature preset and events, without a key', async () => {
    const r = await s.call('GET', '/samples');
    expect(r.status).toBe(200);
    const byId = Object.fromEntries(r.data.data.map((p: { provider: string }) => [p.provider, p]));
    expect(Object.keys(byId).sort()).toEqual(['github', 'shopify', 'slack', 'standard_webhooks', 'stripe', 'svix', 'twilio']);
    expect(byId.github).toMatchObject({ licence: 'MIT', verify_preset: 'github', secret_required: false });
    expect(byId.github.source).toContain('@octokit/webhooks-examples');
    expect(byId.github.events).toContainEqual(expect.objectContaining({ event: 'pull_request.opened', formats: ['json', 'form'] }));
    expect(byId.svix.verify_preset).toBe('standard_webhooks');
    expect(byId.twilio.events.map((e: { event: string }) => e.event)).toEqual(['sms', 'voice', 'message_status']);
    expect(byId.slack.events.map((e: { event: string }) => e.event)).toEqual(expect.arrayContaining(['app_mention', 'slash_command', 'block_actions']));
    for (const p of r.data.data) expect(p.source.length, p.provider).toBeGreaterThan(10);
  });
});

describe('POST /samples/send to a token', () => {
  it("captures a real GitHub delivery in the token, where verify_signature accepts it, and answers with the token's response", async () => {
    const token = await s.token({ actions: true, default_content: 'received' });
    await addActions(token.uuid, undefined, [
      ['verify_signature', { preset: 'github', secret: 'gh-secret', reject: true }],
      ['modify_response', { content: 'valid=$signature.valid$' }],
    ]);
    const r = await s.call('POST', '/samples/send', { json: { provider: 'github', event: 'pull_request.opened', secret: 'gh-secret', token: token.uuid } });
    expect(r.status, r.text).toBe(200);
    expect(r.data).toMatchObject({ provider: 'github', event: 'pull_request.opened', format: 'json', verify_preset: 'github', response: { status: 200, body: 'valid=true' } });
    expect(r.data.sent.url).toBe(`${s.url}/${token.uuid}`);
    expect(r.data.sent.headers['X-GitHub-Event']).toBe('pull_request');
    expect(await githubVerify('gh-secret', r.data.sent.body, r.data.sent.headers['X-Hub-Signature-256'])).toBe(true);

    const stored = await s.call('GET', `/token/${token.uuid}/request/${r.data.request_id}`);
    expect(stored.status).toBe(200);
    expect(stored.data.content).toBe(r.data.sent.body);
    expect(stored.data.method).toBe('POST');
    expect(stored.data.headers['x-github-delivery']).toEqual([r.data.sent.headers['X-GitHub-Delivery']]);
    expect(stored.data.headers['user-agent'][0]).toMatch(/^GitHub-Hookshot\//);
    expect(stored.data.custom_action_output[0]).toBe('[1 verify_signature] Signature valid (github)');

    // Signed with another secret: the action refuses it, as it would a real delivery.
    const wrong = await s.call('POST', '/samples/send', { json: { provider: 'github', event: 'push', secret: 'not-it', token: token.uuid } });
    expect(wrong.status).toBe(200);
    expect(wrong.data.response.status).toBe(401);
    expect(wrong.data.request_id).toBeNull();
  });

  it('signs Twilio deliveries for the token’s capture URL, form fields and all, by alias too', async () => {
    const owner = await s.user(true);
    const token = await s.token({ actions: true, alias: 'twilio-samples' }, owner.key);
    await addActions(token.uuid, owner.key, [['verify_signature', { preset: 'twilio', secret: 'auth-token-123', reject: true }]]);
    const r = await s.call('POST', '/samples/send', { key: owner.key, json: { provider: 'twilio', event: 'sms', secret: 'auth-token-123', token: 'twilio-samples', overrides: { Body: 'STOP' } } });
    expect(r.status, r.text).toBe(200);
    expect(r.data.response.status).toBe(200);
    const stored = await s.call('GET', `/token/${token.uuid}/request/${r.data.request_id}`, { key: owner.key });
    expect(stored.data.request).toMatchObject({ Body: 'STOP', AccountSid: expect.stringMatching(/^AC/) });
    expect(stored.data.custom_action_output[0]).toBe('[1 verify_signature] Signature valid (twilio)');
  });

  it('needs what changing the token needs: its owner’s key; not another user’s, not a share link, not anonymous', async () => {
    const owner = await s.user(false);
    const other = await s.user(false);
    const token = await s.token({}, owner.key);
    const body = { provider: 'stripe', event: 'invoice.paid', secret: 'whsec_x', token: token.uuid };
    expect((await s.call('POST', '/samples/send', { json: body })).status).toBe(401);
    expect((await s.call('POST', '/samples/send', { key: other.key, json: body })).status).toBe(403);
    const link = await s.call('POST', `/token/${token.uuid}/share`, { key: owner.key });
    expect((await s.call('POST', '/samples/send', { json: body, headers: { 'Share-Key': link.data.secret } })).status).toBe(403);
    const ok = await s.call('POST', '/samples/send', { key: owner.key, json: body });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.data.sent.headers['Stripe-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await s.call('GET', `/token/${token.uuid}/requests`, { key: owner.key })).data.total).toBe(1);
  });
});

describe('POST /samples/send to a URL', () => {
  it('needs an API key; sends through the outbound client and answers with what came back', async () => {
    const body = { provider: 'github', event: 'push', secret: 'url-secret', url: `${receiverUrl}?from=sample` };
    const anonymous = await s.call('POST', '/samples/send', { json: body });
    expect(anonymous.status).toBe(401);
    expect(received).toEqual([]);

    const { key } = await s.user(false);
    const r = await s.call('POST', '/samples/send', { key, json: body });
    expect(r.status, r.text).toBe(200);
    expect(r.data.response).toMatchObject({ status: 202, body: 'thanks', body_encoding: 'utf8' });
    expect(r.data.response.headers['x-receiver']).toEqual(['yes']);
    expect(r.data.request_id).toBeNull();
    expect(received).toHaveLength(1);
    const [got] = received.splice(0);
    expect(got!.url).toBe('/hooks/github?from=sample');
    expect(got!.headers['x-github-event']).toBe('push');
    expect(got!.body).toBe(r.data.sent.body);
    expect(await githubVerify('url-secret', got!.body, String(got!.headers['x-hub-signature-256']))).toBe(true);
  });

  it('refuses addresses the outbound policy refuses, and bad input, with 4xx', async () => {
    const { key } = await s.user(false);
    const send = (json: Record<string, unknown>) => s.call('POST', '/samples/send', { key, json });
    const metadata = await send({ provider: 'github', event: 'push', url: 'http://169.254.169.254/latest/meta-data' });
    expect(metadata.status).toBe(422);
    expect(metadata.data.errors.url[0]).toMatch(/refused/);
    expect((await send({ provider: 'github', event: 'push' })).data.errors.token).toBeDefined();
    expect((await send({ provider: 'github', event: 'push', url: receiverUrl, token: 'x' })).status).toBe(422);
    expect((await send({ provider: 'nope', event: 'push', url: receiverUrl })).status).toBe(422);
    expect((await send({ provider: 'github', event: 'no_such_event', url: receiverUrl })).data.errors.event).toBeDefined();
    expect((await send({ provider: 'stripe', event: 'invoice.paid', url: receiverUrl })).data.errors.secret).toEqual(['is required']);
    expect((await send({ provider: 'svix', event: 'user.created', secret: 'whsec_%%%', url: receiverUrl })).status).toBe(422);
    expect((await send({ provider: 'github', event: 'push', url: 'ftp://example.com/' })).status).toBe(422);
    expect((await send({ provider: 'github', event: 'push', url: receiverUrl, overrides: [1] })).status).toBe(422);
    expect(received).toEqual([]);
  });
});
