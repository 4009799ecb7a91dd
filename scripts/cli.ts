// The command line: `npm run cli -- workflows validate|apply|export ...`, `secrets rotate`,
// `migrate`, `backup`.
//
//   workflows validate <file...>              check documents (structure and every step's parameters); writes nothing
//   workflows apply [--create] <file...>      store them (the database named by the environment, as `npm start`)
//   workflows export <token> [file]           write a token's chain as YAML (stdout without a file)
//   secrets rotate                            re-seal every stored secret under SECRET_KEY (after a key change)
//   migrate --from <where> --to <where>       copy a whole store, SQLite <-> MongoDB (cli-migrate.ts)
//   backup [--force] <file>                   online copy of the SQLite database (cli-backup.ts)
//
// A command that uses the database names it on stderr first, and refuses a SQLite database that does
// not exist (a mistyped DATA_DIR would otherwise get a new, empty one) unless `--create` is given.
// Errors in files are reported as `file:line:column: field: message`, all of them; the exit code is
// 0 only when every document was valid or applied, 1 otherwise, 2 for a usage error.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { loadPlugins } from '../core/actions/loader.js';
import type { ActionRegistry } from '../core/actions/registry.js';
import { ParameterSecrets } from '../core/actions/secret-params.js';
import { rotateSecrets, type RotationTally } from '../core/auth/rotate-secrets.js';
import { createSealer, loadSecretKey, type Sealer } from '../core/auth/sealing.js';
import { loadConfig, type Config } from '../core/config.js';
import { HttpError, StartupError } from '../core/errors.js';
import { explainStartupError, prepareDataDir } from '../core/lifecycle/startup.js';
import { silentLogger } from '../core/logger.js';
import { openStore, sqliteFile, storeLocation } from '../core/store/index.js';
import { systemClock } from '../core/util/time.js';
import { resolveOrCreateToken } from '../core/workflows/apply-dir.js';
import { documentErrors } from '../core/workflows/check.js';
import { exportYaml, secretsWarning } from '../core/workflows/document.js';
import { ParseLimitError } from '@capture/sdk/parse-limits';
import { parseWithPositions, positionAt, type LocatedError, type PositionedDocument } from '../core/workflows/positions.js';
import { WorkflowService } from '../core/workflows/service.js';
import { backupCommand } from './cli-backup.js';
import { MAX_PAGE_SIZE } from '../core/store/migrate.js';
import { migrateCommand } from './cli-migrate.js';

const USAGE = `usage: npm run cli -- <command> [--help]

  workflows validate <file...>                 check workflow documents; writes nothing
  workflows apply [--create] <file...>         store them in the server's database (DATA_DIR, or MONGODB_URI)
  workflows export <token-id-or-alias> [file]  write a token's chain as YAML (to stdout without a file)
  secrets rotate                               re-seal every stored secret under SECRET_KEY
  migrate --from <where> --to <where> [--force] [--page-size <n>]
                                               copy everything between SQLite and MongoDB; <where> is a
                                               MongoDB URI, a SQLite file or a DATA_DIR; resumable
  backup [--force] <file>                      consistent copy of the SQLite database, while it runs

  --create   create the SQLite database when DATA_DIR holds none (apply only; without it a
             missing database is refused, so a mistyped DATA_DIR never gets a new empty one)
  --force    migrate: copy into a target that already holds other data; backup: replace <file>
  --page-size  migrate: records read and written at a time (default 500, at most 10000); larger
             pages are faster on servers where each write costs much, and hold more in memory
  --help     show this text`;

/** A command line that does not say a known command: usage on stderr, exit 2. */
class UsageError extends Error {}

const say = (text: string) => process.stderr.write(text + '\n');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function describe(err: unknown): string {
  if (err instanceof HttpError) {
    const fields = Object.entries(err.errors ?? {}).map(([k, v]) => `\n    ${k}: ${v.join('; ')}`);
    return err.message + fields.join('');
  }
  return err instanceof Error ? err.message : String(err);
}

interface Args {
  words: string[];
  create: boolean;
  force: boolean;
  help: boolean;
  from?: string;
  to?: string;
  'page-size'?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { words: [], create: false, force: false, help: false };
  let options = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const valued = options && /^--(from|to|page-size)(=|$)/.exec(a);
    if (valued) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!value) throw new UsageError(`--${valued[1]} needs a value`);
      args[valued[1] as 'from' | 'to' | 'page-size'] = value;
    } else if (options && a === '--') options = false;
    else if (options && (a === '--help' || a === '-h')) args.help = true;
    else if (options && a === '--create') args.create = true;
    else if (options && a === '--force') args.force = true;
    else if (options && a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else args.words.push(a);
  }
  return args;
}

