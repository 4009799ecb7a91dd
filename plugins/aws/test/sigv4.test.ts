// The signer against published AWS examples: the S3 "Signature Calculations for the Authorization
// Header" examples (GET Object, PUT Object, GET Bucket Lifecycle, GET Bucket), the SigV4 test
// suite's get-vanilla, and the IAM signing-key derivation example.
import { describe, expect, it } from 'vitest';
import { canonicalQuery, canonicalUri, sign, signingKey, UNSIGNED_PAYLOAD, uriEncode } from '../src/sigv4.js';

const S3_EXAMPLE = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const MAY_24 = new Date('2013-05-24T00:00:00Z');

describe('SigV4 against the S3 documentation examples', () => {
  it('GET Object (with a Range header)', () => {
    const s = sign({
      method: 'GET',
      url: 'https://examplebucket.s3.amazonaws.com/test.txt',
      headers: { Range: 'bytes=0-9' },
      service: 's3',
      region: 'us-east-1',
      credentials: S3_EXAMPLE,
      date: MAY_24,
    });
    expect(s.canonicalRequest).toBe(
      ['GET', '/test.txt', '', 'host:examplebucket.s3.amazonaws.com', 'range:bytes=0-9', `x-amz-content-sha256:${EMPTY}`, 'x-amz-date:20130524T000000Z', '', 'host;range;x-amz-content-sha256;x-amz-date', EMPTY].join(
        '\n',
      ),
    );
    expect(s.stringToSign).toBe('AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    expect(s.signature).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(s.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(s.headers).toMatchObject({ 'x-amz-date': '20130524T000000Z', 'x-amz-content-sha256': EMPTY, Range: 'bytes=0-9' });
    expect(Object.keys(s.headers).map((k) => k.toLowerCase())).not.toContain('host');
  });

  it('PUT Object (a $ in the key, a signed payload, a Date header)', () => {
    const s = sign({
      method: 'PUT',
      url: 'https://examplebucket.s3.amazonaws.com/test$file.text',
      headers: { Date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
      body: 'Welcome to Amazon S3.',
      service: 's3',
      region: 'us-east-1',
      credentials: S3_EXAMPLE,
      date: MAY_24,
    });
    expect(s.canonicalRequest.split('\n').slice(0, 2)).toEqual(['PUT', '/test%24file.text']);
    expect(s.headers['x-amz-content-sha256']).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    expect(s.signature).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('GET Bucket Lifecycle (a query parameter without a value)', () => {
    const s = sign({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/?lifecycle', service: 's3', region: 'us-east-1', credentials: S3_EXAMPLE, date: MAY_24 });
    expect(s.canonicalRequest.split('\n').slice(0, 3)).toEqual(['GET', '/', 'lifecycle=']);
    expect(s.signature).toBe('fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543');
  });

  it('GET Bucket (query parameters sorted)', () => {
    const s = sign({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2', service: 's3', region: 'us-east-1', credentials: S3_EXAMPLE, date: MAY_24 });
    expect(s.canonicalRequest.split('\n')[2]).toBe('max-keys=2&prefix=J');
    expect(s.signature).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });
});

describe('SigV4 against the general examples', () => {
  it('derives the documented signing key', () => {
    expect(signingKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20120215', 'us-east-1', 'iam').toString('hex')).toBe('f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d');
  });

  it('get-vanilla from the SigV4 test suite', () => {
    const s = sign({
      method: 'GET',
      url: 'https://example.amazonaws.com/',
      service: 'service',
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      date: new Date('2015-08-30T12:36:00Z'),
    });
    expect(s.canonicalRequest).toBe(['GET', '/', '', 'host:example.amazonaws.com', 'x-amz-date:20150830T123600Z', '', 'host;x-amz-date', EMPTY].join('\n'));
    expect(s.headers).not.toHaveProperty('x-amz-content-sha256');
    expect(s.signature).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  it('IAM ListUsers (query string, content-type with inner spaces)', () => {
    const s = sign({
      method: 'GET',
      url: 'https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
      service: 'iam',
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      date: new Date('2015-08-30T12:36:00Z'),
    });
    expect(s.signature).toBe('5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7');
  });
});

describe('SigV4 details', () => {
  it('encodes like RFC 3986 with upper-case hex', () => {
    expect(uriEncode("a b/c~d!'()*é")).toBe('a%20b%2Fc~d%21%27%28%29%2A%C3%A9');
  });

  it('encodes S3 paths once and other services twice', () => {
    expect(canonicalUri('/bucket/a%20b/c$d', 's3')).toBe('/bucket/a%20b/c%24d');
    expect(canonicalUri('/documents%20and%20settings/', 'service')).toBe('/documents%2520and%2520settings/');
    expect(canonicalUri('', 's3')).toBe('/');
  });

  it('sorts query pairs by name, then value', () => {
    expect(canonicalQuery('?b=2&a=2&a=1&c')).toBe('a=1&a=2&b=2&c=');
  });

  it('adds the session token and can leave the payload unsigned', () => {
    const s = sign({
      method: 'PUT',
      url: 'http://127.0.0.1:9000/b/k',
      body: 'x',
      payloadHash: UNSIGNED_PAYLOAD,
      service: 's3',
      region: 'us-east-1',
      credentials: { ...S3_EXAMPLE, sessionToken: 'tok en' },
      date: MAY_24,
    });
    expect(s.headers['x-amz-security-token']).toBe('tok en');
    expect(s.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(s.canonicalRequest).toContain('host:127.0.0.1:9000\n');
    expect(s.headers.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,');
  });
});
