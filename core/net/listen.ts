// Every listener of the service (HTTP, SMTP, DNS over UDP and over TCP) takes its port through
// listenOn, so a port that is taken, privileged or on a foreign address fails the same way for all:
// with Node's own error, marked with the setting that chose the port. explainStartupError
// (core/lifecycle/startup.ts) turns that into the one sentence `npm start` prints.
import dgram from 'node:dgram';
import net from 'node:net';

export type PortSetting = 'PORT' | 'SMTP_PORT' | 'DNS_PORT';
export type Transport = 'tcp' | 'udp';

/** A listener that could not take its port: Node's error (code, syscall, address, port) and which setting and transport. */
export type ListenFailure = NodeJS.ErrnoException & { setting: PortSetting; transport: Transport; port?: number };

interface Listener {
  once(event: 'error', f: (err: NodeJS.ErrnoException) => void): unknown;
  off(event: 'error', f: (err: NodeJS.ErrnoException) => void): unknown;
}

/**
 * Calls `listen` (which starts listening and calls `done` once it does) and resolves then; rejects
 * with the listener's first error as a ListenFailure.
 */
export function listenOn(setting: PortSetting, transport: Transport, target: Listener, listen: (done: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => reject(Object.assign(err, { setting, transport }));
    target.once('error', fail);
    listen(() => {
      target.off('error', fail);
      resolve();
    });
  });
}

export function isListenFailure(err: unknown): err is ListenFailure {
  return err instanceof Error && typeof (err as Partial<ListenFailure>).setting === 'string' && typeof (err as Partial<ListenFailure>).transport === 'string';
}

/** Whether `port` can be taken on `host` for this transport right now (it is released at once). */
function available(host: string, transport: Transport, port: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (transport === 'udp') {
      const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
      socket.once('error', () => resolve(null));
      socket.bind(port, host, () => {
        const taken = socket.address().port;
        socket.close(() => resolve(taken));
      });
      return;
    }
    const probe = net.createServer();
    probe.once('error', () => resolve(null));
    probe.listen(port, host, () => {
      const addr = probe.address();
      probe.close(() => resolve(typeof addr === 'object' && addr ? addr.port : null));
    });
  });
}

/**
 * A port nobody listens on right now with any of `transports` (DNS needs UDP and TCP on one port),
 * to suggest instead of a taken one; null when none was found in a few tries.
 */
export async function freePort(host: string, transports: readonly Transport[] = ['tcp']): Promise<number | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await available(host, transports[0]!, 0);
    if (port === null) return null;
    let free = true;
    for (const t of transports.slice(1)) if ((await available(host, t, port)) === null) free = false;
    if (free) return port;
  }
  return null;
}
