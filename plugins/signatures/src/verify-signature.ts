// The `verify_signature` action: checks a webhook's signature by a sender's documented scheme (or
// a generic HMAC) against the exact bytes received, sets `$signature.valid$` and
// `$signature.reason$`, and with `reject` answers 401 and does not store a request that fails.
import { type ActionContext, boolean, choice, defineAction, integer, optionalText, secret, z } from '@capture/sdk';
import { webhookSecretProvider } from './provider.js';
import * as schemes from './schemes.js';

const PRESETS = ['github', 'stripe', 'slack', 'shopify', 'standard_webhooks', 'twilio', 'generic'] as const;

const optionalId = () =>
  z
    .union([z.string(), z.number().int()])
    .nullish()
    .transform((v) => (v === null || v === undefined || String(v).trim() === '' ? undefined : String(v).trim()));

/** The placeholder in `signed` that stands for the body bytes as received. */
const BODY = '$request.content$';

const parameters = z
  .object({
    preset: z.enum(PRESETS).describe('The sender: github, stripe, slack, shopify, standard_webhooks (Svix), twilio, or generic'),
    secret: secret(optionalText()).describe('The signing secret (Twilio: the auth token), e.g. $global.github_secret$. Not needed with provider_id'),
    provider_id: optionalId().describe('A webhook_secret provider holding the secret, instead of secret'),
    reject: boolean().default(false).describe('Answer 401 with a JSON error, stop the actions and do not store the request when the signature is not valid'),
    tolerance: integer({ min: 0, max: 31_536_000 }).default(300).describe('Seconds a signed timestamp may differ from now (stripe, slack, standard_webhooks, generic with timestamp_header); 0 = not checked'),
    url: optionalText().describe('twilio: the URL Twilio posts to, as configured there; default the request URL'),
    algorithm: choice(['sha1', 'sha256', 'sha512'] as const, { default: 'sha256' }).describe('generic: sha1, sha256 or sha512 (default)'),
    header: optionalText().describe('generic: the header holding the signature'),
    encoding: choice(['hex', 'base64'] as const, { default: 'hex' }).describe('generic: hex (default) or base64'),
    prefix: optionalText().describe('generic: text before the signature in the header, e.g. sha256='),
    signed: optionalText().describe('generic: what is signed, default the body; a template such as $request.header.x-timestamp$.$request.content$ ($request.content$ is the body bytes as received)'),
    timestamp_header: optionalText().describe('generic: a header with the signing time in seconds, checked against tolerance'),
  })
  .superRefine((p, ctx) => {
    // An empty secret (an empty global variable) passes here and fails the check at run time, so
    // that `reject` still answers 401 rather than the step erroring and the request going through.
    if (p.secret === undefined && !p.provider_id) ctx.addIssue({ code: 'custom', path: ['secret'], message: 'is required (or give provider_id)' });
    if (p.preset === 'generic' && !p.header) ctx.addIssue({ code: 'custom', path: ['header'], message: 'is required with preset generic' });
  });

type Params = z.output<typeof parameters>;

async function signingSecret(ctx: ActionContext<Params>, p: Params): Promise<string> {
  if (!p.provider_id) return p.secret ?? '';
  const provider = await ctx.services.providers.get(p.provider_id, webhookSecretProvider.type);
  const parsed = webhookSecretProvider.credentials.safeParse(provider.credentials ?? {});
  if (!parsed.success) throw new Error(`Webhook signing secret provider ${p.provider_id} cannot be used: credentials.secret is required`);
  return parsed.data.secret;
}

/** The bytes a generic signature covers: `signed` templated, with the raw body in place of `$request.content$`. */
function signedBytes(ctx: ActionContext<Params>, template: string | undefined): Buffer {
  if (!template) return ctx.rawBody;
  const parts = template.split(BODY).map((part) => Buffer.from(ctx.template(part), 'utf8'));
  return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [ctx.rawBody, part])));
}

function verify(ctx: ActionContext<Params>, p: Params, key: string): schemes.Verdict {
  const req: schemes.SignedRequest = {
    header: (name) => ctx.request.headers[name.toLowerCase()]?.[0],
    body: ctx.rawBody,
    url: p.url ?? ctx.request.url,
    nowS: ctx.services.clock.now() / 1000,
  };
  switch (p.preset) {
    case 'github':
      return schemes.github(req, key);
    case 'stripe':
      return schemes.stripe(req, key, p.tolerance);
    case 'slack':
      return schemes.slack(req, key, p.tolerance);
    case 'shopify':
      return schemes.shopify(req, key);
    case 'standard_webhooks':
      return schemes.standardWebhooks(req, key, p.tolerance);
    case 'twilio': {
      const isForm = (req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
      return schemes.twilio(req, key, isForm, ctx.request.url);
    }
    case 'generic':
      return schemes.generic(req, key, {
        algorithm: p.algorithm,
        header: p.header!,
        encoding: p.encoding,
        prefix: p.prefix ?? '',
        signed: signedBytes(ctx, p.signed),
        timestampHeader: p.timestamp_header,
        toleranceS: p.tolerance,
      });
  }
}

/** An empty secret, or a `$variable$` left in place because it is not set, signs nothing real. */
function unusable(key: string): schemes.Verdict | null {
  if (!key) return { valid: false, reason: 'the secret is empty' };
  const unset = /^\$([^$\s]+)\$$/.exec(key);
  return unset ? { valid: false, reason: `the secret variable $${unset[1]}$ is not set` } : null;
}

export const verifySignature = defineAction({
  type: 'verify_signature',
  title: 'Verify Signature',
  category: 'behaviour',
  description:
    "Checks the request's signature the way its sender signs webhooks (GitHub, Stripe, Slack, Shopify, Standard Webhooks/Svix, Twilio) or by a generic HMAC, over the body bytes as received, in constant time. Sets $signature.valid$ (true/false) and $signature.reason$; with reject, a request that fails is answered 401 with a JSON error, the actions stop and it is not stored.",
  parameters,
  sets: ['signature.valid', 'signature.reason'],
  // `signed` names `$request.content$`, which must stay the body bytes, not the body as text.
  untemplated: ['signed'],
  async execute(ctx, params) {
    const { vars, log } = ctx;
    if (ctx.request.type !== 'web') {
      vars.set('signature.valid', 'false');
      vars.set('signature.reason', `not an HTTP request (${ctx.request.type})`);
      return log(`Verify Signature has no effect on ${ctx.request.type} captures`);
    }
    // A secret that cannot be read fails the check (and is rejected): a guard must not fail open.
    const key = await signingSecret(ctx, params).catch((err: Error) => {
      ctx.error(err.message);
      return undefined;
    });
    const verdict = key === undefined ? { valid: false, reason: 'the secret could not be read' } : (unusable(key) ?? verify(ctx, params, key));
    vars.set('signature.valid', String(verdict.valid));
    vars.set('signature.reason', verdict.reason);
    if (verdict.valid) return log(`Signature valid (${params.preset})`);
    if (!params.reject) return log(`Signature not valid (${params.preset}): ${verdict.reason}`);
    ctx.response.status = 401;
    ctx.response.contentType = 'application/json';
    ctx.response.content = JSON.stringify({ message: `Invalid signature: ${verdict.reason}` });
    ctx.dontSave();
    ctx.stop();
    log(`Signature not valid (${params.preset}): ${verdict.reason}; answered 401, not saved`);
  },
});
