// A local stand-in for S3 (path-style REST: PUT bucket, PUT/GET/DELETE object) and CloudFront
// (CreateInvalidation) that verifies the SigV4 signature of every request the way AWS does,
// recomputed here from the request as received, independently of src/sigv4.ts. Objects live in
// memory.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeKey {
  secret: string;
  sessionToken?: string;
}

export interface StoredObject {
  body: Buffer;
  contentType?: string;
  acl?: string;
}

export interface FakeBucket {
  region?: string;
  acl?: string;
  objects: Map<string, StoredObject>;
}

export interface Invalidation {
  id: string;
  distribution: string;
  paths: string[];
  callerReference: string;
  xml: string;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Null when the signature checked out; the error code otherwise. */
  rejected: string | null;
}

export interface FakeAws {
  url: string;
  keys: Map<string, FakeKey>;
  buckets: Map<string, FakeBucket>;
  distributions: Set<string>;
  invalidations: Invalidation[];
  requests: SeenRequest[];
  close(): Promise<void>;
}

const ACLS = ['private', 'public-read', 'public-read-write', 'authenticated-read'];
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const dec = (s: string) => decodeURIComponent(s);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

class AwsFault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface SignedRequest {
  method: string;
  /** Path and query as sent. */
  rawUrl: string;
  /** Lower-case names; `host` included. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * Checks an AWS4-HMAC-SHA256 Authorization header against the keys; returns the credential scope,
 * throws an AwsFault as AWS would answer.
 */
export function verifySignature(req: SignedRequest, keys: Map<string, FakeKey>): { accessKeyId: string; region: string; service: string } {
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(',') : v;
  };
  const auth = header('authorization');
  if (!auth) throw new AwsFault(403, 'AccessDenied', 'Anonymous access is not allowed');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) throw new AwsFault(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
  const [, accessKeyId, day, region, service, signedHeaders, signature] = m as unknown as string[];
  const key = keys.get(accessKeyId!);
  if (!key) throw new AwsFault(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  const amzDate = header('x-amz-date') ?? '';
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(day!)) throw new AwsFault(400, 'AuthorizationHeaderMalformed', 'x-amz-date is missing or does not match the credential scope');
  const signed = signedHeaders!.split(';');
  for (const required of ['host', 'x-amz-date', ...(service === 's3' ? ['x-amz-content-sha256'] : [])]) {
    if (!signed.includes(required)) throw new AwsFault(400, 'AuthorizationHeaderMalformed', `${required} must be signed`);
  }
  if (key.sessionToken !== undefined && (header('x-amz-security-token') !== key.sessionToken || !signed.includes('x-amz-security-token'))) {
    throw new AwsFault(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
  }
  let payloadHash = sha256(req.body);
  if (service === 's3') {
    const declared = header('x-amz-content-sha256') ?? '';
    if (declared !== 'UNSIGNED-PAYLOAD' && declared !== payloadHash) throw new AwsFault(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    payloadHash = declared;
  }
  const q = req.rawUrl.indexOf('?');
  const path = q < 0 ? req.rawUrl : req.rawUrl.slice(0, q);
  const query = q < 0 ? '' : req.rawUrl.slice(q + 1);
  let uri = path
    .split('/')
    .map((s) => enc(dec(s)))
    .join('/');
  if (service !== 's3') uri = uri.split('/').map(enc).join('/');
  const canonicalQuery = query
    .split('&')
    .filter(Boolean)
    .map((p) =>
      (p.includes('=') ? p : `${p}=`)
        .split('=')
        .map((x) => enc(dec(x)))
        .slice(0, 2)
        .join('='),
    )
    .sort()
    .join('&');
  const canonicalHeaders = signed.map((n) => `${n}:${(header(n) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, uri || '/', canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, `${day}/${region}/${service}/aws4_request`, sha256(canonicalRequest)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${key.secret}`, day!), region!), service!), 'aws4_request');
  const expected = createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  if (expected !== signature) {
    throw new AwsFault(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', {
      StringToSign: stringToSign,
      CanonicalRequest: canonicalRequest,
    });
  }
  return { accessKeyId: accessKeyId!, region: region!, service: service! };
}

const requestId = () => randomBytes(8).toString('hex').toUpperCase();

