// `capture`: the command line of the service (docs/cli.md). Commands that talk to a running server
// use @capture/client; the administration commands that work on the database itself (secrets
// rotate, migrate, backup, and workflows apply/export with --database) are scripts/cli.ts, loaded
// only when asked for. Exit codes: 0 done, 1 failed (or timed out), 2 usage error; 0 too when
// whoever reads stdout stops reading (`capture tail --json | head -1`).
import { parseArgs, UsageError, wordsOf, type Parsed } from './args.js';
import { exportRequests } from './commands/export.js';
import { forward } from './commands/forward.js';
import { replay } from './commands/replay.js';
import { send } from './commands/send.js';
import { tail } from './commands/tail.js';
import { token } from './commands/token.js';
import { wait } from './commands/wait.js';
import { workflows } from './commands/workflows.js';
import { processContext } from './context.js';
import { COMMAND_HELP, helpText } from './help.js';
import { describeError } from './output.js';
import { version } from './version.js';

/** The database commands of scripts/cli.ts, run with the words and options they always took. */
function databaseCommand(argv: string[]): boolean {
  const [group, command] = wordsOf(argv);
  if (group === 'secrets' || group === 'migrate' || group === 'backup') return true;
  if (group === 'workflows' && command === 'validate') return true;
  return group === 'workflows' && (command === 'apply' || command === 'export') && (argv.includes('--database') || argv.includes('--create'));
}

/** How long a command may tidy up once stdout's reader has gone. */
const READER_GONE_GRACE_MS = 5000;

async function dispatch(parsed: Parsed, signal: AbortSignal): Promise<number> {
  const [group, command, ...rest] = parsed.words;
  const ctx = processContext(parsed, signal);
  parsed.options.delete('database'); // only meaningful for the database commands, handled before
  switch (group) {
    case 'token':
      return token(ctx, command, rest);
    case 'tail':
      return tail(ctx, parsed.words.slice(1));
    case 'forward':
      return forward(ctx, parsed.words.slice(1));
    case 'wait':
      return wait(ctx, parsed.words.slice(1));
    case 'replay':
      return replay(ctx, parsed.words.slice(1));
    case 'export':
      return exportRequests(ctx, parsed.words.slice(1));
    case 'send':
      return send(ctx, parsed.words.slice(1));
    case 'workflows':
      return workflows(ctx, command, rest);
    default:
      throw new UsageError(group ? `unknown command "${group}"` : 'no command given');
  }
}

export async function main(argv: string[], signal: AbortSignal = new AbortController().signal): Promise<number> {
  try {
    const words = wordsOf(argv);
    if (argv.includes('--help') || argv.includes('-h') || words[0] === 'help' || !argv.length) {
      process.stdout.write(helpText(words[0] === 'help' ? words[1] : words[0]) + '\n');
      return argv.length ? 0 : 2;
    }
    if (argv.includes('--version')) {
      process.stdout.write(`capture ${version()}\n`);
      return 0;
    }
    if (databaseCommand(argv)) {
      const admin = await import('../scripts/cli.js');
      return admin.main(argv.filter((a) => a !== '--database'));
    }
    return await dispatch(parseArgs(argv), signal);
  } catch (err) {
    if (err instanceof UsageError) {
      const command = wordsOf(argv)[0];
      const help = command && Object.hasOwn(COMMAND_HELP, command) ? `capture ${command} --help shows how to use it` : 'capture --help lists the commands and options';
      process.stderr.write(`error: ${err.message}\n(${help})\n`);
      return 2;
    }
    process.stderr.write(`error: ${describeError(err)}\n`);
    return 1;
  }
}

/**
 * Runs the command line of this process: Ctrl-C or SIGTERM ends a long command cleanly, and so
 * does a reader that closes stdout (EPIPE: `capture tail --json | head -1`), quietly and with exit
 * code 0, as nothing is left to do for a reader that has gone.
 */
export async function run(argv: string[]): Promise<never> {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130); // a second Ctrl-C: do not wait for the tidy-up
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let readerGone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (readerGone) return; // later writes to the closed pipe
    if (err.code !== 'EPIPE') throw err;
    readerGone = true;
    stop.abort();
    // Commands stop at the abort (forward first puts the token's listen back); a write already
    // waiting on the closed pipe may never return, so this is the limit of the tidy-up.
    setTimeout(() => process.exit(0), READER_GONE_GRACE_MS);
  });
  // Nobody is left to read a message about a closed stderr.
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const code = await main(argv, stop.signal);
  if (readerGone) process.exit(0);
  // Let stdout drain (a pipe) before exiting.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

if (import.meta.url === `file://${process.argv[1]}`) void run(process.argv.slice(2));
