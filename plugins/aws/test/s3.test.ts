// The S3 actions against a local S3 stand-in that checks the SigV4 signature of every request,
// and against a stub for AWS's own addressing (virtual-hosted buckets, regions, redirects).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import { fetchHttpClient, memoryProviders, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import type { Providers } from '@capture/sdk';
import { awsProvider } from '../src/provider.js';
import { awsS3CreateBucket } from '../src/s3-create-bucket.js';
import { awsS3DeleteObject } from '../src/s3-delete-object.js';
import { awsS3GetObject, MAX_OBJECT_BYTES } from '../src/s3-get-object.js';
import { awsS3PutObject } from '../src/s3-put-object.js';
import { startFakeAws, verifySignature, type FakeAws } from './fake-aws.js';

const KEY = 'AKIDCAPTURETEST00001';
const SECRET = 'capture/test+secret/0123456789abcdefghij';
const TEMP_KEY = 'ASIACAPTURETEMP00002';
const TEMP_SECRET = 'temporary-secret';
const TOKEN = 'FwoGZXIvYXdzEXAMPLE//session+token=';

let fake: FakeAws;
let providers: Providers;

const creds = (access_key_id: string, secret_access_key: string, session_token?: string) => ({ access_key_id, secret_access_key, ...(session_token ? { session_token } : {}) });

beforeAll(async () => {
  fake = await startFakeAws({ keys: { [KEY]: { secret: SECRET }, [TEMP_KEY]: { secret: TEMP_SECRET, sessionToken: TOKEN } } });
  providers = memoryProviders([
    { id: '7', type: 'aws', credentials: creds(KEY, SECRET), settings: { endpoint: fake.url } },
    { id: '8', type: 'aws', credentials: creds(KEY, 'not-the-secret'), settings: { endpoint: fake.url } },
    { id: '9', type: 'aws', credentials: creds('AKIDUNKNOWN', SECRET), settings: { endpoint: fake.url } },
    { id: '10', type: 'aws', credentials: creds(TEMP_KEY, TEMP_SECRET, TOKEN), settings: { endpoint: `${fake.url}/` } },
    { id: '11', type: 'dropbox', credentials: { token: 'x' } },
    { id: '12', type: 'aws', credentials: { access_key_id: KEY }, settings: { endpoint: fake.url } },
  ]);
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.buckets.clear();
  fake.requests.length = 0;
});

function run(action: Parameters<typeof runAction>[0], params: Record<string, unknown>, vars?: Record<string, string>) {
  return runAction(action, params, { services: { http: fetchHttpClient, providers }, vars });
}

async function bucket(name = 'photos') {
  const r = await run(awsS3CreateBucket, { provider_id: '7', region: '', bucket_name: name });
  expect(r.errors).toEqual([]);
}

