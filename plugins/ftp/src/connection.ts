// One FTP(S) session for one action run. The host name is resolved through the outbound policy and
// the control connection goes to that address; data connections go to the same address too
// (basic-ftp refuses a PASV answer naming another host, and EPSV names only a port), so a server
// cannot point the service elsewhere. `ssl` is explicit FTPS (AUTH TLS), checked against the host
// name unless skip_ssl_verification. Passive mode by default; `passive: false` is active mode
// (PORT/EPRT, activeTransfer below: basic-ftp has only passive mode), where the server connects
// back to a port this service opens for the one transfer, and only the server's own address may.
// 30 s at most (or the chain's budget if that ends first); the connection is always closed.
import net from 'node:net';
import { Readable, Writable, pipeline } from 'node:stream';
import type { Client, FTPError, FTPResponse } from 'basic-ftp';
import { type ActionContext, boolean, optionalPort, secret, z } from '@capture/sdk';
import { lazyImport } from '@capture/sdk/async';

// The client is loaded by the first transfer, not at start-up.
const loadFtp = lazyImport(() => import('basic-ftp'));
/** basic-ftp's error for a server reply (told by name: the class is only at hand once loaded). */
const isFtpError = (e: unknown): e is FTPError => e instanceof Error && e.name === 'FTPError' && typeof (e as { code?: unknown }).code === 'number';

export const FTP_TIMEOUT_MS = 30_000;
export const DEFAULT_PORT = 21;

/** The parameters both FTP actions share (webhook.site's names, plus skip_ssl_verification). */
export const connectionParams = {
  host: z.string().trim().min(1, 'is required').max(253),
  port: optionalPort().describe('Default 21'),
  username: z.string().min(1, 'is required'),
  password: secret(z.string()),
  path: z.string().trim().min(1, 'is required').max(4096),
  ssl: boolean().nullish().describe('FTPS: upgrade the connection with AUTH TLS (explicit FTPS)'),
  passive: boolean().nullish().describe('Passive mode (the default). false: active mode (PORT/EPRT), the server connects back to this service, which it must be able to reach; plain FTP only'),
  skip_ssl_verification: boolean().nullish().describe('With ssl, accept a certificate that is self-signed or does not name the host'),
};

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value kept for its type (typeof) only
const connectionSchema = z.object(connectionParams);
export type ConnectionParams = z.output<typeof connectionSchema>;

export interface FtpSession {
  client: Client;
  /** `user@host:port`, for messages. */
  where: string;
  /** Active mode: transfers go through activeTransfer. */
  active: boolean;
}

/** Stores `data` at `path`, in the session's mode. */
export async function upload(session: FtpSession, data: Buffer, path: string): Promise<void> {
  if (!session.active) return void (await session.client.uploadFrom(Readable.from([data]), path));
  await activeTransfer(session.client, `STOR ${await session.client.protectWhitespace(path)}`, { source: data });
}

/** Reads `path` into `sink`, in the session's mode. */
export async function download(session: FtpSession, sink: Writable, path: string): Promise<void> {
  if (!session.active) return void (await session.client.downloadTo(sink, path));
  await activeTransfer(session.client, `RETR ${await session.client.protectWhitespace(path)}`, { sink });
}

const plainAddress = (a: string | undefined) => (a ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/**
 * One transfer in active mode: listen on the control connection's local address, tell the server
 * with PORT (IPv4) or EPRT (IPv6), send the command, and take the first connection that comes
 * from the server's own address (any other is closed: no third party can feed or read the data).
 * Resolves when both the data connection and the server's completion reply are done.
 */
export async function activeTransfer(client: Client, command: string, io: { source: Buffer } | { sink: Writable }): Promise<FTPResponse> {
  const ftp = client.ftp;
  const local = plainAddress(ftp.socket.localAddress);
  const server = plainAddress(ftp.socket.remoteAddress);
  if (!local || !server) throw new Error('The control connection is closed');
  const listener = net.createServer();
  let data: net.Socket | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, local, resolve);
    });
    const connected = new Promise<net.Socket>((resolve) => {
      listener.on('connection', (socket) => {
        if (data || plainAddress(socket.remoteAddress) !== server) return void socket.destroy();
        data = socket;
        listener.close();
        resolve(socket);
      });
    });
    const port = (listener.address() as net.AddressInfo).port;
    await ftp.request(net.isIPv4(local) ? `PORT ${local.replace(/\./g, ',')},${port >> 8},${port & 255}` : `EPRT |2|${local}|${port}|`);
    let started = false;
    let dataDone = false;
    let reply: FTPResponse | undefined;
    return await ftp.handle(command, (res, task) => {
      if (res instanceof Error) return task.reject(res);
      if (res.code === 150 || res.code === 125) {
        if (started) return;
        started = true;
        void connected.then((socket) => {
          const done = (err: Error | null) => {
            if (err) return task.reject(err);
            dataDone = true;
            if (reply) task.resolve(reply);
          };
          if ('source' in io) pipeline(Readable.from([io.source]), socket, done);
          else pipeline(socket, io.sink, done);
        });
      } else if (res.code >= 200 && res.code < 300) {
        reply = res;
        if (dataDone || !started) task.resolve(res);
      }
    });
  } finally {
    listener.close();
    data?.destroy();
  }
}

