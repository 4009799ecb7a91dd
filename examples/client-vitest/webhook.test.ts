// How a test suite checks the webhooks its application sends, with @capture/client: make a token,
// point the application at its URL, trigger the webhook, wait for it and assert. The service
// verifies the signature (verify_signature) and turns away a forged call.
//
// In CI, point CAPTURE_URL (and CAPTURE_API_KEY) at a running service; without CAPTURE_URL this
// file starts one of its own for `npm test`.
import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CaptureClient, type Token } from '@capture/client';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

// The application under test: posts an order event, signed like GitHub signs its webhooks.
const SECRET = 'test-signing-secret';
async function notifyOrderShipped(webhookUrl: string, order: { id: number; total: number }, secret = SECRET): Promise<number> {
  const body = JSON.stringify({ event: 'order.shipped', order });
  const signature = 'sha256=' + crypto.createHmac('sha256', secret).update(body).digest('hex');
  const res = await fetch(webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature }, body });
  return res.status;
}

let server: TestServer | undefined;
let capture: CaptureClient;
let token: Token;

beforeAll(async () => {
  if (!process.env.CAPTURE_URL) server = await startTestServer();
  capture = new CaptureClient({ url: process.env.CAPTURE_URL ?? server!.url, apiKey: process.env.CAPTURE_API_KEY });
  token = await capture.createToken({ actions: true });
  // Only correctly signed calls are stored; others are answered 401.
  await capture.applyWorkflow(token, {
    apiVersion: 'capture/v1',
    kind: 'TokenActions',
    metadata: { token: token.uuid },
    spec: { steps: [{ type: 'verify_signature', parameters: { preset: 'github', secret: SECRET, reject: true } }] },
  });
});

afterAll(async () => {
  await capture?.deleteToken(token).catch(() => {});
  await server?.close();
});

it('sends a signed order.shipped webhook with the order', async () => {
  expect(await notifyOrderShipped(capture.captureUrl(token), { id: 7, total: 42 })).toBe(200);

  const request = await capture.waitForRequest(token, 'method:POST AND content:"order.shipped"', 10);
  expect(request.headers['content-type']).toEqual(['application/json']);
  expect(JSON.parse(request.content)).toEqual({ event: 'order.shipped', order: { id: 7, total: 42 } });
});

it('a webhook signed with the wrong secret is refused and not stored', async () => {
  await capture.deleteAll(token);
  expect(await notifyOrderShipped(capture.captureUrl(token), { id: 8, total: 1 }, 'wrong-secret')).toBe(401);
  expect(await capture.latest(token)).toBeNull();
});
