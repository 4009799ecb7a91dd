// The command line: `npm run cli -- workflows validate|apply|export ...`, `secrets rotate`.
//
//   workflows validate <file...>          check documents (structure and every step's parameters)
//   workflows apply <file...>             store them (the store named by the environment, as `npm start`)
//   workflows export <token> [file]       write a token's chain as YAML (stdout without a file)
//   secrets rotate                        re-seal every stored secret under SECRET_KEY (after a key change)
import 'reflect-metadata';
import fs from 'node:fs/promises';
import { loadPlugins } from '../core/actions/loader.js';
import type { ActionRegistry } from '../core/actions/registry.js';
import { ParameterSecrets } from '../core/actions/secret-params.js';
import { rotateSecrets, type RotationTally } from '../core/auth/rotate-secrets.js';
import { createSealer, loadSecretKey, type Sealer } from '../core/auth/sealing.js';
import { loadConfig } from '../core/config.js';
import { HttpError } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { openStore } from '../core/store/index.js';
import { systemClock } from '../core/util/time.js';
import { resolveOrCreateToken } from '../core/workflows/apply-dir.js';
import { exportYaml, normaliseDocument, parseDocumentText, secretsWarning } from '../core/workflows/document.js';
import { WorkflowService } from '../core/workflows/service.js';

const USAGE = `usage: npm run cli -- workflows validate <file...>
       npm run cli -- workflows apply <file...>
       npm run cli -- workflows export <token-id-or-alias> [output-file]
       npm run cli -- secrets rotate`;

function describe(err: unknown): string {
  if (err instanceof HttpError) {
    const fields = Object.entries(err.errors ?? {}).map(([k, v]) => `\n    ${k}: ${v.join('; ')}`);
    return err.message + fields.join('');
  }
  return err instanceof Error ? err.message : String(err);
}

async function registry(): Promise<ActionRegistry> {
  const config = loadConfig();
  const { registry, failures } = await loadPlugins({ packages: config.PLUGINS, logger: createLogger('warn') });
  for (const f of failures) process.stderr.write(`warning: plugin ${f.source} not loaded: ${f.message}\n`);
  return registry;
}

async function validate(files: string[]): Promise<number> {
  const reg = await registry();
  let bad = 0;
  for (const file of files) {
    try {
      const doc = normaliseDocument(parseDocumentText(await fs.readFile(file, 'utf8')));
      doc.spec.steps.forEach((s, i) => {
        try {
          reg.validate(s.type, s.parameters, { allowDeprecated: true });
        } catch (e) {
          throw Object.assign(e as Error, { message: `spec.steps.${i}: ${(e as Error).message}` });
        }
      });
      process.stdout.write(`ok       ${file} (${doc.spec.steps.length} steps)\n`);
    } catch (e) {
      bad++;
      process.stdout.write(`invalid  ${file}: ${describe(e)}\n`);
    }
  }
  return bad ? 1 : 0;
}

type Store = Awaited<ReturnType<typeof openStore>>;

/** The configured store, the plugins' actions and the server's keys, for one command. */
async function withStore<T>(fn: (store: Store, reg: ActionRegistry, sealer: Sealer) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config);
  try {
    const reg = await registry();
    // The server's keys (SECRET_KEY or DATA_DIR/secret.key, and SECRET_KEY_PREVIOUS), so secrets sealed here open there.
    return await fn(store, reg, createSealer(loadSecretKey(config), config.SECRET_KEY_PREVIOUS));
  } finally {
    await store.close();
  }
}

async function withService<T>(fn: (svc: WorkflowService, store: Store) => Promise<T>): Promise<T> {
  return withStore((store, reg, sealer) => fn(new WorkflowService(store, reg, systemClock, new ParameterSecrets(reg, sealer)), store));
}

async function apply(files: string[]): Promise<number> {
  return withService(async (svc, store) => {
    let bad = 0;
    for (const file of files) {
      try {
        const doc = parseDocumentText(await fs.readFile(file, 'utf8')) as { metadata?: { token?: string } };
        const token = await resolveOrCreateToken(store, systemClock, String(doc?.metadata?.token ?? ''));
        if (!token) throw new Error(`no token ${JSON.stringify(doc?.metadata?.token)} (name an existing token, or a new UUID)`);
        const applied = await svc.apply(token, doc);
        process.stdout.write(`applied  ${file} -> token ${token.uuid} (${applied.spec.steps.length} steps)\n`);
      } catch (e) {
        bad++;
        process.stdout.write(`failed   ${file}: ${describe(e)}\n`);
      }
    }
    return bad ? 1 : 0;
  });
}

async function exportDoc(ref: string, out?: string): Promise<number> {
  return withService(async (svc, store) => {
    const token = await store.tokens.resolve(ref);
    if (!token) {
      process.stderr.write(`no token ${ref}\n`);
      return 1;
    }
    const secretCount = await svc.secretCount(token);
    if (secretCount) process.stderr.write(`warning: ${secretsWarning(secretCount)}\n`);
    const yaml = exportYaml(await svc.document(token), secretCount);
    if (out) await fs.writeFile(out, yaml);
    else process.stdout.write(yaml);
    return 0;
  });
}

async function rotate(): Promise<number> {
  return withStore(async (store, reg, sealer) => {
    const report = await rotateSecrets(store, sealer, new ParameterSecrets(reg, sealer));
    const line = (what: string, t: RotationTally) => `${what.padEnd(18)} re-sealed ${t.resealed}, already current ${t.current}, failed ${t.failed.length}\n`;
    process.stdout.write(line('providers', report.providers) + line('workflow secrets', report.workflows) + line('template secrets', report.templates));
    const failed = [report.providers, report.workflows, report.templates].flatMap((t) => t.failed);
    for (const f of failed) process.stdout.write(`failed   ${f.where}: ${f.reason}\n`);
    if (failed.length) process.stderr.write('Some secrets were not re-sealed: set SECRET_KEY_PREVIOUS to the key(s) they were sealed with and run again, or have their owners enter them again.\n');
    return failed.length ? 1 : 0;
  });
}

export async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === 'secrets' && command === 'rotate' && !rest.length) return rotate();
  if (group !== 'workflows' || !command) {
    process.stderr.write(USAGE + '\n');
    return 2;
  }
  if (command === 'validate' && rest.length) return validate(rest);
  if (command === 'apply' && rest.length) return apply(rest);
  if (command === 'export' && rest.length >= 1) return exportDoc(rest[0]!, rest[1]);
  process.stderr.write(USAGE + '\n');
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`error: ${describe(err)}\n`);
      process.exit(1);
    },
  );
}
