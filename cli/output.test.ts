import { describe, expect, it } from 'vitest';
import type { CapturedRequest } from '../packages/client/src/index.js';
import { colourWanted, paint, pathAfterToken, requestLine } from './output.js';
import { targetUrl } from './commands/forward.js';

const token = { uuid: '0b9f6a52-1c2d-4e3f-8a9b-0c1d2e3f4a5b', alias: 'shop' };
const request = (over: Partial<CapturedRequest>): CapturedRequest =>
  ({ uuid: 'r-1', type: 'web', method: 'POST', url: `http://h/${token.uuid}/hook?x=1`, ip: '10.0.0.1', size: 2048, created_at: '2026-01-02 03:04:05', headers: {}, ...over }) as CapturedRequest;

describe('colourWanted', () => {
  it('colours only a terminal, and never with NO_COLOR set or --no-color', () => {
    expect(colourWanted({ isTTY: true }, {})).toBe(true);
    expect(colourWanted({ isTTY: false }, {})).toBe(false);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted({ isTTY: true }, {}, true)).toBe(false);
  });
});

describe('requestLine', () => {
  it('shows time, method, the path after the token, size, sender and ID', () => {
    expect(requestLine(request({}), token, paint(false))).toBe('03:04:05 POST   /hook?x=1 2.0 KiB 10.0.0.1 r-1');
    expect(requestLine(request({ url: 'http://h/shop/a/b' }), token, paint(false))).toContain(' /a/b ');
    expect(requestLine(request({ type: 'email', sender: 'a@b.c', headers: { subject: ['Hi'] } }), token, paint(false))).toContain('EMAIL  from a@b.c: Hi');
    expect(requestLine(request({ type: 'dns', dns: { name: 'x.example', type: 'A', protocol: 'udp', subdomain: 'x' } }), token, paint(false))).toContain('DNS    A x.example');
  });

  it('colours the method and dims the details on a terminal', () => {
    const line = requestLine(request({ method: 'GET' }), token, paint(true));
    expect(line).toContain('\x1b[32mGET   \x1b[0m');
    expect(line).toContain('\x1b[2m03:04:05\x1b[0m');
  });
});

describe('pathAfterToken and the forward target', () => {
  it('keeps the path after the token (UUID or alias), or the whole path of a subdomain capture', () => {
    expect(pathAfterToken(`http://h/${token.uuid}`, token)).toBe('/');
    expect(pathAfterToken('http://h/SHOP/x?y=1', token)).toBe('/x?y=1');
    expect(pathAfterToken('http://shop.capture.test/x', token)).toBe('/x');
  });

  it("joins the target's path and the capture's path and query", () => {
    expect(targetUrl('http://127.0.0.1:3000', request({}), token as never)).toBe('http://127.0.0.1:3000/hook?x=1');
    expect(targetUrl('http://127.0.0.1:3000/api/', request({}), token as never)).toBe('http://127.0.0.1:3000/api/hook?x=1');
    expect(targetUrl('http://127.0.0.1:3000/api', request({ url: `http://h/${token.uuid}` }), token as never)).toBe('http://127.0.0.1:3000/api');
  });
});
