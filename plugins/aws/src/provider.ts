// The `aws` provider: an access key pair (optionally with a session token) and where to send the
// requests: AWS itself, or a custom S3-compatible endpoint (Google Cloud Storage, MinIO,
// DigitalOcean Spaces, Wasabi...), which is addressed path-style unless told otherwise.
import { type ActionContext, boolean, defineProvider, optionalText, z } from '@capture/sdk';
import type { AwsCredentials } from './sigv4.js';

export const DEFAULT_CLOUDFRONT_ENDPOINT = 'https://cloudfront.amazonaws.com';

/** An http(s) base URL; a bare host name gets https://. Kept without a trailing slash. */
function endpoint(example: string) {
  return optionalText().transform((value, ctx) => {
    const text = value?.trim();
    if (!text) return undefined;
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be a URL such as ${example}` });
      return z.NEVER;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
      return z.NEVER;
    }
    if (url.search || url.hash || url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must be a base URL, without query, fragment or user name' });
      return z.NEVER;
    }
    return url.origin + url.pathname.replace(/\/+$/, '');
  });
}

export const awsCredentials = z.object({
  access_key_id: z.string().trim().min(1, 'is required'),
  secret_access_key: z.string().min(1, 'is required'),
  /** For temporary credentials (STS). */
  session_token: optionalText(),
});

export const awsSettings = z
  .object({
    /** A custom S3-compatible endpoint, e.g. https://storage.googleapis.com or a MinIO URL. */
    endpoint: endpoint('https://storage.googleapis.com'),
    cloudfront_endpoint: endpoint(DEFAULT_CLOUDFRONT_ENDPOINT),
    /** Bucket in the path (https://host/bucket/key) rather than the host name. Default: true with a custom endpoint. */
    path_style: boolean()
      .nullish()
      .transform((v) => v ?? undefined),
  })
  .strict();

export const awsProvider = defineProvider({
  type: 'aws',
  title: 'Amazon Web Services',
  description:
    'An AWS access key (IAM key and secret, plus a session token for temporary credentials) for the S3 and CloudFront actions. ' +
    'Set a custom endpoint for S3-compatible storage such as Google Cloud Storage (https://storage.googleapis.com), MinIO, DigitalOcean Spaces or Wasabi.',
  credentials: awsCredentials,
  settings: awsSettings,
});

/** What the actions need of an `aws` provider. */
export interface AwsAccount {
  id: string;
  credentials: AwsCredentials;
  /** The custom S3 endpoint; none means AWS (s3.<region>.amazonaws.com). */
  endpoint?: URL;
  cloudfrontEndpoint: URL;
  pathStyle: boolean;
}

function issues(error: z.ZodError, field: string): string {
  return error.issues.map((i) => `${[field, ...i.path].join('.')} ${i.message}`).join('; ');
}

/** The account behind `provider_id` (an `aws` provider of the chain's account). */
export async function awsAccount(ctx: Pick<ActionContext, 'services'>, providerId: string): Promise<AwsAccount> {
  const provider = await ctx.services.providers.get(providerId, 'aws');
  const credentials = awsCredentials.safeParse(provider.credentials ?? {});
  if (!credentials.success) throw new Error(`AWS provider ${providerId} is incomplete: ${issues(credentials.error, 'credentials')}`);
  const settings = awsSettings.safeParse(provider.settings ?? {});
  if (!settings.success) throw new Error(`AWS provider ${providerId} has bad settings: ${issues(settings.error, 'settings')}`);
  const { endpoint: custom, cloudfront_endpoint, path_style } = settings.data;
  return {
    id: provider.id,
    credentials: {
      accessKeyId: credentials.data.access_key_id,
      secretAccessKey: credentials.data.secret_access_key,
      sessionToken: credentials.data.session_token || undefined,
    },
    endpoint: custom ? new URL(custom) : undefined,
    cloudfrontEndpoint: new URL(cloudfront_endpoint ?? DEFAULT_CLOUDFRONT_ENDPOINT),
    pathStyle: path_style ?? !!custom,
  };
}
