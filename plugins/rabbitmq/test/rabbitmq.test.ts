// rabbitmq_publish and rabbitmq_get against the real RabbitMQ broker.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Network } from '@capture/sdk';
import { runAction, validateParams } from '@capture/sdk/testing';
import { rabbitmqGet } from '../src/rabbitmq-get.js';
import { parseHeaders, rabbitmqPublish } from '../src/rabbitmq-publish.js';
import { RABBIT, deleteQueues, requireRabbit, uniqueQueue, withChannel } from './broker.js';

const queues: string[] = [];
function newQueue(): string {
  const q = uniqueQueue();
  queues.push(q);
  return q;
}

beforeAll(() => requireRabbit());
afterAll(() => deleteQueues(queues));

describe('rabbitmq_publish and rabbitmq_get', () => {
  it('round trip: publish creates a durable queue, get takes the messages in order, then finds it empty', async () => {
    const queue = newQueue();
    const pub = await runAction(rabbitmqPublish, { ...RABBIT, queue, message: 'body: $request.content$' }, { request: { content: '{"id":7}' } });
    expect(pub.errors).toEqual([]);
    expect(pub.output).toEqual([`Published 14 bytes to queue "${queue}" on 127.0.0.1:5672; the queue was created (durable)`]);
    const second = await runAction(rabbitmqPublish, { ...RABBIT, queue, message: 'second' });
    expect(second.output).toEqual([`Published 6 bytes to queue "${queue}" on 127.0.0.1:5672`]);

    const first = await runAction(rabbitmqGet, { ...RABBIT, queue, variable_name: 'msg' });
    expect(first.errors).toEqual([]);
    expect(first.vars).toEqual({ msg: 'body: {"id":7}' });
    expect(first.output).toEqual([`Got a message of 14 bytes from queue "${queue}" on 127.0.0.1:5672 into $msg$ (1 left)`]);
    expect((await runAction(rabbitmqGet, { ...RABBIT, queue, variable_name: 'msg' })).vars).toEqual({ msg: 'second' });

    const empty = await runAction(rabbitmqGet, { ...RABBIT, queue });
    expect(empty.errors).toEqual([]);
    expect(empty.vars).toEqual({ message: '' });
    expect(empty.output).toEqual([`Queue "${queue}" on 127.0.0.1:5672 is empty; $message$ is empty`]);

    // Durable: declaring it non-durable is refused by the broker.
    await expect(withChannel((ch) => ch.assertQueue(queue, { durable: false }))).rejects.toThrow(/PRECONDITION_FAILED/);
  });

  it('publishes persistent messages with headers', async () => {
    const queue = newQueue();
    const r = await runAction(rabbitmqPublish, { ...RABBIT, queue, message: 'x', headers: 'x-source: capture\nx-attempt: 3' });
    expect(r.errors).toEqual([]);
    const msg = await withChannel((ch) => ch.get(queue, { noAck: true }));
    expect(msg && msg.properties).toMatchObject({ deliveryMode: 2, headers: { 'x-source': 'capture', 'x-attempt': 3 } });
  });

  it('uses an existing queue as it is, whatever its arguments (x-message-ttl)', async () => {
    const queue = newQueue();
    await withChannel((ch) => ch.assertQueue(queue, { durable: false, arguments: { 'x-message-ttl': 60_000 } }));
    const r = await runAction(rabbitmqPublish, { ...RABBIT, queue, message: 'kept' });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual([`Published 4 bytes to queue "${queue}" on 127.0.0.1:5672`]);
    expect((await runAction(rabbitmqGet, { ...RABBIT, queue })).vars).toEqual({ message: 'kept' });
  });

  it('get from a queue that does not exist is an error', async () => {
    const r = await runAction(rabbitmqGet, { ...RABBIT, queue: 'capture.no.such.queue' });
    expect(r.errors).toEqual(['RabbitMQ at 127.0.0.1:5672: Queue "capture.no.such.queue" does not exist on vhost "/"']);
    expect(r.vars.message).toBeUndefined();
  });

  it('bad credentials are an error without the password', async () => {
    const r = await runAction(rabbitmqPublish, { ...RABBIT, password: 'wrong-secret', queue: newQueue(), message: 'x' });
    expect(r.errors).toEqual([expect.stringMatching(/^RabbitMQ at 127\.0\.0\.1:5672: Handshake terminated by server: 403 \(ACCESS-REFUSED\)/)]);
    expect(r.errors[0]).not.toContain('wrong-secret');
  });

  it('an unknown vhost is named in the error', async () => {
    const r = await runAction(rabbitmqGet, { ...RABBIT, vhost: 'capture-no-such-vhost', queue: 'q' });
    expect(r.errors).toEqual(['RabbitMQ at 127.0.0.1:5672: The broker refused to open vhost "capture-no-such-vhost" (it does not exist, or guest has no access to it)']);
  });

  it('connects to the address the outbound policy returns, never to the name', async () => {
    const asked: string[] = [];
    const mapped: Network = {
      resolve: async (host) => {
        asked.push(host);
        return { address: '127.0.0.1', family: 4 };
      },
    };
    const queue = newQueue();
    const r = await runAction(rabbitmqPublish, { ...RABBIT, host: 'mq.capture.invalid', queue, message: 'via policy' }, { services: { net: mapped } });
    expect(r.errors).toEqual([]);
    expect(asked).toEqual(['mq.capture.invalid']);
    expect((await runAction(rabbitmqGet, { ...RABBIT, queue })).vars).toEqual({ message: 'via policy' });
  });

  it('an address the policy refuses is an error and nothing is connected', async () => {
    const refuse: Network = {
      resolve: async (host) => {
        throw new Error(`${host} resolves to 10.0.0.5, which the outbound policy does not allow`);
      },
    };
    const r = await runAction(rabbitmqGet, { ...RABBIT, host: 'mq.internal', queue: 'q' }, { services: { net: refuse } });
    expect(r.errors).toEqual(['RabbitMQ at mq.internal:5672: mq.internal resolves to 10.0.0.5, which the outbound policy does not allow']);
  });

  it('a server that never answers is given up when the time is spent', async () => {
    const silent = net.createServer(() => {}); // accepts and says nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const t0 = Date.now();
      const r = await runAction(rabbitmqGet, { ...RABBIT, port, queue: 'q' }, { budgetMs: 1200 });
      expect(Date.now() - t0).toBeLessThan(2500);
      expect(r.errors).toEqual([`RabbitMQ at 127.0.0.1:${port}: No answer within 1 s`]);
    } finally {
      silent.close();
    }
  });

  it('ssl uses port 5671 by default', async () => {
    const r = await runAction(rabbitmqGet, { ...RABBIT, port: '', ssl: 'true', queue: 'q' });
    expect(r.errors).toEqual([expect.stringMatching(/^RabbitMQ at 127\.0\.0\.1:5671: /)]);
  });
});

