// The real RabbitMQ the tests use (CI starts it), and direct access to it for setting up and
// checking queues.
import net from 'node:net';
import amqp from 'amqplib';

export const RABBIT = { host: '127.0.0.1', port: 5672, username: 'guest', password: 'guest' } as const;

export async function requireRabbit(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: RABBIT.host, port: RABBIT.port });
    socket.setTimeout(3_000, () => socket.destroy(new Error('no answer within 3 s')));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (err) => reject(new Error(`RabbitMQ is not running on ${RABBIT.host}:${RABBIT.port} (${err.message}); these tests need the real broker`)));
  });
}

export function uniqueQueue(prefix = 'capture_test'): string {
  return `${prefix}.${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 7)}`;
}

/** Runs `fn` on a channel of a direct connection, then closes it. */
export async function withChannel<T>(fn: (ch: amqp.Channel) => Promise<T>): Promise<T> {
  const conn = await amqp.connect(`amqp://${RABBIT.username}:${RABBIT.password}@${RABBIT.host}:${RABBIT.port}`);
  conn.on('error', () => {});
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    return await fn(ch);
  } finally {
    await conn.close().catch(() => {});
  }
}

export async function deleteQueues(names: string[]): Promise<void> {
  for (const q of names) {
    await withChannel((ch) => ch.deleteQueue(q)).catch(() => {});
  }
}
