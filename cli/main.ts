// `capture`: the command line of the service (docs/cli.md). Commands that talk to a running server
// use @capture/client; the administration commands that work on the database itself (secrets
// rotate, migrate, backup, and workflows apply/export with --database) are scripts/cli.ts, loaded
// only when asked for. Exit codes: 0 done, 1 failed (or timed out), 2 usage error.
import { parseArgs, UsageError, type Parsed } from './args.js';
import { exportRequests } from './commands/export.js';
import { forward } from './commands/forward.js';
import { replay } from './commands/replay.js';
import { send } from './commands/send.js';
import { tail } from './commands/tail.js';
import { token } from './commands/token.js';
import { wait } from './commands/wait.js';
import { workflows } from './commands/workflows.js';
import { processContext } from './context.js';
import { describeError } from './output.js';

export const USAGE = `usage: capture <command> [options]

Commands that use a running server:
  token create [--alias a] [--status n] [--content text] [--content-type t] [--listen s]
               [--request-limit n] [--description text] [--json | -q]
                                      make a token; prints its UUID and URL (-q: the UUID only)
  token get <token>                   the token as JSON
  token delete <token...>             delete tokens and their requests
  tail <token> [--json]               requests as they arrive (one JSON object a line with --json)
  forward <token> --target <url> [--listen-timeout s]
                                      send each capture on to <url> and answer its caller with the
                                      target's response (s: how long callers wait, 0-10, default 10)
  wait <token> [--query q] [--timeout s] [--after id]
                                      print the newest request matching q (the search language) as
                                      JSON, waiting up to s seconds (default 30); exit 1 on timeout
  replay <token> [id... | --query q | --all] [--target url] [--method m] [--actions] [--json]
                                      send stored requests again (default: the newest) to <url> or
                                      the token's own URL; --actions runs the token's actions again
  export <token> --har|--csv [--query q] [--newest] [-o file]
                                      the requests as a HAR archive or CSV
  send <provider> <event> --to <token|url> [--secret s] [--format json|form] [--overrides json] [--json]
                                      a sample delivery signed as the provider signs (GitHub, Stripe,
                                      Slack, ...) into a token or to a URL; send --list [provider]
                                      shows the catalogue (docs/samples.md)
  workflows apply <file...>           store workflow documents on the server (PUT /token/{id}/workflow)
  workflows export <token> [file]     a token's action chain as YAML

Commands that run here:
  workflows validate <file...>        check workflow documents; writes nothing
  workflows apply --database [--create] <file...>
  workflows export --database <token> [file]
                                      the same, on the database of DATA_DIR or MONGODB_URI directly
  secrets rotate                      re-seal every stored secret under SECRET_KEY
  migrate --from <where> --to <where> [--force]
                                      copy everything between SQLite and MongoDB
  backup [--force] <file>             consistent copy of the SQLite database

Server and API key, each from the first that sets it:
  --server <url> / --api-key <key>    (-s / -k)
  CAPTURE_URL / CAPTURE_API_KEY       environment
  --config <file>, else CAPTURE_CONFIG, else ./.capturerc, else ~/.config/capture/config.json:
                                      {"url": "http://host:8084", "api_key": "..."}
  The URL defaults to http://localhost:8084.

  --no-color   no colours (also when NO_COLOR is set, or stdout is not a terminal)
  --help, -h   this text`;

/** The database commands of scripts/cli.ts, run with the words and options they always took. */
function databaseCommand(argv: string[]): boolean {
  // The words, without options and the values of the connection options.
  const words = argv.filter((a, i) => !a.startsWith('-') && !/^(--server|--api-key|--config|-s|-k)$/.test(argv[i - 1] ?? ''));
  const [group, command] = words;
  if (group === 'secrets' || group === 'migrate' || group === 'backup') return true;
  if (group === 'workflows' && command === 'validate') return true;
  return group === 'workflows' && (command === 'apply' || command === 'export') && (argv.includes('--database') || argv.includes('--create'));
}

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
    if (argv.includes('--help') || argv.includes('-h') || !argv.length) {
      process.stdout.write(USAGE + '\n');
      return argv.length ? 0 : 2;
    }
    if (databaseCommand(argv)) {
      const admin = await import('../scripts/cli.js');
      return admin.main(argv.filter((a) => a !== '--database'));
    }
    return await dispatch(parseArgs(argv), signal);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n(capture --help lists the commands and options)\n`);
      return 2;
    }
    process.stderr.write(`error: ${describeError(err)}\n`);
    return 1;
  }
}

/** Runs the command line of this process: Ctrl-C or SIGTERM ends a long command cleanly. */
export async function run(argv: string[]): Promise<never> {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130); // a second Ctrl-C: do not wait for the tidy-up
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await main(argv, stop.signal);
  // Let stdout drain (a pipe) before exiting.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

if (import.meta.url === `file://${process.argv[1]}`) void run(process.argv.slice(2));