function s3Error(fault: AwsFault): string {
  const extra = Object.entries(fault.extra)
    .map(([k, v]) => `<${k}>${esc(v)}</${k}>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${fault.code}</Code><Message>${esc(fault.message)}</Message>${extra}<RequestId>${requestId()}</RequestId></Error>`;
}

function cloudFrontError(fault: AwsFault): string {
  return `<?xml version="1.0"?>\n<ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>${fault.code}</Code><Message>${esc(fault.message)}</Message></Error><RequestId>${requestId()}</RequestId></ErrorResponse>`;
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

export async function startFakeAws(opts: { keys: Record<string, FakeKey>; distributions?: string[] }): Promise<FakeAws> {
  const keys = new Map(Object.entries(opts.keys));
  const buckets = new Map<string, FakeBucket>();
  const distributions = new Set(opts.distributions ?? []);
  const invalidations: Invalidation[] = [];
  const requests: SeenRequest[] = [];

  function s3(method: string, rawUrl: string, headers: http.IncomingHttpHeaders, body: Buffer, res: http.ServerResponse) {
    const path = rawUrl.split('?')[0]!;
    const slash = path.indexOf('/', 1);
    const bucketName = dec(slash < 0 ? path.slice(1) : path.slice(1, slash));
    const key = slash < 0 ? undefined : dec(path.slice(slash + 1));
    const acl = headers['x-amz-acl'] as string | undefined;
    if (acl !== undefined && !ACLS.includes(acl)) throw new AwsFault(400, 'InvalidArgument', `Invalid canned ACL ${acl}`);
    if (!bucketName) throw new AwsFault(405, 'MethodNotAllowed', 'Listing buckets is not supported here');
    const bucket = buckets.get(bucketName);
    if (key === undefined || key === '') {
      if (method !== 'PUT') throw new AwsFault(405, 'MethodNotAllowed', `${method} on a bucket is not supported here`);
      if (bucket) throw new AwsFault(409, 'BucketAlreadyOwnedByYou', 'Your previous request to create the named bucket succeeded and you already own it.', { BucketName: bucketName });
      const text = body.toString('utf8');
      if (text && !text.includes('<CreateBucketConfiguration')) throw new AwsFault(400, 'MalformedXML', 'The XML you provided was not well-formed');
      buckets.set(bucketName, { region: text ? tag(text, 'LocationConstraint') : undefined, acl, objects: new Map() });
      res.writeHead(200, { Location: `/${bucketName}` }).end();
      return;
    }
    if (!bucket) throw new AwsFault(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucketName });
    if (method === 'PUT') {
      bucket.objects.set(key, { body, contentType: headers['content-type'], acl });
      res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
    } else if (method === 'GET') {
      const obj = bucket.objects.get(key);
      if (!obj) throw new AwsFault(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
      res.writeHead(200, { 'Content-Type': obj.contentType ?? 'binary/octet-stream', 'Content-Length': String(obj.body.length) }).end(obj.body);
    } else if (method === 'DELETE') {
      bucket.objects.delete(key);
      res.writeHead(204).end();
    } else throw new AwsFault(405, 'MethodNotAllowed', `${method} is not supported here`);
  }

  function cloudFront(method: string, distribution: string, headers: http.IncomingHttpHeaders, body: Buffer, res: http.ServerResponse) {
    if (method !== 'POST') throw new AwsFault(405, 'MethodNotAllowed', 'Only CreateInvalidation is supported here');
    if (!String(headers['content-type'] ?? '').includes('xml')) throw new AwsFault(400, 'InvalidArgument', 'Expected an XML body');
    const xml = body.toString('utf8');
    if (!xml.includes('<InvalidationBatch xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">')) throw new AwsFault(400, 'MalformedInput', 'Expected an InvalidationBatch of 2020-05-31');
    const paths = [...xml.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    const quantity = Number(tag(xml, 'Quantity'));
    if (!paths.length || quantity !== paths.length) throw new AwsFault(400, 'InconsistentQuantities', 'The value of Quantity and the size of Items do not match.');
    if (paths.some((p) => !p.startsWith('/'))) throw new AwsFault(400, 'InvalidArgument', 'Paths must start with /');
    const callerReference = tag(xml, 'CallerReference');
    if (!callerReference) throw new AwsFault(400, 'InvalidArgument', 'CallerReference is required');
    if (!distributions.has(distribution)) throw new AwsFault(404, 'NoSuchDistribution', 'The specified distribution does not exist.');
    if (invalidations.some((i) => i.distribution === distribution && i.callerReference === callerReference)) throw new AwsFault(409, 'InvalidationBatchAlreadyExists', 'CallerReference reused');
    const id = `I${randomBytes(6).toString('hex').toUpperCase()}`;
    invalidations.push({ id, distribution, paths, callerReference, xml });
    res
      .writeHead(201, { 'Content-Type': 'text/xml', Location: `https://cloudfront.amazonaws.com/2020-05-31/distribution/${distribution}/invalidation/${id}` })
      .end(
        `<?xml version="1.0"?>\n<Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${id}</Id><Status>InProgress</Status><CreateTime>2024-01-02T03:04:05Z</CreateTime>${xml.replace(/^<\?xml[^>]*>/, '').replace(/ xmlns="[^"]*"/, '')}</Invalidation>`,
      );
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = req.method ?? 'GET';
      const rawUrl = req.url ?? '/';
      const seen: SeenRequest = { method, url: rawUrl, headers: req.headers, body, rejected: null };
      requests.push(seen);
      const cf = /^\/2020-05-31\/distribution\/([^/?]+)\/invalidation(?:\?|$)/.exec(rawUrl);
      try {
        const scope = verifySignature({ method, rawUrl, headers: req.headers, body }, keys);
        const service = cf ? 'cloudfront' : 's3';
        if (scope.service !== service || (cf && scope.region !== 'us-east-1')) throw new AwsFault(403, 'SignatureDoesNotMatch', `Credential should be scoped to ${service}${cf ? ' in us-east-1' : ''}`);
        if (cf) cloudFront(method, dec(cf[1]!), req.headers, body, res);
        else s3(method, rawUrl, req.headers, body, res);
      } catch (err) {
        const fault = err instanceof AwsFault ? err : new AwsFault(500, 'InternalError', String(err));
        seen.rejected = fault.code;
        res.writeHead(fault.status, { 'Content-Type': cf ? 'text/xml' : 'application/xml' }).end(cf ? cloudFrontError(fault) : s3Error(fault));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    keys,
    buckets,
    distributions,
    invalidations,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
