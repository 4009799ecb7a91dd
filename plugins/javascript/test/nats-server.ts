// The real NATS server the tests use (this machine runs one; CI starts it): fails clearly when it
// is not there, since these tests need it.
import net from 'node:net';

export const NATS = '127.0.0.1:4222';

export async function requireNats(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: 4222 });
    socket.setTimeout(3000, () => socket.destroy(new Error('no answer within 3 s')));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (err) => reject(new Error(`NATS is not running on ${NATS} (${err.message}); these tests need the real server`)));
  });
}
