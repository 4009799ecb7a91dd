// aws_cf_invalidate against a local CloudFront stand-in that verifies the signature (service
// cloudfront, us-east-1) and checks the InvalidationBatch XML.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchHttpClient, memoryProviders, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import type { Providers } from '@capture/sdk';
import { awsCfInvalidate, parsePaths } from '../src/cf-invalidate.js';
import { startFakeAws, verifySignature, type FakeAws } from './fake-aws.js';

const KEY = 'AKIDCLOUDFRONTTEST01';
const SECRET = 'cloudfront-secret';
let fake: FakeAws;
let providers: Providers;

beforeAll(async () => {
  fake = await startFakeAws({ keys: { [KEY]: { secret: SECRET } }, distributions: ['EDFDVBD6EXAMPLE'] });
  providers = memoryProviders([
    { id: '5', type: 'aws', credentials: { access_key_id: KEY, secret_access_key: SECRET }, settings: { cloudfront_endpoint: fake.url } },
    { id: '6', type: 'aws', credentials: { access_key_id: KEY, secret_access_key: 'wrong' }, settings: { cloudfront_endpoint: fake.url } },
  ]);
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.invalidations.length = 0;
  fake.requests.length = 0;
});

const run = (params: Record<string, unknown>, vars?: Record<string, string>) => runAction(awsCfInvalidate, params, { services: { http: fetchHttpClient, providers }, vars });

describe('aws_cf_invalidate', () => {
  it('creates an invalidation of the paths, one per line or comma-separated, and logs its id', async () => {
    const r = await run({ provider_id: 5, distribution_id: 'EDFDVBD6EXAMPLE', paths: '/index.html\n/images/*, about/us.html\r\n\n/a&b.html' });
    expect(r.errors).toEqual([]);
    expect(fake.invalidations).toHaveLength(1);
    const inv = fake.invalidations[0]!;
    expect(inv).toMatchObject({ distribution: 'EDFDVBD6EXAMPLE', paths: ['/index.html', '/images/*', '/about/us.html', '/a&b.html'] });
    expect(inv.callerReference).toMatch(/^capture-[0-9a-f-]{36}$/);
    expect(inv.xml).toContain('<Paths><Quantity>4</Quantity><Items><Path>/index.html</Path><Path>/images/*</Path><Path>/about/us.html</Path><Path>/a&amp;b.html</Path></Items></Paths>');
    expect(r.output).toEqual([`Invalidation ${inv.id} created for distribution EDFDVBD6EXAMPLE (InProgress): 4 paths /index.html, /images/*, /about/us.html, /a&b.html`]);
    const [req] = fake.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/2020-05-31/distribution/EDFDVBD6EXAMPLE/invalidation', rejected: null });
    expect(req!.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEY}/\\d{8}/us-east-1/cloudfront/aws4_request, SignedHeaders=content-type;host;x-amz-date, `));
  });

  it('takes the distribution and paths from variables, with a fresh caller reference each run', async () => {
    const vars = { dist: 'EDFDVBD6EXAMPLE', page: 'blog/post-1' };
    await run({ provider_id: '5', distribution_id: '$dist$', paths: '/$page$' }, vars);
    await run({ provider_id: '5', distribution_id: '$dist$', paths: '/$page$' }, vars);
    expect(fake.invalidations.map((i) => i.paths)).toEqual([['/blog/post-1'], ['/blog/post-1']]);
    expect(fake.invalidations[0]!.callerReference).not.toBe(fake.invalidations[1]!.callerReference);
  });

  it('reports CloudFront errors: an unknown distribution, a wrong secret', async () => {
    const unknown = await run({ provider_id: '5', distribution_id: 'E000NOTHERE', paths: '/*' });
    expect(unknown.errors).toEqual(['CloudFront CreateInvalidation failed: NoSuchDistribution: The specified distribution does not exist. (HTTP 404)']);
    const wrong = await run({ provider_id: '6', distribution_id: 'EDFDVBD6EXAMPLE', paths: '/*' });
    expect(wrong.errors[0]).toMatch(/^CloudFront CreateInvalidation failed: SignatureDoesNotMatch: .* \(HTTP 403\); check the secret access key of the AWS provider$/);
    expect(fake.invalidations).toHaveLength(0);
  });

  it('goes to cloudfront.amazonaws.com by default', async () => {
    const http = stubHttp(() => ({ status: 201, body: '<Invalidation><Id>I2J0I21PCUYOIK</Id><Status>InProgress</Status></Invalidation>' }));
    const aws = memoryProviders([{ id: '1', type: 'aws', credentials: { access_key_id: KEY, secret_access_key: SECRET } }]);
    const r = await runAction(awsCfInvalidate, { provider_id: '1', distribution_id: 'EDFDVBD6EXAMPLE', paths: '/*' }, { services: { http, providers: aws } });
    expect(r.output).toEqual(['Invalidation I2J0I21PCUYOIK created for distribution EDFDVBD6EXAMPLE (InProgress): 1 path /*']);
    const req = http.sent[0]!;
    expect(req.url).toBe('https://cloudfront.amazonaws.com/2020-05-31/distribution/EDFDVBD6EXAMPLE/invalidation');
    const headers = Object.fromEntries(Object.entries(req.headers!).map(([k, v]) => [k.toLowerCase(), v]));
    expect(headers).not.toHaveProperty('x-amz-content-sha256');
    const scope = verifySignature({ method: 'POST', rawUrl: new URL(req.url).pathname, headers: { ...headers, host: 'cloudfront.amazonaws.com' }, body: Buffer.from(req.body!) }, new Map([[KEY, { secret: SECRET }]]));
    expect(scope).toMatchObject({ service: 'cloudfront', region: 'us-east-1' });
  });

  it('splits paths on new lines and commas, adds the leading slash and drops duplicates', () => {
    expect(parsePaths(' /a ,b\n\n/c\r\n/a,')).toEqual(['/a', '/b', '/c']);
  });

  it('refuses more than 3000 paths', async () => {
    const r = await run({ provider_id: '5', distribution_id: 'EDFDVBD6EXAMPLE', paths: Array.from({ length: 3001 }, (_, i) => `/p${i}`).join('\n') });
    expect(r.errors).toEqual(['At most 3000 paths per invalidation (got 3001)']);
    expect(fake.requests).toHaveLength(0);
  });

  it('validates its parameters', () => {
    expect(() => validateParams(awsCfInvalidate, { provider_id: 1, distribution_id: 'E1', paths: '/*' })).not.toThrow();
    expect(() => validateParams(awsCfInvalidate, { distribution_id: 'E1', paths: '/*' })).toThrow(/provider_id/);
    expect(() => validateParams(awsCfInvalidate, { provider_id: 1, paths: '/*' })).toThrow(/distribution_id/);
    expect(() => validateParams(awsCfInvalidate, { provider_id: 1, distribution_id: 'E1/../x', paths: '/*' })).toThrow(/distribution_id/);
    expect(() => validateParams(awsCfInvalidate, { provider_id: 1, distribution_id: 'E1', paths: ' , \n' })).toThrow(/paths/);
    expect(() => validateParams(awsCfInvalidate, { provider_id: 1, distribution_id: 'E1' })).toThrow(/paths/);
  });
});
