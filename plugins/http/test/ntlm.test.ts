// NTLM in the HTTP Request action: the MS-NLMP test vectors, then the whole handshake against a
// local server that issues a challenge per connection and checks the NTLMv2 proof.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../../../test/helpers/host.js';
import { fetchHttpClient, runAction } from '@capture/sdk/testing';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { httpRequest } from '../src/http.js';
import { authenticateMessage, negotiateMessage, ntlmv2Responses, ntowfv2, parseChallenge, splitUser } from '../src/ntlm.js';
import { outboundHttp } from './helpers.js';
import { startNtlmServer, type NtlmServer } from './ntlm-server.js';

describe('NTLMv2 (MS-NLMP 4.2.4 test vectors)', () => {
  const av = (id: number, v: Buffer) => Buffer.concat([Buffer.from([id, 0, v.length, 0]), v]);
  const targetInfo = Buffer.concat([av(2, Buffer.from('Domain', 'utf16le')), av(1, Buffer.from('Server', 'utf16le')), Buffer.alloc(4)]);

  it('derives NTOWFv2, the NTProofStr and the LMv2 response of the specification', () => {
    const key = ntowfv2('Password', 'User', 'Domain');
    expect(key.toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
    const { nt, lm } = ntlmv2Responses(key, Buffer.from('0123456789abcdef', 'hex'), Buffer.alloc(8, 0xaa), Buffer.alloc(8), targetInfo);
    expect(nt.subarray(0, 16).toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(lm.toString('hex')).toBe('86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
  });

  it('reads user names with a domain in either form', () => {
    expect(splitUser('CORP\\alice')).toEqual({ domain: 'CORP', user: 'alice' });
    expect(splitUser('alice@corp.example')).toEqual({ domain: 'corp.example', user: 'alice' });
    expect(splitUser('alice')).toEqual({ domain: null, user: 'alice' });
  });

  it('writes a negotiate message and ignores challenges that are not NTLM', () => {
    expect(negotiateMessage()).toMatch(/^NTLM TlRMTVNTUAAB/);
    expect(parseChallenge('Basic realm="x"')).toBeNull();
    expect(parseChallenge('NTLM')).toBeNull();
    expect(parseChallenge(`NTLM ${Buffer.from('NTLMSSP\0junk').toString('base64')}`)).toBeNull();
    expect(() => authenticateMessage({ flags: 1, serverChallenge: Buffer.alloc(8), targetName: 'D', targetInfo: Buffer.alloc(0) }, { username: 'u', password: 'p', domain: 'D' })).not.toThrow();
  });
});

describe('http action with auth mode ntlm', () => {
  let srv: NtlmServer;
  beforeAll(async () => {
    srv = await startNtlmServer({ alice: 'S3cret-pass' });
  });
  afterAll(async () => srv?.close());

  const run = (params: Record<string, unknown>, http = outboundHttp()) => runAction(httpRequest, params, { services: { http } });

  it('authenticates with DOMAIN\\user on one connection and gets the answer', async () => {
    srv.log.length = 0;
    const r = await run({ url: `${srv.url}/report`, method: 'POST', content: 'payload', auth: { mode: 'ntlm', username: 'CORP\\alice', password: 'S3cret-pass' } });
    expect(r.errors).toEqual([]);
    expect(r.vars['http.status']).toBe('200');
    expect(r.vars['http.content']).toBe('hello CORP\\alice: POST payload');
    // Negotiate and authenticate went over the same connection.
    expect(srv.log.map((l) => l.replace(/^\d+ /, ''))).toEqual(['challenge', 'hello CORP\\alice: POST payload']);
    expect(new Set(srv.log.map((l) => l.split(' ')[0])).size).toBe(1);
  });

  it("takes the domain from the server's challenge when the user name has none", async () => {
    const r = await run({ url: srv.url, auth: { mode: 'ntlm', username: 'alice', password: 'S3cret-pass' } });
    expect(r.vars['http.status']).toBe('200');
    expect(r.vars['http.content']).toBe('hello CORP\\alice: GET ');
  });

  it('a wrong password gets the 401 in the variables, not an action error', async () => {
    const r = await run({ url: srv.url, auth: { mode: 'ntlm', username: 'CORP\\alice', password: 'wrong' } });
    expect(r.errors).toEqual([]);
    expect(r.vars['http.status']).toBe('401');
    expect(r.vars['http.content']).toBe('bad proof');
  });

  it('still applies the outbound policy to the connection', async () => {
    const r = await run({ url: srv.url, auth: { mode: 'ntlm', username: 'alice', password: 'S3cret-pass' } }, outboundHttp({ loopback: false }));
    expect(r.vars['http.error']).toMatch(/loopback/);
    expect(r.vars['http.status']).toBeUndefined();
  });

  it('says so when the HTTP client cannot keep a connection', async () => {
    const r = await run({ url: srv.url, auth: { mode: 'ntlm', username: 'alice', password: 'x' } }, fetchHttpClient as ReturnType<typeof outboundHttp>);
    expect(r.vars['http.error']).toMatch(/NTLM needs an HTTP client that keeps a connection/);
  });
});

describe('NTLM end to end through the running service', () => {
  let s: TestServer;
  let ntlm: NtlmServer;
  beforeAll(async () => {
    s = await startTestServer({}, { modules: [createActionsModule()] });
    ntlm = await startNtlmServer({ bob: 'hunter2!' }, 'LAB');
  });
  afterAll(async () => {
    await s?.close();
    await ntlm?.close();
  });

  it("a capture's http action authenticates with NTLM and stores the answer in its output", async () => {
    const t = await s.token({ actions: true });
    const created = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: { type: 'http', order: 1, parameters: { url: `${ntlm.url}/in`, method: 'PUT', content: '$request.content$', auth: { mode: 'ntlm', username: 'LAB\\bob', password: 'hunter2!' } } },
    });
    expect(created.status, created.text).toBe(200);
    // The password is a secret: not echoed back.
    expect(created.text).not.toContain('hunter2!');
    expect((await s.call('POST', `/${t.uuid}`, { body: 'from capture' })).status).toBe(200);
    const [req] = (await s.call('GET', `/token/${t.uuid}/requests`)).data.data;
    expect(req.custom_action_errors).toEqual([]);
    expect(req.custom_action_output[0]).toMatch(/PUT http:\/\/127\.0\.0\.1:\d+\/in responded 200/);
    expect(ntlm.log.at(-1)).toMatch(/hello LAB\\bob: PUT from capture$/);
  });
});