describe('aws_s3_create_bucket', () => {
  it('creates a bucket on a compatible store with a blank region (signed for us-east-1, no LocationConstraint)', async () => {
    const r = await run(awsS3CreateBucket, { provider_id: '7', region: '', bucket_name: 'photos' });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['Bucket s3://photos created']);
    expect(fake.buckets.get('photos')).toMatchObject({ region: undefined, acl: undefined });
    const [req] = fake.requests;
    expect(req).toMatchObject({ method: 'PUT', url: '/photos', rejected: null });
    expect(req!.body.length).toBe(0);
    expect(req!.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEY}/\\d{8}/us-east-1/s3/aws4_request, `));
  });

  it('sends the region as LocationConstraint and the canned ACL as a signed x-amz-acl header', async () => {
    const r = await run(awsS3CreateBucket, { provider_id: 7, region: 'eu-west-1', bucket_name: 'reports', canned_acl: 'public-read' });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['Bucket s3://reports created in eu-west-1 (ACL public-read)']);
    expect(fake.buckets.get('reports')).toMatchObject({ region: 'eu-west-1', acl: 'public-read' });
    const [req] = fake.requests;
    expect(req!.headers['x-amz-acl']).toBe('public-read');
    expect(req!.headers.authorization).toContain('/eu-west-1/s3/aws4_request, SignedHeaders=content-type;host;x-amz-acl;x-amz-content-sha256;x-amz-date,');
    expect(req!.body.toString()).toBe('<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>');
  });

  it('leaves out LocationConstraint for us-east-1', async () => {
    await run(awsS3CreateBucket, { provider_id: '7', region: 'us-east-1', bucket_name: 'east' });
    expect(fake.buckets.get('east')).toMatchObject({ region: undefined });
    expect(fake.requests[0]!.body.length).toBe(0);
  });

  it('reports the S3 error of a bucket that exists', async () => {
    await bucket('twice');
    const r = await run(awsS3CreateBucket, { provider_id: '7', bucket_name: 'twice' });
    expect(r.errors).toEqual(['S3 CreateBucket failed: BucketAlreadyOwnedByYou: Your previous request to create the named bucket succeeded and you already own it. (HTTP 409)']);
  });
});

describe('aws_s3_put_object and aws_s3_get_object', () => {
  it('round-trips a body byte for byte, key with spaces and symbols included', async () => {
    await bucket();
    const body = 'line 1\r\nline 2\n  ünïcödé ✓ 🚀 \u0000 end\t';
    const key = "dir/sub dir/ä+$&=@,;:!*()'~ %41.txt";
    const put = await run(awsS3PutObject, { provider_id: '7', region: '', bucket_name: 'photos', object_key: key, body });
    expect(put.errors).toEqual([]);
    expect(fake.buckets.get('photos')!.objects.get(key)!.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(put.output[0]).toMatch(new RegExp(`^Object s3://photos/.+ uploaded \\(${Buffer.byteLength(body)} bytes, ETag "[0-9a-f]{32}"\\)$`));
    // A signed payload: the hash of the body, not UNSIGNED-PAYLOAD.
    expect(fake.requests[1]!.headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);

    const get = await run(awsS3GetObject, { provider_id: '7', bucket_name: 'photos', object_key: key, variable_name: 'obj' });
    expect(get.errors).toEqual([]);
    expect(get.vars.obj).toBe(body);
    expect(get.output).toEqual([`Object s3://photos/${key} read into $obj$ (${Buffer.byteLength(body)} bytes, binary/octet-stream)`]);
    expect(fake.requests.every((r) => r.rejected === null)).toBe(true);
  });

  it('puts and gets bytes byte-exactly (every byte value), signed over the bytes', async () => {
    await bucket();
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const put = await run(awsS3PutObject, { provider_id: '7', region: '', bucket_name: 'photos', object_key: 'all.bin', body: '$bin$' }, { bin: bytesText(allBytes) });
    expect(put.errors).toEqual([]);
    expect(fake.buckets.get('photos')!.objects.get('all.bin')!.body.equals(allBytes)).toBe(true);
    expect(put.output[0]).toMatch(/ uploaded \(256 bytes, /);

    const get = await run(awsS3GetObject, { provider_id: '7', bucket_name: 'photos', object_key: 'all.bin', variable_name: 'obj' });
    expect(get.errors).toEqual([]);
    expect(get.vars.obj).toBe(bytesText(allBytes));
    expect(textBytes(get.vars.obj!).equals(allBytes)).toBe(true);
    expect(fake.requests.every((r) => r.rejected === null)).toBe(true);
  });

  it('puts an uploaded file as its bytes', async () => {
    await bucket();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    const r = await runAction(
      awsS3PutObject,
      { provider_id: '7', region: '', bucket_name: 'photos', object_key: 'up/$request.file.img.filename$', body: '$request.file.img.content$' },
      { services: { http: fetchHttpClient, providers }, request: { files: [{ id: 'f', name: 'img', filename: 'a.png', size: png.length, content_type: 'image/png', content: png }] } },
    );
    expect(r.errors).toEqual([]);
    expect(fake.buckets.get('photos')!.objects.get('up/a.png')!.body.equals(png)).toBe(true);
  });

  it('takes parameters from variables', async () => {
    await bucket('from-vars');
    const r = await run(
      awsS3PutObject,
      { provider_id: '$pid$', region: '$region$', bucket_name: '$b$', object_key: 'hooks/$request.uuid$.json', body: '{"n":$n$}' },
      { pid: '7', region: 'us-east-1', b: 'from-vars', n: '42' },
    );
    expect(r.errors).toEqual([]);
    expect(fake.buckets.get('from-vars')!.objects.get('hooks/22222222-2222-4222-8222-222222222222.json')!.body.toString()).toBe('{"n":42}');
  });

  it('sends canned_acl as x-amz-acl', async () => {
    await bucket();
    const r = await run(awsS3PutObject, { provider_id: '7', region: '', bucket_name: 'photos', object_key: 'pub.txt', body: 'hi', canned_acl: 'authenticated-read' });
    expect(r.errors).toEqual([]);
    expect(fake.buckets.get('photos')!.objects.get('pub.txt')!.acl).toBe('authenticated-read');
    expect(fake.requests.at(-1)!.headers.authorization).toContain('x-amz-acl');
  });

  it('signs with a session token when the provider has one', async () => {
    await bucket();
    const r = await run(awsS3PutObject, { provider_id: '10', region: '', bucket_name: 'photos', object_key: 't.txt', body: 'temp' });
    expect(r.errors).toEqual([]);
    expect(fake.requests.at(-1)!.headers['x-amz-security-token']).toBe(TOKEN);
  });

  it('fails clearly for a missing bucket', async () => {
    const r = await run(awsS3PutObject, { provider_id: '7', region: '', bucket_name: 'nope', object_key: 'a', body: 'x' });
    expect(r.errors).toEqual(['S3 PutObject failed: NoSuchBucket: The specified bucket does not exist (HTTP 404)']);
    const g = await run(awsS3GetObject, { provider_id: '7', bucket_name: 'nope', object_key: 'a', variable_name: 'v' });
    expect(g.errors).toEqual(['S3 GetObject failed: NoSuchBucket: The specified bucket does not exist (HTTP 404)']);
  });

  it('refuses an object over 10 MiB and sets no variable', async () => {
    await bucket();
    fake.buckets.get('photos')!.objects.set('big.bin', { body: Buffer.alloc(MAX_OBJECT_BYTES + 1, 'a') });
    fake.buckets.get('photos')!.objects.set('limit.bin', { body: Buffer.alloc(MAX_OBJECT_BYTES, 'b') });
    const big = await run(awsS3GetObject, { provider_id: '7', bucket_name: 'photos', object_key: 'big.bin', variable_name: 'v' });
    expect(big.errors).toEqual([`Object s3://photos/big.bin is larger than 10 MiB (${MAX_OBJECT_BYTES + 1} bytes); not read`]);
    expect(big.vars).not.toHaveProperty('v');
    const limit = await run(awsS3GetObject, { provider_id: '7', bucket_name: 'photos', object_key: 'limit.bin', variable_name: 'v' });
    expect(limit.errors).toEqual([]);
    expect(limit.vars.v).toHaveLength(MAX_OBJECT_BYTES);
  });
});

