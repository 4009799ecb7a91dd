// The AWS actions in a running server: an `aws` provider created through the Providers API (its
// secret never shown back), a chain that stores the capture in an S3-compatible store, reads it
// back into a variable that becomes the response, and invalidates a CloudFront path; the local
// stand-in checks every request's signature with the secret given to the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { startFakeAws, type FakeAws } from './fake-aws.js';

const KEY = 'AKIDE2ETESTKEY000001';
const SECRET = 'e2e-secret-never-shown-0123456789';

let s: TestServer;
let fake: FakeAws;

beforeAll(async () => {
  fake = await startFakeAws({ keys: { [KEY]: { secret: SECRET } }, distributions: ['E2E2E2E2E2E2E2'] });
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
  await fake?.close();
});

describe('aws actions', () => {
  it('store a capture in S3, read it back into the response and invalidate CloudFront, with a provider from the API', async () => {
    const user = await s.user(true);
    const created = await s.call('POST', '/providers', {
      key: user.key,
      json: { type: 'aws', name: 'Local store', credentials: { access_key_id: KEY, secret_access_key: SECRET }, settings: { endpoint: `${fake.url}/`, cloudfront_endpoint: fake.url } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.data).toMatchObject({ type: 'aws', name: 'Local store', settings: { endpoint: fake.url, cloudfront_endpoint: fake.url }, credential_fields: ['access_key_id', 'secret_access_key'] });
    expect(created.text).not.toContain(SECRET);
    const providerId = created.data.id;

    const t = await s.token({ actions: true }, user.key);
    const add = async (type: string, parameters: Record<string, unknown>) => {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { key: user.key, json: { type, parameters } });
      expect(r.status, r.text).toBe(200);
    };
    // Parameters are checked on creation.
    const bad = await s.call('POST', `/token/${t.uuid}/actions`, {
      key: user.key,
      json: { type: 'aws_s3_put_object', parameters: { provider_id: providerId, bucket_name: 'b', object_key: 'k', body: 'x', canned_acl: 'everyone' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('canned_acl');

    await add('aws_s3_create_bucket', { provider_id: providerId, region: '', bucket_name: 'captures' });
    await add('aws_s3_put_object', { provider_id: providerId, region: '', bucket_name: 'captures', object_key: 'hooks/$request.query.name$.json', body: '$request.content$', canned_acl: 'private' });
    await add('aws_s3_get_object', { provider_id: providerId, region: '', bucket_name: 'captures', object_key: 'hooks/$request.query.name$.json', variable_name: 'stored' });
    await add('modify_response', { content: 'stored: $stored$' });
    await add('aws_cf_invalidate', { provider_id: providerId, distribution_id: 'E2E2E2E2E2E2E2', paths: '/hooks/$request.query.name$.json' });

    const payload = JSON.stringify({ order: 42, note: 'ünïcödé ✓' });
    const hook = await s.call('POST', `/${t.uuid}?name=first`, { body: payload, headers: { 'Content-Type': 'application/json' } });
    expect(hook.status).toBe(200);
    expect(hook.text).toBe(`stored: ${payload}`);

    expect(fake.requests.map((r) => [r.method, r.url, r.rejected])).toEqual([
      ['PUT', '/captures', null],
      ['PUT', '/captures/hooks/first.json', null],
      ['GET', '/captures/hooks/first.json', null],
      ['POST', '/2020-05-31/distribution/E2E2E2E2E2E2E2/invalidation', null],
    ]);
    expect(fake.buckets.get('captures')!.objects.get('hooks/first.json')).toMatchObject({ body: Buffer.from(payload), acl: 'private' });
    expect(fake.invalidations).toMatchObject([{ distribution: 'E2E2E2E2E2E2E2', paths: ['/hooks/first.json'] }]);

    const list = await s.call('GET', `/token/${t.uuid}/requests`, { key: user.key });
    const [req] = list.data.data;
    expect(req.custom_action_errors).toEqual([]);
    expect(req.custom_action_output).toEqual([
      '[1 aws_s3_create_bucket] Bucket s3://captures created',
      expect.stringMatching(/^\[2 aws_s3_put_object\] Object s3:\/\/captures\/hooks\/first\.json uploaded \(\d+ bytes, ETag "[0-9a-f]{32}", ACL private\)$/),
      expect.stringMatching(/^\[3 aws_s3_get_object\] Object s3:\/\/captures\/hooks\/first\.json read into \$stored\$ \(\d+ bytes, binary\/octet-stream\)$/),
      expect.any(String),
      `[5 aws_cf_invalidate] Invalidation ${fake.invalidations[0]!.id} created for distribution E2E2E2E2E2E2E2 (InProgress): 1 path /hooks/first.json`,
    ]);
    expect(list.text).not.toContain(SECRET);
  });

  it('store a binary capture in S3 and answer with the exact bytes read back', async () => {
    const user = await s.user(true);
    const created = await s.call('POST', '/providers', {
      key: user.key,
      json: { type: 'aws', name: 'Binary store', credentials: { access_key_id: KEY, secret_access_key: SECRET }, settings: { endpoint: fake.url } },
    });
    expect(created.status, created.text).toBe(201);
    const login = { provider_id: created.data.id, region: '' };
    const t = await s.token({ actions: true }, user.key);
    for (const [type, parameters] of [
      ['aws_s3_create_bucket', { ...login, bucket_name: 'binary' }],
      ['aws_s3_put_object', { ...login, bucket_name: 'binary', object_key: 'in.bin', body: '$request.content$' }],
      ['aws_s3_get_object', { ...login, bucket_name: 'binary', object_key: 'in.bin', variable_name: 'back' }],
      ['modify_response', { content: '$back$', headers: 'Content-Type: application/octet-stream' }],
    ] as const) {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { key: user.key, json: { type, parameters } });
      expect(r.status, r.text).toBe(200);
    }
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const hook = await s.call('POST', `/${t.uuid}`, { body: allBytes, headers: { 'Content-Type': 'application/octet-stream' } });
    expect(hook.status).toBe(200);
    expect(fake.buckets.get('binary')!.objects.get('in.bin')!.body.equals(allBytes)).toBe(true);
    expect(hook.buf.equals(allBytes)).toBe(true);
  });
});