async function registry(): Promise<ActionRegistry> {
  const config = loadConfig();
  // The loader logs nothing here: each failure is said once, as a warning on stderr.
  const { registry, failures } = await loadPlugins({ packages: config.PLUGINS, logger: silentLogger });
  for (const f of failures) say(`warning: plugin ${f.source} not loaded: ${f.message}`);
  return registry;
}

type Store = Awaited<ReturnType<typeof openStore>>;

/**
 * Names the database on stderr, then opens it. A SQLite file that does not exist is refused unless
 * `create`: the CLI must not leave a new empty database wherever a wrong DATA_DIR points.
 */
async function openDatabase(config: Config, create: boolean): Promise<Store> {
  const file = sqliteFile(config);
  const isNew = !config.MONGODB_URI && file !== ':memory:' && !existsSync(file);
  say(`database: ${storeLocation(config)}${isNew && create ? ' (new)' : ''}`);
  if (isNew && !create) {
    const setting = `DATA_DIR=${config.DATA_DIR}${process.env.DATA_DIR ? '' : ' (the default)'}`;
    throw new StartupError(`${setting}: there is no database at ${file}. Set DATA_DIR to the folder the server uses, or add --create to "workflows apply" to create a new database there.`);
  }
  if (!config.MONGODB_URI) prepareDataDir(config.dataDir); // creates the folder (with --create) and checks it is writable
  try {
    return await openStore(config);
  } catch (e) {
    throw (await explainStartupError(e, config)) ?? e; // names MONGODB_URI (without its password) or DATA_DIR
  }
}

/** The configured store, the plugins' actions and the server's keys, for one command. */
async function withStore<T>(create: boolean, fn: (store: Store, reg: ActionRegistry, sealer: Sealer) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openDatabase(config, create);
  try {
    const reg = await registry();
    // The server's keys (SECRET_KEY or DATA_DIR/secret.key, and SECRET_KEY_PREVIOUS), so secrets sealed here open there.
    return await fn(store, reg, createSealer(loadSecretKey(config), config.SECRET_KEY_PREVIOUS));
  } finally {
    await store.close();
  }
}

async function withService<T>(create: boolean, fn: (svc: WorkflowService, store: Store, reg: ActionRegistry) => Promise<T>): Promise<T> {
  return withStore(create, (store, reg, sealer) => fn(new WorkflowService(store, reg, systemClock, new ParameterSecrets(reg, sealer)), store, reg));
}

export interface Tally {
  done: number;
  failed: number;
}

/**
 * Runs `handle` on every document of every file and prints each error as `file:line:col: field:
 * message` on stderr; a document with syntax errors is not handled. `handle` returns the document's
 * errors (none when it succeeded).
 */
export async function eachDocument(files: string[], handle: (doc: PositionedDocument, file: string) => Promise<LocatedError[]>): Promise<Tally> {
  const tally: Tally = { done: 0, failed: 0 };
  const fail = (file: string, errors: LocatedError[]) => {
    tally.failed++;
    for (const e of errors) say(`${file}:${e.line}:${e.col}: ${e.path ? `${e.path}: ` : ''}${e.message}`);
  };
  for (const file of files) {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      tally.failed++;
      say(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      continue;
    }
    let docs: PositionedDocument[];
    try {
      docs = parseWithPositions(text);
    } catch (e) {
      if (!(e instanceof ParseLimitError)) throw e;
      fail(file, [{ ...positionAt(text, e.offset), path: '', message: e.message }]);
      continue;
    }
    if (!docs.length) fail(file, [{ line: 1, col: 1, path: '', message: 'holds no document' }]);
    for (const doc of docs) {
      let errors = doc.syntaxErrors;
      if (!errors.length) {
        try {
          errors = await handle(doc, file);
        } catch (e) {
          errors = [{ ...doc.positionOf(''), path: '', message: describe(e) }];
        }
      }
      if (errors.length) fail(file, errors);
      else tally.done++;
    }
  }
  return tally;
}

export function summary(tally: Tally, done: string): number {
  process.stdout.write(`${plural(tally.done, 'document')} ${done}, ${tally.failed} failed\n`);
  return tally.failed ? 1 : 0;
}

/** What a valid document holds, for the `ok` line. */
function contents(value: unknown): string {
  const doc = value as { kind: string; metadata: { name?: string }; spec: { steps?: unknown[] } };
  return doc.kind === 'Schedule' ? `schedule ${JSON.stringify(doc.metadata.name)}` : plural(doc.spec.steps?.length ?? 0, 'step');
}

async function validate(files: string[]): Promise<number> {
  const reg = await registry();
  const tally = await eachDocument(files, async (doc, file) => {
    const errors = doc.locate(await documentErrors(doc.value, reg));
    if (!errors.length) process.stdout.write(`ok       ${file} (${contents(doc.value)})\n`);
    return errors;
  });
  return summary(tally, 'valid');
}

