// Queued actions (`queue: true`, optional `delay` up to 86400 s): they run after the capture was
// answered, as a job on the scheduler, with a 120 s budget and a 60 s HTTP timeout. Consecutive
// queued actions with the same delay run together in one job and share their variables; they start
// from the runtime variables the inline actions left. Their output is appended to the stored request.
// An action may also ask for one action to run later (ctx.later, WebhookScript's delay()): it is
// carried in the job itself, starts from the request's variables only, and its output is labelled.
import type { RequestRecord, Store, TokenRecord } from '../store/types.js';
import type { Logger } from '../logger.js';
import type { Step } from '../workflows/document.js';
import type { WorkflowService } from '../workflows/service.js';
import { deepFreeze } from '../workflows/steps-cache.js';
import type { ChainResult, LaterAction } from '@capture/sdk/runner';

export const QUEUED_ACTIONS_JOB = 'queued-actions';
export const QUEUED_BUDGET_MS = 120_000;
export const QUEUED_HTTP_TIMEOUT_MS = 60_000;
/** A request that was not stored travels with its job, its body cut to this many bytes. */
const SNAPSHOT_BODY_BYTES = 1024 * 1024;

export interface QueuedGroup {
  delay: number;
  steps: Step[];
}

export interface QueuedJobData {
  token: string;
  request: string;
  steps: string[];
  variables: Record<string, string>;
  /** The request itself, when it was not stored (dont_save, request_limit 0). */
  snapshot?: Omit<RequestRecord, 'body'> & { body: string };
  /** Actions carried in the job (ctx.later) instead of chain steps named by `steps`. */
  inline?: Array<{ type: string; parameters: Record<string, unknown> }>;
  /** Put before each output line of the run (e.g. "Was delayed"). */
  label?: string;
}

/** The label on the output of an action run later (webhook.site shows "Was delayed"). */
export const LATER_LABEL = 'Was delayed';

/** The job that runs one `later` action on a request. */
export function laterJob(token: TokenRecord, record: RequestRecord, action: LaterAction, keepSnapshot: boolean): QueuedJobData {
  const data: QueuedJobData = { token: token.uuid, request: record.uuid, steps: [], inline: [{ type: action.type, parameters: action.parameters }], label: LATER_LABEL, variables: {} };
  if (keepSnapshot) data.snapshot = snapshotOf(record);
  return data;
}

/** Queues a run's `later` actions; returns an output line for each. */
export async function queueLater(jobs: JobQueueLike, now: number, token: TokenRecord, record: RequestRecord, result: Pick<ChainResult, 'later' | 'dontSave'>): Promise<string[]> {
  const lines: string[] = [];
  for (const l of result.later) {
    await jobs.enqueue(QUEUED_ACTIONS_JOB, laterJob(token, record, l, result.dontSave || token.request_limit <= 0), now + l.delay * 1000);
    lines.push(`[${l.from.order} ${l.from.type}] Delayed: ${l.type} runs in ${l.delay} s`);
  }
  return lines;
}

export interface JobQueueLike {
  define<T>(name: string, handler: (data: T) => Promise<void>, opts?: { lockLifetimeMs?: number; concurrency?: number }): void;
  enqueue<T>(name: string, data: T, runAt: Date | number): Promise<string>;
}

/** Splits a chain into the actions that run now and the groups that are queued. */
/** splitQueued's answer for frozen (cached) steps, kept as long as they are. */
const splits = new WeakMap<readonly Step[], { inline: Step[]; groups: QueuedGroup[] }>();

export function splitQueued(steps: Step[]): { inline: Step[]; groups: QueuedGroup[] } {
  if (!Object.isFrozen(steps)) return split(steps);
  const kept = splits.get(steps);
  if (kept) return kept;
  // Frozen too: every run of the token shares it.
  const made = deepFreeze(split(steps));
  splits.set(steps, made);
  return made;
}

function split(steps: Step[]): { inline: Step[]; groups: QueuedGroup[] } {
  const inline: Step[] = [];
  const groups: QueuedGroup[] = [];
  let last: Step | undefined;
  for (const s of steps) {
    if (!s.queue) inline.push(s);
    else if (last?.queue && (last.delay ?? 0) === (s.delay ?? 0)) groups[groups.length - 1]!.steps.push(s);
    else groups.push({ delay: s.delay ?? 0, steps: [s] });
    last = s;
  }
  return { inline, groups };
}

export function snapshotOf(record: RequestRecord): QueuedJobData['snapshot'] {
  return { ...record, body: record.body.subarray(0, SNAPSHOT_BODY_BYTES).toString('base64') };
}

export interface QueuedDeps {
  store: Store;
  workflows: WorkflowService;
  logger: Logger;
  run(token: TokenRecord, record: RequestRecord, steps: Step[], variables: Record<string, string>): Promise<ChainResult>;
  now(): number;
}

export function defineQueuedActions(jobs: JobQueueLike, deps: QueuedDeps): void {
  jobs.define<QueuedJobData>(
    QUEUED_ACTIONS_JOB,
    async (data) => {
      const token = await deps.store.tokens.get(data.token);
      if (!token) return; // deleted meanwhile
      const stored = await deps.store.requests.get(token.uuid, data.request);
      const record = stored ?? (data.snapshot ? { ...data.snapshot, body: Buffer.from(data.snapshot.body, 'base64') } : null);
      if (!record) return; // the request was deleted meanwhile
      let steps: Step[];
      if (data.inline) {
        steps = data.inline.map((s, i) => ({ id: `${data.request}:later:${i}`, type: s.type, parameters: s.parameters, disabled: false }));
      } else {
        const all = await deps.workflows.steps(token);
        steps = data.steps.map((id) => all.find((s) => s.id === id)).filter((s): s is Step => !!s);
      }
      if (!steps.length) return;
      const result = await deps.run(token, record, steps, data.variables);
      const output = data.label ? result.output.map((line) => `[${data.label}] ${line}`) : result.output;
      // What this run asks to run later is queued too (a delay() inside delayed code).
      output.push(...(await queueLater(jobs, deps.now(), token, record, { later: result.later, dontSave: !stored })));
      if (stored) {
        // Re-read: another job on the same request may have added its output meanwhile.
        const current = (await deps.store.requests.get(token.uuid, stored.uuid)) ?? stored;
        await deps.store.requests.update(token.uuid, stored.uuid, {
          custom_action_output: [...current.custom_action_output, ...output],
          custom_action_errors: [...current.custom_action_errors, ...result.errors],
          updated_at: Date.now(),
        });
      }
      if (result.errors.length) deps.logger.info('queued actions reported errors', { request: record.uuid, token: token.uuid, errors: result.errors.length, first: result.errors[0]!.message });
    },
    { lockLifetimeMs: QUEUED_BUDGET_MS + 60_000, concurrency: 4 },
  );
}