describe('rabbitmq parameters', () => {
  const base = { host: 'mq.example', username: 'u', password: 'p', queue: 'jobs' };

  it('accepts the documented parameters', () => {
    expect(() => validateParams(rabbitmqPublish, { ...base, port: 5672, vhost: '/', ssl: false, message: 'hi' })).not.toThrow();
    expect(() => validateParams(rabbitmqGet, { ...base, port: '$port$', ssl: '$tls$', variable_name: '$out$' })).not.toThrow();
  });

  it('requires host, username, password and queue (and message to publish)', () => {
    for (const field of ['host', 'username', 'password', 'queue']) {
      const params: Record<string, unknown> = { ...base, message: 'm' };
      delete params[field];
      expect(() => validateParams(rabbitmqPublish, params), field).toThrow(`parameters.${field}`);
      expect(() => validateParams(rabbitmqGet, params), field).toThrow(`parameters.${field}`);
    }
    expect(() => validateParams(rabbitmqPublish, base)).toThrow('parameters.message');
  });

  it('refuses a bad port', () => {
    expect(() => validateParams(rabbitmqGet, { ...base, port: 0 })).toThrow(/parameters\.port: must be a port number/);
  });

  it('reads headers as lines or a JSON object', () => {
    expect(parseHeaders('A: 1\n\nB: x: y')).toEqual({ A: 1, B: 'x: y' });
    expect(parseHeaders('{"a": true}')).toEqual({ a: true });
    expect(parseHeaders('  ')).toBeUndefined();
    expect(() => parseHeaders('no colon')).toThrow('headers: "no colon" is not "Name: value"');
    expect(() => parseHeaders('{bad')).toThrow('headers: not valid JSON');
  });
});
