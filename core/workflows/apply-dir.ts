// Applies the TokenActions documents kept in the repository's workflows/ folder at start-up (the
// files directly in it, several documents per file allowed; examples/ is not applied). Applying
// is idempotent (step IDs are kept), so every instance may do it on every start.
import path from 'node:path';
import type { ModuleContext } from '../service-module.js';
import type { Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';
import { REPO_ROOT } from '../util/paths.js';
import { readWorkflowFolder } from './kernel.js';
import type { WorkflowService } from './service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The token a document names. A document may bring its own token (a UUID that does not exist yet):
 * it is created then, belongs to the deployment and never expires.
 */
export async function resolveOrCreateToken(store: Store, clock: Clock, ref: string): Promise<TokenRecord | null> {
  const found = await store.tokens.resolve(ref);
  if (found || !UUID.test(ref)) return found;
  const now = clock.now();
  const token: TokenRecord = {
    uuid: ref.toLowerCase(),
    user_id: null,
    team_id: null,
    alias: null,
    redirect: false,
    actions: true,
    cors: false,
    expiry: null,
    timeout: 0,
    listen: 0,
    premium: true,
    premium_expires_at: null,
    ip: '127.0.0.1',
    user_agent: 'workflows/',
    default_content: '',
    default_status: 200,
    default_content_type: 'text/html',
    request_limit: 10000,
    description: null,
    group_id: null,
    password_hash: null,
    created_at: now,
    updated_at: now,
    expires_at: null,
  };
  await store.tokens.create(token);
  return token;
}

export async function applyWorkflowDir(ctx: ModuleContext, workflows: WorkflowService, dir = path.join(REPO_ROOT, 'workflows')): Promise<number> {
  let applied = 0;
  for (const { file: name, docs, error } of await readWorkflowFolder(dir)) {
    if (error) ctx.logger.error('workflow could not be applied', { file: name, err: error });
    for (const d of docs) {
      const doc = d as { kind?: string; metadata?: { token?: string } };
      if (doc?.kind !== 'TokenActions') continue; // other kinds belong to other modules (Schedule)
      try {
        const ref = String(doc.metadata?.token ?? '');
        const token = await resolveOrCreateToken(ctx.store, ctx.clock, ref);
        if (!token) {
          ctx.logger.warn('workflow skipped: no such token', { file: name, token: ref });
          continue;
        }
        await workflows.apply(token, doc);
        applied++;
      } catch (err) {
        ctx.logger.error('workflow could not be applied', { file: name, err });
      }
    }
  }
  if (applied) ctx.logger.info('workflows applied', { dir, applied });
  return applied;
}
