// The `rabbitmq_get` action: takes one message from a queue (basic.get), acknowledges it and puts
// its content in a variable. An empty queue leaves the variable empty.
import { defineAction, variableName, z } from '@capture/sdk';
import { brokerParameters, withBroker } from './broker.js';

export const rabbitmqGet = defineAction({
  type: 'rabbitmq_get',
  title: 'RabbitMQ: Get Message',
  category: 'rabbitmq',
  description: 'Takes one message from a RabbitMQ queue, acknowledges it, and puts its content in $<variable_name>$ (empty when the queue is empty). The queue must exist.',
  parameters: z.object({
    ...brokerParameters,
    variable_name: z.preprocess((v) => (v === '' || v === null ? undefined : v), variableName().default('message')).describe('Default: message'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    await withBroker(ctx, params, async ({ conn, where }) => {
      const channel = await conn.createChannel();
      channel.on('error', () => {});
      const message = await channel.get(params.queue, { noAck: false });
      if (message === false) {
        await channel.close().catch(() => {});
        ctx.vars.set(params.variable_name, '');
        ctx.log(`Queue "${params.queue}" on ${where} is empty; $${params.variable_name}$ is empty`);
        return;
      }
      channel.ack(message);
      await channel.close(); // the ack is sent before the close
      ctx.vars.set(params.variable_name, message.content.toString('utf8'));
      const left = message.fields.messageCount;
      ctx.log(`Got a message of ${message.content.length} bytes from queue "${params.queue}" on ${where} into $${params.variable_name}$ (${left} left)`);
    });
  },
});