async function apply(files: string[], create: boolean): Promise<number> {
  return withService(create, async (svc, store, reg) => {
    const tally = await eachDocument(files, async (doc, file) => {
      // Every error of the document first: the service stops at the first failing step.
      const errors = doc.locate(await documentErrors(doc.value, reg));
      if (errors.length) return errors;
      const value = doc.value as { kind: string; metadata: { token: string } };
      if (value.kind === 'Schedule') {
        return [{ ...doc.positionOf('kind'), path: 'kind', message: 'Schedule documents are applied by the server (from its workflows/ folder at start-up, or the Schedules API), not by this command' }];
      }
      const token = await resolveOrCreateToken(store, systemClock, value.metadata.token);
      if (!token) {
        return [{ ...doc.positionOf('metadata.token'), path: 'metadata.token', message: `no token ${JSON.stringify(value.metadata.token)} (name an existing token, or a new UUID)` }];
      }
      try {
        const applied = await svc.apply(token, value);
        process.stdout.write(`applied  ${file} -> token ${token.uuid} (${plural(applied.spec.steps.length, 'step')})\n`);
        return [];
      } catch (e) {
        if (e instanceof HttpError && e.errors) return doc.locate(e.errors);
        throw e;
      }
    });
    return summary(tally, 'applied');
  });
}

async function exportDoc(ref: string, out?: string): Promise<number> {
  return withService(false, async (svc, store) => {
    const token = await store.tokens.resolve(ref);
    if (!token) {
      say(`no token ${ref}`);
      return 1;
    }
    const secretCount = await svc.secretCount(token);
    if (secretCount) say(`warning: ${secretsWarning(secretCount)}`);
    const yaml = exportYaml(await svc.document(token), secretCount);
    if (out) {
      await fs.writeFile(out, yaml);
      say(`wrote ${out}`);
    } else process.stdout.write(yaml);
    return 0;
  });
}

async function rotate(): Promise<number> {
  return withStore(false, async (store, reg, sealer) => {
    const report = await rotateSecrets(store, sealer, new ParameterSecrets(reg, sealer));
    const line = (what: string, t: RotationTally) => `${what.padEnd(18)} re-sealed ${t.resealed}, already current ${t.current}, failed ${t.failed.length}\n`;
    process.stdout.write(line('providers', report.providers) + line('workflow secrets', report.workflows) + line('template secrets', report.templates));
    const failed = [report.providers, report.workflows, report.templates].flatMap((t) => t.failed);
    for (const f of failed) process.stdout.write(`failed   ${f.where}: ${f.reason}\n`);
    if (failed.length) say('Some secrets were not re-sealed: set SECRET_KEY_PREVIOUS to the key(s) they were sealed with and run again, or have their owners enter them again.');
    return failed.length ? 1 : 0;
  });
}

/** `--page-size`: records per page, 1 to MAX_PAGE_SIZE (default PAGE_SIZE). */
function pageSize(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) throw new UsageError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return n;
}

function dispatch(args: Args): Promise<number> {
  const [group, command, ...rest] = args.words;
  const what = [group, command].filter(Boolean).join(' ');
  if (args.create && what !== 'workflows apply') throw new UsageError('--create goes with workflows apply');
  if (args.force && group !== 'migrate' && group !== 'backup') throw new UsageError('--force goes with migrate or backup');
  if ((args.from || args.to) && group !== 'migrate') throw new UsageError('--from and --to go with migrate');
  if (args['page-size'] && group !== 'migrate') throw new UsageError('--page-size goes with migrate');
  if (group === 'migrate') {
    if (!args.from || !args.to || command) throw new UsageError('migrate needs --from <where> and --to <where>, and nothing else');
    return migrateCommand(args.from, args.to, args.force, pageSize(args['page-size']));
  }
  if (group === 'backup') {
    if (!command || rest.length) throw new UsageError('backup needs one output file');
    return backupCommand(loadConfig(), command, args.force);
  }
  switch (what) {
    case 'workflows validate':
      if (rest.length) return validate(rest);
      throw new UsageError('workflows validate needs at least one file');
    case 'workflows apply':
      if (rest.length) return apply(rest, args.create);
      throw new UsageError('workflows apply needs at least one file');
    case 'workflows export':
      if (rest.length === 1 || rest.length === 2) return exportDoc(rest[0]!, rest[1]);
      throw new UsageError('workflows export needs a token and at most one output file');
    case 'secrets rotate':
      if (!rest.length) return rotate();
      throw new UsageError('secrets rotate takes no arguments');
    default:
      throw new UsageError(what ? `unknown command "${what}"` : 'no command given');
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    const args = parseArgs(argv);
    if (args.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    return await dispatch(args);
  } catch (err) {
    if (err instanceof UsageError) {
      say(`error: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    say(`error: ${describe(err)}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
