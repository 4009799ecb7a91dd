import { createHash, timingSafeEqual } from 'node:crypto';
import { defineAction, secret, z } from '@capture/sdk';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
/** Constant-time comparison, whatever the lengths. */
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

function credentials(header: string | undefined): { user: string; password: string } | null {
  const m = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export const authBasic = defineAction({
  type: 'auth_basic',
  title: 'Basic Auth',
  category: 'behaviour',
  description: 'Protects the URL with HTTP Basic Authentication. Wrong or missing credentials answer 401 with WWW-Authenticate, stop the actions and do not store the request. No effect on e-mails and DNS lookups.',
  parameters: z.object({
    username: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
    password: secret(z.string()),
  }),
  execute({ params, request, response, dontSave, stop, log }) {
    if (request.type !== 'web') return log(`Basic Auth has no effect on ${request.type} captures`);
    const given = credentials(request.headers.authorization?.[0]);
    // Both compared every time so timing does not tell which one was wrong.
    const userOk = same(given?.user ?? '', params.username);
    const passwordOk = same(given?.password ?? '', params.password);
    if (given && userOk && passwordOk) return log(`Authorised${params.username ? ` as ${params.username}` : ''}`);
    response.status = 401;
    response.content = 'Unauthorized';
    response.contentType = 'text/plain';
    response.headers['WWW-Authenticate'] = 'Basic realm="Restricted", charset="UTF-8"';
    dontSave();
    stop();
    log(given ? 'Wrong credentials: answered 401, not saved' : 'No credentials: answered 401, not saved');
  },
});
