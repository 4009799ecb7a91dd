// S3 addressing and the parameters the S3 actions share. AWS buckets are addressed
// virtual-hosted style (https://bucket.s3.region.amazonaws.com/key); custom endpoints, and bucket
// names that cannot be a host name label, path style (https://endpoint/bucket/key).
import { type ActionContext, type HttpResponse, optionalText, z } from '@capture/sdk';
import { awsRequest } from './client.js';
import type { AwsAccount } from './provider.js';
import { uriEncode } from './sigv4.js';

/** Region used for signing when none is given (what S3-compatible stores expect). */
export const DEFAULT_REGION = 'us-east-1';
export const CANNED_ACLS = ['private', 'public-read', 'public-read-write', 'authenticated-read'] as const;

/** Blank for S3-compatible stores that have none (Google Cloud Storage). */
export const region = () =>
  optionalText()
    .transform((v) => v?.trim() || undefined)
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a region name such as eu-west-1')
        .transform((v) => v.toLowerCase())
        .optional(),
    )
    .describe('e.g. eu-west-1; blank for S3-compatible stores without regions (signed as us-east-1)');

export const bucketName = () =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(255)
    .regex(/^(?!\.+$)[^/\\\s?#]+$/, 'must be a bucket name (no "/", "?", "#" or spaces)');

export const objectKey = () =>
  z
    .string()
    .min(1, 'is required')
    .refine((k) => Buffer.byteLength(k) <= 1024, 'must be at most 1024 bytes')
    .refine((k) => !k.split('/').some((s) => s === '.' || s === '..'), 'cannot contain "." or ".." path segments');

export const cannedAcl = () =>
  z
    .union([z.enum(CANNED_ACLS), z.literal('')])
    .nullish()
    .transform((v) => v || undefined)
    .describe('Sent as x-amz-acl');

/** A label of a host name, without dots (a dotted name breaks the wildcard TLS certificate). */
const HOST_LABEL = /^[a-z0-9]([a-z0-9-]{1,61})[a-z0-9]$/;

/** The URL of a bucket (no key) or of an object. */
export function s3Url(account: AwsAccount, regionName: string | undefined, bucket: string, key?: string): URL {
  let base: URL;
  if (account.endpoint) base = new URL(account.endpoint.href);
  else {
    const domain = regionName?.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
    base = new URL(`https://${regionName ? `s3.${regionName}` : 's3'}.${domain}`);
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  const keyPath = key === undefined ? '' : key.split('/').map(uriEncode).join('/');
  if (!account.pathStyle && HOST_LABEL.test(bucket)) {
    base.hostname = `${bucket}.${base.hostname}`;
    base.pathname = `${prefix}/${keyPath}`;
  } else {
    base.pathname = `${prefix}/${uriEncode(bucket)}${key === undefined ? '' : `/${keyPath}`}`;
  }
  return base;
}

export interface S3Call {
  /** The S3 operation name, for messages (PutObject). */
  operation: string;
  method: 'GET' | 'PUT' | 'DELETE';
  region?: string;
  bucket: string;
  key?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  maxBodyBytes?: number;
}

export function s3Request(ctx: Pick<ActionContext, 'services' | 'signal'>, account: AwsAccount, call: S3Call): Promise<HttpResponse> {
  return awsRequest(ctx, account, {
    what: `S3 ${call.operation}`,
    service: 's3',
    region: call.region ?? DEFAULT_REGION,
    method: call.method,
    url: s3Url(account, call.region, call.bucket, call.key),
    headers: call.headers,
    body: call.body,
    maxBodyBytes: call.maxBodyBytes,
  });
}

/** `s3://bucket/key` for messages. */
export const s3Name = (bucket: string, key?: string) => `s3://${bucket}${key === undefined ? '' : `/${key}`}`;
