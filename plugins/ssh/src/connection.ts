// One SSH connection for one action run. The host name is resolved through the outbound policy
// and the connection goes to that address (never to the name again). Authentication: the private
// key of an `ssh_key` provider and/or a password. The host key is accepted on first use (there is
// no known_hosts store) and its SHA256 fingerprint logged; `host_key` pins it. One deadline, 30 s
// or the chain's budget if that ends first, covers connecting and the work; the connection is
// always closed.
import { createHash } from 'node:crypto';
import type { Client as SshClient, ConnectConfig, SFTPWrapper } from 'ssh2';
import { type ActionContext, optionalPort, optionalText, secret, z } from '@capture/sdk';
import { SSH_KEY, loadSsh2 } from './ssh-key.js';

export const SSH_TIMEOUT_MS = 30_000;
export const DEFAULT_PORT = 22;

/** The parameters every SSH action shares (webhook.site's names). */
export const connectionParams = {
  provider_id: z
    .union([z.string(), z.number().int()])
    .nullish()
    .transform((v) => (v === null || v === undefined || String(v).trim() === '' ? undefined : String(v).trim()))
    .describe('An ssh_key provider: its private key authenticates (recommended)'),
  host: z.string().trim().min(1, 'is required').max(253),
  port: optionalPort().describe('Default 22'),
  username: z.string().min(1, 'is required'),
  password: secret(optionalText()),
  host_key: optionalText().describe("The server's host key fingerprint (SHA256:...) to require. Without it any host key is accepted and its fingerprint logged"),
};

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value kept for its type (typeof) only
const connectionSchema = z.object(connectionParams);
export type ConnectionParams = z.output<typeof connectionSchema>;

export interface SshSession {
  client: SshClient;
  /** `user@host:port`, for messages. */
  where: string;
  /** `SHA256:...` of the server's host key. */
  fingerprint: string;
  /** Aborts when the deadline passes; the connection is closed then. */
  signal: AbortSignal;
}

/** `SHA256:<base64 without padding>`, as `ssh-keygen -l` prints it. */
export function fingerprintOf(key: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
}

function normalizeFingerprint(text: string): string {
  const bare = text
    .trim()
    .replace(/^SHA256:/i, '')
    .replace(/=+$/, '');
  return 'SHA256:' + bare;
}

async function credentials(ctx: ActionContext<ConnectionParams>, params: ConnectionParams): Promise<Pick<ConnectConfig, 'privateKey' | 'passphrase' | 'password'>> {
  const out: Pick<ConnectConfig, 'privateKey' | 'passphrase' | 'password'> = {};
  if (params.provider_id !== undefined) {
    const provider = await ctx.services.providers.get(params.provider_id, SSH_KEY);
    const key = provider.credentials.private_key;
    if (typeof key !== 'string' || !key.trim()) throw new Error(`SSH key provider ${params.provider_id} has no private key`);
    const passphrase = typeof provider.credentials.passphrase === 'string' && provider.credentials.passphrase ? provider.credentials.passphrase : undefined;
    const parsed = (await loadSsh2()).utils.parseKey(key, passphrase);
    if (parsed instanceof Error) throw new Error(`The private key of SSH key provider ${params.provider_id} cannot be used: ${parsed.message}`);
    out.privateKey = key;
    if (passphrase) out.passphrase = passphrase;
  }
  if (params.password) out.password = params.password;
  if (!out.privateKey && out.password === undefined) throw new Error('Give a password or an SSH key provider (provider_id) to log in with');
  return out;
}

type SshError = Error & { level?: string; code?: string | number };

function connectError(e: SshError, where: string, methods: string, pinned: { expected?: string; got?: string }): Error {
  if (pinned.expected && pinned.got && pinned.expected !== pinned.got) return new Error(`Host key of ${where} is ${pinned.got}, not the expected ${pinned.expected}: connection refused`);
  if (e.level === 'client-authentication') return new Error(`Authentication failed for ${where} (tried ${methods})`);
  if (e.code === 'ECONNREFUSED') return new Error(`Connection refused by ${where}`);
  if (e.code === 'ETIMEDOUT' || e.level === 'client-timeout') return new Error(`Timed out connecting to ${where}`);
  if (e.code === 'EHOSTUNREACH' || e.code === 'ENETUNREACH') return new Error(`${where} is unreachable`);
  if (e.code === 'ECONNRESET') return new Error(`${where} closed the connection`);
  return new Error(`SSH connection to ${where} failed: ${e.message}`);
}

/**
 * Connects, runs `work`, and closes the connection whatever happens. `what` names the work in
 * timeout messages ("running the command").
 */
export async function withSsh<T>(ctx: ActionContext<ConnectionParams>, what: string, work: (session: SshSession) => Promise<T>): Promise<T> {
  const params = ctx.params;
  const port = params.port ?? DEFAULT_PORT;
  const where = `${params.username}@${params.host}:${port}`;
  const auth = await credentials(ctx, params);
  const methods = [auth.privateKey ? 'publickey' : '', auth.password !== undefined ? 'password' : ''].filter(Boolean).join(', ');
  const { address } = await ctx.services.net.resolve(params.host);

  const timeout = AbortSignal.timeout(SSH_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let phase = 'connecting';
  let fail!: (e: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {});
  const onAbort = () =>
    fail(timeout.aborted ? new Error(`SSH timed out after ${SSH_TIMEOUT_MS / 1000} s while ${phase} (${where})`) : new Error(`SSH stopped while ${phase} (${where}): the actions' time budget was spent`));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const pinned: { expected?: string; got?: string } = { expected: params.host_key ? normalizeFingerprint(params.host_key) : undefined };
  const { Client } = await loadSsh2();
  const client = new Client();
  let ok = false;
  try {
    await Promise.race([
      new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('error', (e: SshError) => reject(connectError(e, where, methods, pinned)));
        client.once('close', () => reject(new Error(`${where} closed the connection before logging in`)));
        client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => finish(prompts.map(() => auth.password ?? '')));
        client.connect({
          host: address,
          port,
          username: params.username,
          ...auth,
          tryKeyboard: auth.password !== undefined,
          readyTimeout: SSH_TIMEOUT_MS,
          hostVerifier: (key: Buffer) => {
            pinned.got = fingerprintOf(key);
            return !pinned.expected || pinned.expected === pinned.got;
          },
        });
      }),
      failed,
    ]);
    client.removeAllListeners('error');
    client.removeAllListeners('close');
    client.on('error', (e: SshError) => fail(new Error(`SSH connection to ${where} failed: ${e.message}`)));
    client.on('close', () => fail(new Error(`${where} closed the connection while ${phase}`)));
    phase = what;
    const result = await Promise.race([work({ client, where, fingerprint: pinned.got ?? '', signal }), failed]);
    ok = true;
    return result;
  } finally {
    signal.removeEventListener('abort', onAbort);
    client.removeAllListeners('close');
    client.on('error', () => {});
    if (ok) client.end();
    else client.destroy();
  }
}

/** `Host key SHA256:... (not verified: accepted on first use)` or `(verified)`. */
export function hostKeyNote(ctx: ActionContext<ConnectionParams>, session: SshSession): string {
  return `host key ${session.fingerprint} (${ctx.params.host_key ? 'verified' : 'not verified: set host_key to require it'})`;
}

/** Opens the SFTP subsystem. */
export function openSftp(session: SshSession): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => session.client.sftp((err, sftp) => (err ? reject(new Error(`${session.where} refused SFTP: ${err.message}`)) : resolve(sftp))));
}