describe('aws_s3_delete_object', () => {
  it('deletes an object; getting it afterwards is a NoSuchKey error', async () => {
    await bucket();
    await run(awsS3PutObject, { provider_id: '7', region: '', bucket_name: 'photos', object_key: 'gone.txt', body: 'bye' });
    const del = await run(awsS3DeleteObject, { provider_id: '7', bucket_name: 'photos', object_key: 'gone.txt' });
    expect(del.errors).toEqual([]);
    expect(del.output).toEqual(['Object s3://photos/gone.txt deleted']);
    expect(fake.buckets.get('photos')!.objects.has('gone.txt')).toBe(false);
    const get = await run(awsS3GetObject, { provider_id: '7', bucket_name: 'photos', object_key: 'gone.txt', variable_name: 'v' });
    expect(get.errors).toEqual(['S3 GetObject failed: NoSuchKey: The specified key does not exist. (HTTP 404)']);
    expect(get.vars).not.toHaveProperty('v');
  });
});

describe('credentials and providers', () => {
  it('reports a wrong secret as SignatureDoesNotMatch with a hint', async () => {
    await bucket();
    const r = await run(awsS3PutObject, { provider_id: '8', region: '', bucket_name: 'photos', object_key: 'a', body: 'x' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^S3 PutObject failed: SignatureDoesNotMatch: The request signature we calculated does not match .* \(HTTP 403\); check the secret access key of the AWS provider$/);
    expect(fake.requests.at(-1)!.rejected).toBe('SignatureDoesNotMatch');
    expect(fake.buckets.get('photos')!.objects.size).toBe(0);
  });

  it('reports an unknown access key', async () => {
    const r = await run(awsS3DeleteObject, { provider_id: '9', bucket_name: 'photos', object_key: 'a' });
    expect(r.errors[0]).toMatch(/InvalidAccessKeyId: .*; check the access key ID of the AWS provider$/);
  });

  it('reports a missing provider, a provider of another type, and incomplete credentials', async () => {
    const missing = await run(awsS3GetObject, { provider_id: '404', bucket_name: 'b', object_key: 'k', variable_name: 'v' });
    expect(missing.errors).toEqual(['Provider 404 not found']);
    const other = await run(awsS3GetObject, { provider_id: 11, bucket_name: 'b', object_key: 'k', variable_name: 'v' });
    expect(other.errors).toEqual(['Provider 11 is a dropbox account, not aws']);
    const incomplete = await run(awsS3GetObject, { provider_id: '12', bucket_name: 'b', object_key: 'k', variable_name: 'v' });
    expect(incomplete.errors[0]).toMatch(/^AWS provider 12 is incomplete: credentials.secret_access_key /);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('addressing AWS itself', () => {
  const aws = (settings: Record<string, unknown> = {}) => memoryProviders([{ id: '1', type: 'aws', credentials: creds(KEY, SECRET), settings }]);
  const keys = new Map([[KEY, { secret: SECRET }]]);

  async function sent(params: Record<string, unknown>, settings?: Record<string, unknown>) {
    const http = stubHttp(() => ({ status: 200 }));
    const r = await runAction(awsS3PutObject, { provider_id: '1', body: 'x', ...params }, { services: { http, providers: aws(settings) } });
    expect(r.errors).toEqual([]);
    const req = http.sent[0]!;
    const url = new URL(req.url);
    // The signature holds for the host the URL names (the HTTP client sends it as Host).
    const scope = verifySignature({ method: req.method, rawUrl: url.pathname + url.search, headers: { ...lower(req.headers!), host: url.host }, body: Buffer.from(req.body!) }, keys);
    return { url: req.url, scope, maxRedirects: req.maxRedirects };
  }

  it('uses virtual-hosted style on the regional endpoint', async () => {
    const s = await sent({ region: 'eu-west-1', bucket_name: 'my-bucket', object_key: 'a b/c.txt' });
    expect(s.url).toBe('https://my-bucket.s3.eu-west-1.amazonaws.com/a%20b/c.txt');
    expect(s.scope.region).toBe('eu-west-1');
    expect(s.maxRedirects).toBe(0);
  });

  it('uses the global endpoint and us-east-1 for a blank region', async () => {
    const s = await sent({ region: '', bucket_name: 'my-bucket', object_key: 'k' });
    expect(s.url).toBe('https://my-bucket.s3.amazonaws.com/k');
    expect(s.scope.region).toBe('us-east-1');
  });

  it('uses path style for dotted bucket names and when path_style is set', async () => {
    expect((await sent({ region: 'eu-west-1', bucket_name: 'my.bucket', object_key: 'k' })).url).toBe('https://s3.eu-west-1.amazonaws.com/my.bucket/k');
    expect((await sent({ region: 'eu-west-1', bucket_name: 'my-bucket', object_key: 'k' }, { path_style: true })).url).toBe('https://s3.eu-west-1.amazonaws.com/my-bucket/k');
  });

  it('uses the China partition domain for cn- regions', async () => {
    expect((await sent({ region: 'cn-north-1', bucket_name: 'my-bucket', object_key: 'k' })).url).toBe('https://my-bucket.s3.cn-north-1.amazonaws.com.cn/k');
  });

  it('addresses a custom endpoint path-style by default, virtual-hosted when path_style is false', async () => {
    expect((await sent({ region: '', bucket_name: 'gcs-bucket', object_key: 'k' }, { endpoint: 'storage.googleapis.com' })).url).toBe('https://storage.googleapis.com/gcs-bucket/k');
    expect((await sent({ region: 'nyc3', bucket_name: 'space', object_key: 'k' }, { endpoint: 'https://nyc3.digitaloceanspaces.com', path_style: false })).url).toBe('https://space.nyc3.digitaloceanspaces.com/k');
    expect((await sent({ region: '', bucket_name: 'b', object_key: 'k' }, { endpoint: 'http://minio.internal:9000/s3/' })).url).toBe('http://minio.internal:9000/s3/b/k');
  });

  it('explains a bucket in another region (301 PermanentRedirect)', async () => {
    const http = stubHttp(() => ({
      status: 301,
      headers: { 'x-amz-bucket-region': 'ap-southeast-2' },
      body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Endpoint>b.s3.ap-southeast-2.amazonaws.com</Endpoint></Error>',
    }));
    const r = await runAction(awsS3GetObject, { provider_id: '1', region: 'us-east-1', bucket_name: 'my-bucket', object_key: 'k', variable_name: 'v' }, { services: { http, providers: aws() } });
    expect(r.errors).toEqual([
      "S3 GetObject failed: PermanentRedirect: The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint. (HTTP 301); the bucket is in region ap-southeast-2: set the action's region to it",
    ]);
  });

  it('reports an error that is not S3 XML, and a network failure', async () => {
    const html = stubHttp(() => ({ status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }));
    const r = await runAction(awsS3DeleteObject, { provider_id: '1', bucket_name: 'my-bucket', object_key: 'k' }, { services: { http: html, providers: aws() } });
    expect(r.errors).toEqual(['S3 DeleteObject failed: HTTP 502: 502 Bad Gateway']);
    const down = { request: async () => Promise.reject(new Error('Outbound request refused: 10.0.0.1, a private address')) };
    const d = await runAction(awsS3DeleteObject, { provider_id: '1', bucket_name: 'my-bucket', object_key: 'k' }, { services: { http: down, providers: aws() } });
    expect(d.errors).toEqual(['S3 DeleteObject failed: Outbound request refused: 10.0.0.1, a private address']);
  });
});

function lower(h: Record<string, string>) {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

describe('parameters', () => {
  it('accepts the documented shapes', () => {
    expect(validateParams(awsS3CreateBucket, { provider_id: 501133, region: '', bucket_name: 'b', canned_acl: '' })).toMatchObject({ provider_id: 501133 });
    expect(() => validateParams(awsS3PutObject, { provider_id: '1', region: 'eu-west-1', bucket_name: 'b', object_key: 'k', body: '', canned_acl: 'private' })).not.toThrow();
    expect(() => validateParams(awsS3GetObject, { provider_id: '1', bucket_name: 'b', object_key: 'k', variable_name: '$content$' })).not.toThrow();
    expect(() => validateParams(awsS3DeleteObject, { provider_id: '1', region: null, bucket_name: '$bucket$', object_key: '$key$' })).not.toThrow();
  });

  it('names the bad field', () => {
    expect(() => validateParams(awsS3CreateBucket, { region: 'eu-west-1', bucket_name: 'b' })).toThrow(/provider_id/);
    expect(() => validateParams(awsS3CreateBucket, { provider_id: '1', bucket_name: '' })).toThrow(/bucket_name/);
    expect(() => validateParams(awsS3CreateBucket, { provider_id: '1', bucket_name: 'a/b' })).toThrow(/bucket_name/);
    expect(() => validateParams(awsS3CreateBucket, { provider_id: '1', bucket_name: 'b', canned_acl: 'everyone' })).toThrow(/canned_acl/);
    expect(() => validateParams(awsS3CreateBucket, { provider_id: '1', bucket_name: 'b', region: 'eu west 1' })).toThrow(/region/);
    expect(() => validateParams(awsS3PutObject, { provider_id: '1', bucket_name: 'b', object_key: 'k' })).toThrow(/body/);
    expect(() => validateParams(awsS3PutObject, { provider_id: '1', bucket_name: 'b', object_key: 'a/../etc', body: 'x' })).toThrow(/object_key/);
    expect(() => validateParams(awsS3PutObject, { provider_id: '1', bucket_name: 'b', object_key: 'k'.repeat(1025), body: 'x' })).toThrow(/object_key/);
    expect(() => validateParams(awsS3GetObject, { provider_id: '1', bucket_name: 'b', object_key: 'k' })).toThrow(/variable_name/);
    expect(() => validateParams(awsS3GetObject, { provider_id: '1', bucket_name: 'b', object_key: '', variable_name: 'v' })).toThrow(/object_key/);
  });

  it('checks a field holding a variable only at run time', async () => {
    const r = await run(awsS3PutObject, { provider_id: '7', region: '', bucket_name: '$b$', object_key: 'k', body: 'x', canned_acl: '$acl$' }, { b: 'photos', acl: 'world' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/canned_acl/);
  });
});

describe('the aws provider', () => {
  it('takes a key pair, an optional session token, and normalises endpoints', () => {
    expect(awsProvider.credentials.parse({ access_key_id: ' AKID ', secret_access_key: 's' })).toEqual({ access_key_id: 'AKID', secret_access_key: 's', session_token: undefined });
    expect(() => awsProvider.credentials.parse({ access_key_id: 'AKID' })).toThrow(/secret_access_key/);
    expect(awsProvider.settings!.parse({ endpoint: 'storage.googleapis.com', cloudfront_endpoint: '', path_style: 'false' })).toEqual({
      endpoint: 'https://storage.googleapis.com',
      cloudfront_endpoint: undefined,
      path_style: false,
    });
    expect(awsProvider.settings!.parse({ endpoint: 'http://127.0.0.1:9000/' })).toMatchObject({ endpoint: 'http://127.0.0.1:9000' });
    expect(() => awsProvider.settings!.parse({ endpoint: 'ftp://x.test' })).toThrow(/http or https/);
    expect(() => awsProvider.settings!.parse({ endpoint: 'https://x.test/?a=1' })).toThrow(/base URL/);
    expect(() => awsProvider.settings!.parse({ region: 'eu-west-1' })).toThrow();
  });
});

describe('the S3 stand-in', () => {
  const example = {
    method: 'GET',
    rawUrl: '/test.txt',
    body: Buffer.alloc(0),
    headers: {
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'x-amz-date': '20130524T000000Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    },
  };
  const keys = new Map([['AKIAIOSFODNN7EXAMPLE', { secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' }]]);

  it('verifies the documented GET Object example and rejects it once a signed header changes', () => {
    expect(verifySignature(example, keys)).toEqual({ accessKeyId: 'AKIAIOSFODNN7EXAMPLE', region: 'us-east-1', service: 's3' });
    expect(() => verifySignature({ ...example, headers: { ...example.headers, range: 'bytes=0-10' } }, keys)).toThrow(/signature we calculated does not match/);
    expect(() => verifySignature({ ...example, body: Buffer.from('x') }, keys)).toThrow(/x-amz-content-sha256/);
  });
});
