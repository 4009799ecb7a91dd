// The `ssh_run_command` action: runs the command text over SSH in one exec request, so the remote
// shell runs its lines in order (multi-line constructs and `cd` carry over) and the exit code is
// the last command's. Output is kept up to 1 MiB per stream.
import type { ClientChannel } from 'ssh2';
import { defineAction, variableName, z } from '@capture/sdk';
import { connectionParams, hostKeyNote, withSsh } from './connection.js';

export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** Keeps the first `max` bytes of a stream and counts the rest. */
class Capped {
  private chunks: Buffer[] = [];
  kept = 0;
  total = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer) {
    this.total += chunk.length;
    const room = this.max - this.kept;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }
  get truncated() {
    return this.total > this.kept;
  }
  text() {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

interface Ran {
  stdout: Capped;
  stderr: Capped;
  code?: number;
  signal?: string;
}

function run(channel: ClientChannel): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const ran: Ran = { stdout: new Capped(MAX_OUTPUT_BYTES), stderr: new Capped(MAX_OUTPUT_BYTES) };
    channel.on('data', (d: Buffer) => ran.stdout.push(d));
    channel.stderr.on('data', (d: Buffer) => ran.stderr.push(d));
    channel.on('exit', (code: number | null, signal?: string) => {
      if (typeof code === 'number') ran.code = code;
      else if (signal) ran.signal = signal;
    });
    channel.on('error', reject);
    channel.on('close', () => resolve(ran));
  });
}

const size = (n: number) => (n === 1 ? '1 byte' : `${n} bytes`);

export const sshRunCommand = defineAction({
  type: 'ssh_run_command',
  title: 'Run SSH Command',
  category: 'ssh',
  description:
    'Runs one or more commands (one per line, run by the login shell in one session) on a server over SSH and sets $<variable_name>.stdout$, $<variable_name>.stderr$ and $<variable_name>.exit$. Log in with a password or, better, an SSH key pair from Providers (provider_id). At most 30 s; output is kept up to 1 MiB per stream.',
  parameters: z.object({
    ...connectionParams,
    command: z.string().trim().min(1, 'is required').max(65_536),
    variable_name: variableName().default('ssh').describe('Prefix of the variables set: <variable_name>.stdout, .stderr, .exit'),
  }),
  sets: ['<variable_name>.stdout', '<variable_name>.stderr', '<variable_name>.exit'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const command = params.command.replace(/\r\n?/g, '\n');
    const { ran, note } = await withSsh(ctx, 'running the command', async (session) => {
      const channel = await new Promise<ClientChannel>((resolve, reject) =>
        session.client.exec(command, (err, ch) => (err ? reject(new Error(`${session.where} refused to run the command: ${err.message}`)) : resolve(ch))),
      );
      try {
        return { ran: await run(channel), note: hostKeyNote(ctx, session) };
      } finally {
        channel.close();
      }
    });
    const name = params.variable_name;
    ctx.vars.set(`${name}.stdout`, ran.stdout.text());
    ctx.vars.set(`${name}.stderr`, ran.stderr.text());
    ctx.vars.set(`${name}.exit`, ran.code ?? '');
    const ended = ran.code !== undefined ? `exit code ${ran.code}` : ran.signal ? `killed by signal ${ran.signal}` : 'no exit code reported';
    ctx.log(`Ran the command on ${params.username}@${params.host}: ${ended}, ${size(ran.stdout.total)} of stdout, ${size(ran.stderr.total)} of stderr; ${note}`);
    for (const [stream, c] of [
      ['stdout', ran.stdout],
      ['stderr', ran.stderr],
    ] as const)
      if (c.truncated) ctx.log(`${stream} was cut to its first ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB (${size(c.total)} received)`);
  },
});
