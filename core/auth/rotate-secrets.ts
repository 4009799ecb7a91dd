// SECRET_KEY rotation (`npm run cli -- secrets rotate`): every sealed value at rest (provider
// credentials, secret action parameters of token workflows and of templates) re-sealed under the
// current key. Safe beside a running service: records are walked in pages and each is rewritten on
// its own with a compare-and-set; when a save got there first, the record is read again and
// re-sealed from what is stored now. Values already under the current key are left as they are,
// so running it again changes nothing.
import type { ParameterSecrets, ResealOutcome } from '../actions/secret-params.js';
import type { Store, TemplateRecord } from '../store/types.js';
import { SealError, type Sealer } from './sealing.js';

export interface RotationTally {
  resealed: number;
  current: number;
  failed: Array<{ where: string; reason: string }>;
}

export interface RotationReport {
  providers: RotationTally;
  workflows: RotationTally;
  templates: RotationTally;
}

type Step = { id?: unknown; type?: unknown; parameters?: unknown };

const PAGE = 100;
/** Compare-and-set misses tolerated per record before giving up on it (it keeps changing). */
const ATTEMPTS = 5;

const tally = (): RotationTally => ({ resealed: 0, current: 0, failed: [] });

/**
 * Re-seals one record and writes it if anything changed; on a concurrent change reads it again
 * and starts over. A record deleted meanwhile counts for nothing.
 */
async function rewrite<R>(
  record: R,
  where: string,
  t: RotationTally,
  io: { reseal(r: R): { next: R; outcomes: Array<ResealOutcome & { where?: string }> }; write(from: R, to: R): Promise<boolean>; reread(): Promise<R | null> },
): Promise<void> {
  let current: R | null = record;
  for (let attempt = 0; current && attempt < ATTEMPTS; attempt++) {
    const { next, outcomes } = io.reseal(current);
    if (!outcomes.some((o) => o.status === 'resealed') || (await io.write(current, next))) {
      for (const o of outcomes) {
        if (o.status === 'failed') t.failed.push({ where: `${o.where ?? where}${o.field ? ` (${o.field})` : ''}`, reason: o.reason });
        else t[o.status === 'resealed' ? 'resealed' : 'current']++;
      }
      return;
    }
    current = await io.reread();
  }
  if (current) t.failed.push({ where, reason: `changed ${ATTEMPTS} times while being re-sealed; run the command again` });
}

/** Re-seals a list of steps (a workflow's or a template's); `where` names each step in failures. */
function resealSteps<S extends Step>(steps: S[], secrets: ParameterSecrets, where: (s: S) => string): { steps: S[]; outcomes: Array<ResealOutcome & { where: string }> } {
  const outcomes: Array<ResealOutcome & { where: string }> = [];
  const next = steps.map((s) => {
    const r = secrets.reseal(String(s.type), (s.parameters ?? {}) as Record<string, unknown>);
    outcomes.push(...r.outcomes.map((o) => ({ ...o, where: where(s) })));
    return r.outcomes.some((o) => o.status === 'resealed') ? { ...s, parameters: r.parameters } : s;
  });
  return { steps: next, outcomes };
}

async function rotateProviders(store: Pick<Store, 'providers'>, sealer: Sealer, t: RotationTally): Promise<void> {
  for (let after: string | null = null; ;) {
    const page = await store.providers.after(after, PAGE);
    if (!page.length) return;
    for (const p of page) {
      await rewrite(p, `provider ${p.id} (user ${p.user_id})`, t, {
        reseal(r) {
          if (sealer.isCurrent(r.secret)) return { next: r, outcomes: [{ status: 'current' }] };
          try {
            return { next: { ...r, secret: sealer.seal(sealer.open(r.secret)) }, outcomes: [{ status: 'resealed' }] };
          } catch (e) {
            if (!(e instanceof SealError)) throw e;
            return { next: r, outcomes: [{ status: 'failed', field: 'credentials', reason: e.message }] };
          }
        },
        write: (from, to) => store.providers.replaceSecret(from.id, from.secret, to.secret),
        reread: () => store.providers.get(p.user_id, p.id),
      });
    }
    after = page.at(-1)!.id;
  }
}

async function rotateWorkflows(store: Pick<Store, 'workflows'>, secrets: ParameterSecrets, t: RotationTally): Promise<void> {
  for (let after: string | null = null; ;) {
    const page = await store.workflows.after(after, PAGE);
    if (!page.length) return;
    for (const w of page) {
      const token = w.token_id;
      await rewrite(w.document, `workflow of token ${token}`, t, {
        reseal(doc) {
          const spec = (doc.spec ?? {}) as { steps?: Step[] };
          const r = resealSteps(spec.steps ?? [], secrets, (s) => `workflow of token ${token}, step ${String(s.id)}`);
          return { next: { ...doc, spec: { ...spec, steps: r.steps } }, outcomes: r.outcomes };
        },
        write: (from, to) => store.workflows.replaceDocument(token, from, to),
        reread: async () => (await store.workflows.getForToken(token))?.document ?? null,
      });
    }
    after = page.at(-1)!.token_id;
  }
}

async function rotateTemplates(store: Pick<Store, 'templates'>, secrets: ParameterSecrets, t: RotationTally): Promise<void> {
  for (let after = 0; ;) {
    const page = await store.templates.after(after, PAGE);
    if (!page.length) return;
    for (const tpl of page) {
      await rewrite<TemplateRecord>(tpl, `template ${tpl.id} (user ${tpl.user_id})`, t, {
        reseal(r) {
          const res = resealSteps(r.actions, secrets, (s) => `template ${r.id} (user ${r.user_id}), action ${s.id}`);
          return { next: { ...r, actions: res.steps }, outcomes: res.outcomes };
        },
        write: (from, to) => store.templates.replaceActions(from.id, from.actions, to.actions),
        reread: () => store.templates.get(tpl.user_id, tpl.id),
      });
    }
    after = page.at(-1)!.id;
  }
}

/** Re-seals every sealed value in the store under the sealer's current key. */
export async function rotateSecrets(store: Pick<Store, 'providers' | 'workflows' | 'templates'>, sealer: Sealer, secrets: ParameterSecrets): Promise<RotationReport> {
  const report: RotationReport = { providers: tally(), workflows: tally(), templates: tally() };
  await rotateProviders(store, sealer, report.providers);
  await rotateWorkflows(store, secrets, report.workflows);
  await rotateTemplates(store, secrets, report.templates);
  return report;
}
