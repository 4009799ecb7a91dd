// GitHub: the real example payloads of @octokit/webhooks-examples (one per event and action),
// sent as GitHub's webhooks are: JSON or form-encoded (`payload=`), X-GitHub-* headers, and with a
// secret X-Hub-Signature-256 (and the legacy SHA-1 X-Hub-Signature) over the body as sent.
import { createRequire } from 'node:module';
import { randomInt, randomUUID } from 'node:crypto';
import { formBody, hmac, jsonBody, mergeOverrides, randomHex, type SampleEvent, type SampleProvider } from '../types.js';

interface WebhookDefinition {
  name: string;
  description: string;
  examples: Array<Record<string, unknown>>;
}

interface Example {
  name: string;
  payload: Record<string, unknown>;
}

let catalogue: Map<string, Example> | null = null;
let listed: SampleEvent[] = [];

/** The examples by event (`push`, `pull_request.opened`), read once when first needed (4 MB of JSON). */
function examples(): Map<string, Example> {
  if (catalogue) return catalogue;
  const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];
  const found = new Map<string, Example>();
  const events: SampleEvent[] = [];
  for (const d of definitions) {
    for (const payload of d.examples) {
      const event = typeof payload.action === 'string' ? `${d.name}.${payload.action}` : d.name;
      if (found.has(event)) continue;
      found.set(event, { name: d.name, payload });
      events.push({ event, description: firstSentence(d.description), formats: ['json', 'form'] });
    }
  }
  listed = events;
  return (catalogue = found);
}

function firstSentence(text: string): string {
  const plain = text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const end = plain.search(/\.(\s|$)/);
  return end < 0 ? plain : plain.slice(0, end + 1);
}

export const github: SampleProvider = {
  id: 'github',
  name: 'GitHub',
  source: "@octokit/webhooks-examples (the example payloads of GitHub's webhook documentation, api.github.com)",
  licence: 'MIT',
  preset: 'github',
  secretRequired: false,
  events() {
    examples();
    return listed;
  },
  deliver({ event, secret, overrides, format }) {
    const example = examples().get(event);
    if (!example) return null;
    const payload = mergeOverrides(example.payload, overrides);
    const body = format === 'form' ? formBody({ payload: JSON.stringify(payload) }) : jsonBody(payload);
    const hookId = typeof payload.hook_id === 'number' ? payload.hook_id : randomInt(100_000_000, 999_999_999);
    const repository = payload.repository as { id?: number } | undefined;
    const headers: Record<string, string> = {
      Accept: '*/*',
      'User-Agent': `GitHub-Hookshot/${randomHex(7)}`,
      'X-GitHub-Delivery': randomUUID(),
      'X-GitHub-Event': example.name,
      'X-GitHub-Hook-ID': String(hookId),
      'X-GitHub-Hook-Installation-Target-ID': String(repository?.id ?? hookId),
      'X-GitHub-Hook-Installation-Target-Type': repository ? 'repository' : 'integration',
      'Content-Type': format === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
    };
    if (secret !== undefined) {
      headers['X-Hub-Signature'] = `sha1=${hmac('sha1', secret, body).toString('hex')}`;
      headers['X-Hub-Signature-256'] = `sha256=${hmac('sha256', secret, body).toString('hex')}`;
    }
    return { method: 'POST', headers, body };
  },
};
