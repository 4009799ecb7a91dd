// The real database servers the tests use (CI starts them). A test run fails at once with a clear
// message when one is down, instead of timing out in the middle of a test.
import net from 'node:net';

export const PG = { type: 'pgsql', host: '127.0.0.1', port: 5432, database: 'test', username: 'postgres', password: '' } as const;
export const MARIADB = { type: 'mysql', host: '127.0.0.1', port: 3306, database: 'test', username: 'root', password: '' } as const;

export async function requireServer(name: string, host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(3_000, () => socket.destroy(new Error('no answer within 3 s')));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (err) => reject(new Error(`${name} is not running on ${host}:${port} (${err.message}); these tests need the real server`)));
  });
}

/** A table name no other run uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`;
}
