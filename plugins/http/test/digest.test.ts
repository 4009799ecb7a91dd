// Digest authentication against the worked examples of RFC 2617 and RFC 7616.
import { describe, expect, it } from 'vitest';
import { digestAuthorization, parseDigestChallenge } from '../src/digest.js';

describe('digest', () => {
  it('parses the Digest challenge among others', () => {
    expect(parseDigestChallenge('Basic realm="x", Digest realm="a, b", nonce="n\\"1", qop="auth, auth-int", opaque=o, algorithm=SHA-256')).toEqual({
      realm: 'a, b',
      nonce: 'n"1',
      opaque: 'o',
      algorithm: 'SHA-256',
      qop: ['auth', 'auth-int'],
    });
    expect(parseDigestChallenge('Basic realm="x"')).toBeNull();
    expect(parseDigestChallenge(undefined)).toBeNull();
  });

  it('answers the RFC 2617 example (MD5, qop=auth)', () => {
    const challenge = parseDigestChallenge('Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"')!;
    const header = digestAuthorization(challenge, { username: 'Mufasa', password: 'Circle Of Life', method: 'GET', uri: '/dir/index.html', cnonce: '0a4f113b' });
    expect(header).toContain('response="6629fae49393a05397450978507c4ef1"');
    expect(header).toContain('opaque="5ccc069c403ebaf9f0171e9517f40e41"');
    expect(header).toContain('qop=auth, nc=00000001, cnonce="0a4f113b"');
  });

  it('answers the RFC 7616 example (SHA-256)', () => {
    const challenge = parseDigestChallenge(
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
    )!;
    const header = digestAuthorization(challenge, { username: 'Mufasa', password: 'Circle of Life', method: 'GET', uri: '/dir/index.html', cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ' });
    expect(header).toContain('response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"');
  });

  it('refuses an unknown algorithm', () => {
    expect(() => digestAuthorization({ realm: 'r', nonce: 'n', algorithm: 'SHA-1' }, { username: 'u', password: 'p', method: 'GET', uri: '/' })).toThrow(/SHA-1 is not supported/);
  });
});
