// capture workflows validate|apply|export. validate checks files here (no server). apply and
// export go through the server's API (PUT/GET /token/{id}/workflow) with the connection settings;
// with --database (what `npm run cli` passes) they work on the database named by DATA_DIR or
// MONGODB_URI directly, as the admin CLI in scripts/cli.ts always did.
import fs from 'node:fs/promises';
import { CaptureError } from '../../packages/client/src/index.js';
import { accept, CONNECTION, UsageError } from '../args.js';
import type { Context } from '../context.js';
import { describeError } from '../output.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function workflows(ctx: Context, command: string | undefined, rest: string[]): Promise<number> {
  switch (command) {
    case 'validate': {
      accept(ctx.parsed, 'workflows validate', ['no-color']);
      const admin = await import('../../scripts/cli.js');
      return admin.main(['workflows', 'validate', ...rest]);
    }
    case 'apply':
      return apply(ctx, rest);
    case 'export':
      return exportDoc(ctx, rest);
    default:
      throw new UsageError(command ? `unknown command "workflows ${command}"` : 'workflows needs a command: validate, apply or export');
  }
}

async function apply(ctx: Context, files: string[]): Promise<number> {
  accept(ctx.parsed, 'workflows apply', CONNECTION);
  if (!files.length) throw new UsageError('workflows apply needs at least one file');
  const client = ctx.client();
  const { eachDocument, summary } = await import('../../scripts/cli.js');
  const tally = await eachDocument(files, async (doc, file) => {
    const value = doc.value as { kind?: unknown; metadata?: { token?: unknown }; spec?: unknown };
    if (value?.kind === 'Schedule') {
      return [{ ...doc.positionOf('kind'), path: 'kind', message: 'Schedule documents are applied by the server (from its workflows/ folder at start-up, or the Schedules API), not by this command' }];
    }
    const token = value?.metadata?.token;
    if (typeof token !== 'string' || !token) return [{ ...doc.positionOf('metadata'), path: 'metadata.token', message: 'is required (the token whose chain this is: UUID or alias)' }];
    try {
      const applied = (await client.applyWorkflow(token, value)) as { metadata?: { token?: string }; spec?: { steps?: unknown[] } };
      ctx.out(`applied  ${file} -> token ${applied.metadata?.token ?? token} (${plural(applied.spec?.steps?.length ?? 0, 'step')})`);
      return [];
    } catch (e) {
      if (e instanceof CaptureError && Object.keys(e.errors).length) return doc.locate(e.errors);
      if (e instanceof CaptureError && e.status === 404)
        return [{ ...doc.positionOf('metadata.token'), path: 'metadata.token', message: `no token ${JSON.stringify(token)} on ${client.url} (create it first: capture token create)` }];
      return [{ ...doc.positionOf(''), path: '', message: describeError(e) }];
    }
  });
  return summary(tally, 'applied');
}

async function exportDoc(ctx: Context, rest: string[]): Promise<number> {
  accept(ctx.parsed, 'workflows export', CONNECTION);
  if (rest.length !== 1 && rest.length !== 2) throw new UsageError('workflows export needs a token and at most one output file');
  const yaml = await ctx.client().workflow(rest[0]!, 'yaml');
  if (rest[1]) {
    await fs.writeFile(rest[1], yaml);
    ctx.err(`wrote ${rest[1]}`);
  } else process.stdout.write(yaml);
  return 0;
}
