// The outbound client's view of TLS certificates: the one a request's connection saw, and one read
// by a TLS connection alone (trusted or not), both through the outbound policy. The certificate is
// made here with openssl, valid for 3 days, for 127.0.0.1.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundRefused, createOutboundClient } from './outbound.js';

const open = { OUTBOUND_ALLOW_LOOPBACK: true, OUTBOUND_ALLOW_PRIVATE: true };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-peer-cert-'));
let cert: Buffer;
let server: https.Server;
let base: string;

beforeAll(async () => {
  const key = path.join(tmp, 'key.pem');
  const crt = path.join(tmp, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    crt,
    '-days',
    '3',
    '-subj',
    '/CN=peer-test',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  cert = fs.readFileSync(crt);
  server = https.createServer({ cert, key: fs.readFileSync(key) }, (req, res) => {
    if (req.url === '/hop') return void res.writeHead(302, { Location: '/end' }).end();
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});

const inThreeDays = () => expect.closeTo(Date.now() + 3 * 86_400_000, -5); // within 10^5 ms

describe('TLS certificates through the outbound client', () => {
  it('a request reports the certificate its connection saw (the first hop), verified', async () => {
    const client = createOutboundClient(open, { extraCa: [cert] });
    const res = await client.request({ method: 'GET', url: `${base}/hop` });
    expect(res.url).toBe(`${base}/end`);
    expect(res.certificate).toEqual({ validFrom: expect.any(Number), validTo: inThreeDays(), subject: 'peer-test', authorized: true, authorizationError: null });
  });

  it('certificate() reads a certificate the client does not trust, and says why it does not verify', async () => {
    const client = createOutboundClient(open);
    await expect(client.request({ method: 'GET', url: `${base}/` })).rejects.toThrow(/self-signed certificate/);
    expect(await client.certificate(`${base}/`)).toEqual({ validFrom: expect.any(Number), validTo: inThreeDays(), subject: 'peer-test', authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('certificate() follows the outbound policy and takes only https URLs', async () => {
    const closed = createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: false, OUTBOUND_ALLOW_PRIVATE: false });
    await expect(closed.certificate(`${base}/`)).rejects.toBeInstanceOf(OutboundRefused);
    await expect(closed.certificate(`https://localhost:${new URL(base).port}/`)).rejects.toBeInstanceOf(OutboundRefused);
    await expect(createOutboundClient(open).certificate('http://127.0.0.1/')).rejects.toThrow(/not https/);
  });
});