type NetError = Error & { code?: string | number };

const TLS_TRUST = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/** A failure as a sentence: what was being done, to which server, and what it said. */
export function ftpError(e: unknown, where: string, phase: string): Error {
  const err = e as NetError;
  if (isFtpError(err)) {
    const said = `${err.code} ${err.message.replace(/^\d{3}[ -]?/, '').trim()}`;
    if (phase === 'logging in') return new Error(`Authentication failed for ${where}: the server said ${said}`);
    if (phase === 'starting TLS') return new Error(`${where} does not offer FTPS (AUTH TLS was refused: ${said})`);
    return new Error(`FTP error while ${phase}: the server said ${said}`);
  }
  if (err.code === 'ECONNREFUSED') return new Error(`Connection refused by ${where}`);
  if (err.code === 'ETIMEDOUT' || /^Timeout/i.test(err.message)) return new Error(`Timed out while ${phase} (${where})`);
  if (err.code === 'EHOSTUNREACH' || err.code === 'ENETUNREACH') return new Error(`${where} is unreachable`);
  if (typeof err.code === 'string' && TLS_TRUST.has(err.code)) return new Error(`The TLS certificate of ${where} is not trusted (${err.message}); set skip_ssl_verification to accept it`);
  return new Error(`FTP error while ${phase} (${where}): ${err.message}`);
}

/** A file the server refused (450, 550-553: missing, not readable, not writable) or another failure. */
export function pathError(e: unknown, path: string, where: string, doing: string): Error {
  if (isFtpError(e) && (e.code === 450 || (e.code >= 550 && e.code <= 553)))
    return new Error(`${doing === 'downloading' ? 'No such file or not readable' : 'Cannot write'}: ${path} (the server said ${e.code} ${e.message.replace(/^\d{3}[ -]?/, '').trim()})`);
  return ftpError(e, where, `${doing} ${path}`);
}

/** Connects, logs in, runs `work` and closes the connection whatever happens. */
export async function withFtp<T>(ctx: ActionContext<ConnectionParams>, work: (session: FtpSession) => Promise<T>): Promise<T> {
  const params = ctx.params;
  const port = params.port ?? DEFAULT_PORT;
  const where = `${params.username}@${params.host}:${port}`;
  const active = params.passive === false;
  if (active && params.ssl) throw new Error('Active mode (passive: false) is for plain FTP only; with ssl use passive mode');
  const { address } = await ctx.services.net.resolve(params.host);

  const timeout = AbortSignal.timeout(FTP_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const client = new (await loadFtp()).Client(FTP_TIMEOUT_MS);
  let phase = 'connecting';
  let fail!: (e: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {});
  const onAbort = () => {
    fail(timeout.aborted ? new Error(`FTP timed out after ${FTP_TIMEOUT_MS / 1000} s while ${phase} (${where})`) : new Error(`FTP stopped while ${phase} (${where}): the actions' time budget was spent`));
    client.close();
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const step = async <R>(name: string, fn: () => Promise<R>): Promise<R> => {
    phase = name;
    try {
      return await Promise.race([fn(), failed]);
    } catch (e) {
      if (signal.aborted) throw await failed.catch((f: Error) => f);
      throw ftpError(e, where, name);
    }
  };

  try {
    await step('connecting', () => client.connect(address, port));
    if (params.ssl) {
      await step('starting TLS', () =>
        client.useTLS({
          host: address,
          // Check the certificate against the name the user gave (an IP is checked as itself).
          servername: net.isIP(params.host) ? undefined : params.host,
          rejectUnauthorized: !params.skip_ssl_verification,
        }),
      );
    }
    await step('logging in', async () => {
      await client.sendIgnoringError('OPTS UTF8 ON');
      await client.login(params.username, params.password);
      await client.useDefaultSettings();
    });
    phase = 'transferring';
    return await Promise.race([work({ client, where, active }), failed]);
  } catch (e) {
    if (signal.aborted) throw await failed.catch((f: Error) => f);
    throw e;
  } finally {
    signal.removeEventListener('abort', onAbort);
    client.close();
  }
}
