// What an operator watching the log sees: an info line per capture (HTTP, e-mail, DNS) with the
// request's ID, which the capture's other lines (action errors, a listen that timed out) carry too;
// none with LOG_CAPTURES=false or a LOG_LEVEL above info.
import { Resolver } from 'node:dns/promises';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import type { RawConfig } from '../core/config.js';
import { createLogger, formatText, type Level } from '../core/logger.js';
import { DNS_INFO, MAIL_INFO } from '../core/service-keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';

type Line = { level: string; msg: string } & Record<string, unknown>;

let s: TestServer | undefined;
let lines: Line[];

afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A server whose log lines (JSON, at LOG_LEVEL) are collected in `lines`. */
async function serverLogging(env: Partial<Record<keyof RawConfig, string>> = {}): Promise<TestServer> {
  lines = [];
  const logger = createLogger((env.LOG_LEVEL ?? 'info') as Level, {}, (l) => lines.push(JSON.parse(l) as Line), 'json');
  s = await startTestServer({ SMTP_AUTH_CHECKS: 'false', DNS_DOMAIN: 'dns.test', EMAIL_DOMAIN: 'mail.test', ...env }, { logger });
  return s;
}

const captureLines = () => lines.filter((l) => l.msg === 'capture');

describe('capture log lines', () => {
  it('an HTTP capture: method, token, status, size and time, named by its X-Request-Id', async () => {
    const server = await serverLogging();
    const token = await server.token({ default_status: 201 });
    const res = await fetch(`${server.url}/${token.uuid}/hook?x=1`, { method: 'POST', body: '{"total":42}' });
    expect(res.status).toBe(201);
    await expect.poll(() => captureLines().length).toBe(1);
    const [line] = captureLines();
    expect(line).toMatchObject({ level: 'info', request: res.headers.get('x-request-id'), token: token.uuid, method: 'POST', status: 201, size: 12 });
    expect(typeof line!.ms).toBe('number');
  });

  it('a refused capture: the name it used, the status and why', async () => {
    const server = await serverLogging();
    expect((await fetch(`${server.url}/no-such-token/x`)).status).toBe(404);
    await expect.poll(() => captureLines().length).toBe(1);
    expect(captureLines()[0]).toMatchObject({ token: 'no-such-token', method: 'GET', status: 404, error: 'Token not found' });
    expect(captureLines()[0]!.request).toBeUndefined();
  });

  it('e-mail and DNS captures get a line each', async () => {
    const server = await serverLogging();
    const token = await server.token();
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.provided.get(MAIL_INFO)!.port!, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'shop@example.com', to: `${token.uuid}@mail.test`, subject: 'hi', text: 'hello' });
    transport.close();
    const resolver = new Resolver({ timeout: 3000, tries: 1 });
    resolver.setServers([`127.0.0.1:${server.provided.get(DNS_INFO)!.port!}`]);
    await resolver.resolve4(`${token.uuid}.dns.test`).catch(() => []);
    await expect
      .poll(() =>
        captureLines()
          .map((l) => l.method)
          .sort(),
      )
      .toEqual(['DNS', 'EMAIL']);
    const stored = (await server.call('GET', `/token/${token.uuid}/requests?sorting=oldest`)).data.data as Array<{ uuid: string; type: string }>;
    expect(
      captureLines()
        .map((l) => l.request)
        .sort(),
    ).toEqual(stored.map((r) => r.uuid).sort());
  });

  it("action errors and a listen that timed out carry the capture's request ID", async () => {
    const server = await serverLogging();
    const token = await server.token({ actions: true, listen: 1 });
    const add = await server.call('POST', `/token/${token.uuid}/actions`, { json: { order: 1, type: 'validate_json', parameters: { source: '$request.content$' } } });
    expect(add.status).toBe(200);
    const res = await fetch(`${server.url}/${token.uuid}`, { method: 'POST', body: 'not json' });
    const id = res.headers.get('x-request-id');
    await expect.poll(() => captureLines().length).toBe(1);
    const mine = lines.filter((l) => l.request === id).map((l) => l.msg);
    expect(mine).toEqual(['actions reported errors', 'capture: no response was set in time; answered as usual', 'capture']);
    expect(lines.find((l) => l.msg === 'actions reported errors')).toMatchObject({ token: token.uuid, errors: 1 });
  });

  it('none with LOG_CAPTURES=false, nor with LOG_LEVEL=warn', async () => {
    for (const env of [{ LOG_CAPTURES: 'false' }, { LOG_LEVEL: 'warn' }] as const) {
      const server = await serverLogging(env);
      const token = await server.token();
      expect((await fetch(`${server.url}/${token.uuid}`, { method: 'POST', body: 'x' })).status).toBe(200);
      expect((await fetch(`${server.url}/no-such-token`)).status).toBe(404);
      expect((await server.call('GET', `/token/${token.uuid}/requests`)).data.total).toBe(1);
      expect(captureLines(), JSON.stringify(env)).toEqual([]);
      await server.close();
      s = undefined;
    }
  });

  it('reads as one short line in the text format', () => {
    const line = formatText(new Date('2026-01-02T03:04:05Z'), 'info', 'capture', { request: '0194c1d2-aaaa-7bbb-8ccc-0123456789ab', token: 'f00d', method: 'POST', status: 200, size: 12, ms: 0.4 });
    expect(line).toBe('03:04:05 INFO  capture request=0194c1d2-aaaa-7bbb-8ccc-0123456789ab token=f00d method=POST status=200 size=12 ms=0.4');
  });
});
