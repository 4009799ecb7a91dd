// `aws_cf_invalidate`: CloudFront CreateInvalidation (POST /2020-05-31/distribution/{id}/invalidation),
// signed for service `cloudfront` in us-east-1 (CloudFront's only signing region).
import { randomUUID } from 'node:crypto';
import { defineAction, providerId, z } from '@capture/sdk';
import { awsRequest, xmlEscape, xmlText } from './client.js';
import { awsAccount } from './provider.js';

/** CloudFront's limit of paths in one invalidation. */
export const MAX_PATHS = 3000;

/** `/a, /b` or one per line -> `['/a', '/b']`: trimmed, a leading `/` added, duplicates dropped. */
export function parsePaths(text: string): string[] {
  const paths = text
    .split(/\r?\n|,/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (p.startsWith('/') ? p : `/${p}`));
  return [...new Set(paths)];
}

export const awsCfInvalidate = defineAction({
  type: 'aws_cf_invalidate',
  title: 'AWS CloudFront: Create Invalidation',
  category: 'aws',
  description: 'Creates a CloudFront cache invalidation for a distribution. Paths are one per line or separated by commas (e.g. /index.html, /images/*); both fields may hold variables.',
  parameters: z.object({
    provider_id: providerId(),
    distribution_id: z
      .string()
      .trim()
      .min(1, 'is required')
      .regex(/^[A-Za-z0-9]+$/, 'must be a CloudFront distribution ID such as EDFDVBD6EXAMPLE'),
    paths: z
      .string()
      .refine((p) => parsePaths(p).length > 0, 'must name at least one path')
      .describe('One per line or separated by commas, e.g. /index.html, /images/*'),
  }),
  async execute(ctx, params) {
    const paths = parsePaths(params.paths);
    if (paths.length > MAX_PATHS) throw new Error(`At most ${MAX_PATHS} paths per invalidation (got ${paths.length})`);
    const account = await awsAccount(ctx, params.provider_id);
    const url = new URL(account.cloudfrontEndpoint.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/2020-05-31/distribution/${encodeURIComponent(params.distribution_id)}/invalidation`;
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>' +
      '<InvalidationBatch xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">' +
      `<Paths><Quantity>${paths.length}</Quantity><Items>${paths.map((p) => `<Path>${xmlEscape(p)}</Path>`).join('')}</Items></Paths>` +
      `<CallerReference>capture-${randomUUID()}</CallerReference>` +
      '</InvalidationBatch>';
    const res = await awsRequest(ctx, account, {
      what: 'CloudFront CreateInvalidation',
      service: 'cloudfront',
      region: 'us-east-1',
      method: 'POST',
      url,
      headers: { 'content-type': 'application/xml' },
      body,
    });
    const xml = res.body.toString('utf8');
    const id = xmlText(xml, 'Id') ?? res.headers.location?.split('/').pop() ?? '(no id returned)';
    const status = xmlText(xml, 'Status');
    const shown = paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')}...`;
    ctx.log(`Invalidation ${id} created for distribution ${params.distribution_id}${status ? ` (${status})` : ''}: ${paths.length} path${paths.length === 1 ? '' : 's'} ${shown}`);
  },
});
