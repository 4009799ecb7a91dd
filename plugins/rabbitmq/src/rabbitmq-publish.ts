// The `rabbitmq_publish` action: one persistent message to a queue through the default exchange.
// An existing queue is used as it is (whatever its arguments, e.g. x-message-ttl); a missing one is
// declared durable. The broker confirms the message before the action reports it published.
import { defineAction, optionalText, z } from '@capture/sdk';
import { brokerParameters, isNotFound, withBroker } from './broker.js';

export const rabbitmqPublish = defineAction({
  type: 'rabbitmq_publish',
  title: 'RabbitMQ: Publish Message',
  category: 'rabbitmq',
  description:
    'Publishes a message to a RabbitMQ queue (through the default exchange, persistent). A queue that does not exist yet is created durable; an existing one is used as it is. Headers, one `Name: value` per line (or a JSON object), become message headers.',
  parameters: z.object({
    ...brokerParameters,
    message: z.string(),
    headers: optionalText().describe('Message headers: one `Name: value` per line, or a JSON object; whole numbers are sent as numbers'),
  }),
  async execute(ctx, params) {
    const headers = parseHeaders(params.headers);
    const content = Buffer.from(params.message, 'utf8');
    await withBroker(ctx, params, async ({ conn, where, vhost }) => {
      let channel = await conn.createConfirmChannel();
      channel.on('error', () => {});
      let created = false;
      try {
        await channel.checkQueue(params.queue);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // The failed check closed that channel.
        channel = await conn.createConfirmChannel();
        channel.on('error', () => {});
        await channel.assertQueue(params.queue, { durable: true });
        created = true;
      }
      await new Promise<void>((resolve, reject) =>
        channel.sendToQueue(params.queue, content, { persistent: true, headers }, (err) => (err ? reject(err instanceof Error ? err : new Error('The broker refused the message')) : resolve())),
      );
      await channel.close().catch(() => {});
      ctx.log(`Published ${content.length} bytes to queue "${params.queue}" on ${where}${vhost === '/' ? '' : ` (vhost ${vhost})`}${created ? '; the queue was created (durable)' : ''}`);
    });
  },
});

/** `Name: value` lines or a JSON object -> message headers. */
export function parseHeaders(text: string | undefined): Record<string, unknown> | undefined {
  const src = text?.trim();
  if (!src) return undefined;
  if (src.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(src);
    } catch {
      throw new Error('headers: not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('headers: the JSON must be an object');
    return parsed as Record<string, unknown>;
  }
  const out: Record<string, unknown> = {};
  for (const line of src.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`headers: "${line.trim()}" is not "Name: value"`);
    const value = line.slice(colon + 1).trim();
    out[line.slice(0, colon).trim()] = /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return out;
}
