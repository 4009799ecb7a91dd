// A token's action chain, stored as one workflow document. The webhook.site-style actions API
// (`/token/{id}/actions`) reads and edits the same document.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ActionRegistry } from '../actions/registry.js';
import type { ParameterSecrets } from '../actions/secret-params.js';
import { Conflict, NotFound, ValidationError, fromZod, type FieldErrors } from '../errors.js';
import type { Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';
import { throwFieldErrors } from './kernel.js';
import { emptyDocument, MAX_STEPS, normaliseDocument, type Step, type TokenActionsDocument } from './document.js';
import { createStepsCache, type StepsCache } from './steps-cache.js';

/** An action as the actions API shows it. */
export interface ActionView {
  uuid: string;
  token_id: string;
  type: string;
  order: number;
  name: string | null;
  disabled: boolean;
  condition: string | null;
  condition_action: 'true' | 'false' | null;
  queue: boolean;
  delay: number;
  queue_profile: string | null;
  parameters: Record<string, unknown>;
}

export const ActionBody = z.object({
  type: z.string().min(1).max(64),
  order: z.coerce.number().int().min(0).max(10_000).optional(),
  name: z.string().min(1).max(100).nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).default({}),
  disabled: z.boolean().nullable().optional(),
  condition: z.string().uuid().nullable().optional(),
  condition_action: z.enum(['true', 'false']).nullable().optional(),
  queue: z.boolean().nullable().optional(),
  delay: z.coerce.number().int().min(0).max(86400).nullable().optional(),
  queue_profile: z.string().uuid().nullable().optional(),
});

/** `step` as the actions API shows it: secret parameters show as the marker. */
export function actionView(tokenId: string, step: Step, index: number, secrets: ParameterSecrets): ActionView {
  return {
    uuid: step.id,
    token_id: tokenId,
    type: step.type,
    order: index + 1,
    name: step.name ?? null,
    disabled: step.disabled ?? false,
    condition: step.condition ?? null,
    condition_action: step.condition_action ?? null,
    queue: step.queue ?? false,
    delay: step.delay ?? 0,
    queue_profile: step.queue_profile ?? null,
    parameters: secrets.mask(step.type, step.parameters),
  };
}

export class WorkflowService {
  constructor(
    private readonly store: Store,
    private readonly registry: ActionRegistry,
    private readonly clock: Clock,
    private readonly secrets: ParameterSecrets,
  ) {
    this.cache = createStepsCache(clock);
  }

  /** What captures run, per token (a save here drops its entry; other processes' are seen within a second). */
  private readonly cache: StepsCache;

  /** Waits for the plugins of `types` (deferred loading): validating and masking need their code. */
  private async loaded(types: Iterable<string>): Promise<void> {
    if (this.registry.deferred) await this.registry.ready(types);
  }

  /** The chain as a document to show or export: secret parameters appear as the marker. */
  async document(token: TokenRecord): Promise<TokenActionsDocument> {
    const stored = await this.store.workflows.getForToken(token.uuid);
    const doc = stored ? (stored.document as unknown as TokenActionsDocument) : emptyDocument(token.uuid);
    await this.loaded(doc.spec.steps.map((s) => s.type));
    const steps = doc.spec.steps.map((s) => ({ ...s, parameters: this.secrets.mask(s.type, s.parameters) }));
    return { ...doc, metadata: { ...doc.metadata, token: token.alias ?? token.uuid }, spec: { ...doc.spec, steps } };
  }

  /** How many secrets `document` shows as the marker (an export warns that they are left out). */
  async secretCount(token: TokenRecord): Promise<number> {
    return (await this.steps(token)).reduce((n, s) => n + this.secrets.count(s.type, s.parameters), 0);
  }

  /** The stored steps, their action types' plugins loaded (secrets can be masked, opened, sealed). */
  async steps(token: TokenRecord): Promise<Step[]> {
    const stored = await this.store.workflows.getForToken(token.uuid);
    const steps = stored ? (stored.document as unknown as TokenActionsDocument).spec.steps : [];
    await this.loaded(steps.map((s) => s.type));
    return steps;
  }

  /**
   * The steps a capture runs: `steps`, kept for up to a second (frozen, shared by every capture of
   * the token). Edits read `steps`, never this.
   */
  chainSteps(token: TokenRecord): Promise<Step[]> {
    return this.cache.get(token.uuid, () => this.steps(token));
  }

  /**
   * Validates every step's parameters against its action type, a secret's marker standing for the
   * value stored in the step of the same ID; one 422 naming every `spec.steps.N.parameters.x` at once.
   */
  private checkSteps(steps: Step[], previous: Step[], prefix: (i: number) => string, allowDeprecated: (s: Step) => boolean): Step[] {
    const stored = new Map(previous.map((s) => [s.id, s]));
    const errors: FieldErrors = {};
    const checked = steps.map((s, i) => {
      const inlineOnly = s.queue ? this.registry.notQueueable(s.type) : undefined;
      if (inlineOnly) (errors[`${prefix(i)}queue`] ??= []).push(inlineOnly);
      try {
        const parameters = this.secrets.resolve(s.type, s.parameters, stored.get(s.id));
        this.registry.validate(s.type, parameters, { allowDeprecated: allowDeprecated(s) });
        return { ...s, parameters };
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        for (const [k, v] of Object.entries(e.errors ?? { _: [e.message] })) errors[`${prefix(i)}${k}`] = v;
        return s;
      }
    });
    const first = Object.entries(errors)[0];
    if (first) throw new ValidationError(`${first[0]}: ${first[1][0]}`, errors);
    return checked;
  }

  /** A document checked as `apply` would store it; `until` checks only the steps up to that index. */
  private async prepare(token: TokenRecord, input: unknown, until?: number): Promise<{ doc: TokenActionsDocument; steps: Step[] }> {
    const previous = await this.steps(token);
    const doc = normaliseDocument(input, previous);
    await this.loaded(doc.spec.steps.map((s) => s.type));
    const known = new Set(previous.map((s) => `${s.id}:${s.type}`));
    // A deprecated type may stay where it already was; it may not be added.
    const upTo = until === undefined ? doc.spec.steps : doc.spec.steps.slice(0, until + 1);
    const steps = this.checkSteps(
      upTo,
      previous,
      (i) => `spec.steps.${i}.`,
      (s) => known.has(`${s.id}:${s.type}`),
    );
    await this.checkProfiles(token, steps, (i) => `spec.steps.${i}.`);
    return { doc, steps };
  }

  /** Replaces the token's chain with a document (PUT /token/{id}/workflow, workflows/ at start-up). */
  async apply(token: TokenRecord, input: unknown): Promise<TokenActionsDocument> {
    const { doc, steps } = await this.prepare(token, input);
    await this.save(token, steps, doc);
    return this.document(token);
  }

  /**
   * The steps of a document up to index `until` (all without it) as the runtime would run them,
   * nothing stored: a test of unsaved edits. Later steps need only be well-formed.
   */
  async trial(token: TokenRecord, input: unknown, until?: number): Promise<Step[]> {
    return (await this.prepare(token, input, until)).steps;
  }

  private async save(token: TokenRecord, steps: Step[], base?: TokenActionsDocument): Promise<void> {
    const doc = base ?? (await this.document(token));
    // Secrets are sealed here, which also seals those stored in plain before sealing existed.
    const sealed = steps.map((s) => ({ ...s, parameters: this.secrets.seal(s.type, s.parameters) }));
    const stored = { ...doc, metadata: { ...doc.metadata, token: token.uuid }, spec: { steps: sealed } };
    await this.store.workflows.putForToken(token.uuid, stored as unknown as Record<string, unknown>, this.clock.now());
    this.cache.forget(token.uuid);
  }

  async list(token: TokenRecord): Promise<ActionView[]> {
    return (await this.steps(token)).map((s, i) => actionView(token.uuid, s, i, this.secrets));
  }

  private parseBody(raw: unknown) {
    const r = ActionBody.safeParse(raw ?? {});
    if (!r.success) throw fromZod(r.error);
    return r.data;
  }

  private place(steps: Step[], step: Step, order: number | undefined): Step[] {
    const rest = steps.filter((s) => s.id !== step.id);
    const at = order === undefined ? rest.length : Math.max(0, Math.min(rest.length, order - 1));
    return [...rest.slice(0, at), step, ...rest.slice(at)];
  }

  /** A 422 on `queue_profile` (`<prefix>queue_profile`) naming a profile that is not the token owner's. */
  private async checkProfiles(token: TokenRecord, steps: Step[], prefix: (i: number) => string): Promise<void> {
    const errors: FieldErrors = {};
    for (const [i, s] of steps.entries()) {
      if (!s.queue_profile) continue;
      const p = await this.store.queueProfiles.get(s.queue_profile);
      if (!p || p.user_id !== token.user_id) (errors[`${prefix(i)}queue_profile`] ??= []).push("must be the ID of a queue profile of the token's owner");
    }
    throwFieldErrors(errors);
  }

  /** A 422 on `queue` when the step is queued but its type only makes sense inline. */
  private checkQueueable(step: Step): void {
    const why = step.queue ? this.registry.notQueueable(step.type) : undefined;
    if (why) throw new ValidationError(`queue: ${why}`, { queue: [why] });
  }

  private checkCondition(steps: Step[], step: Step): void {
    if (step.condition && !steps.some((s) => s.id === step.condition && s.id !== step.id)) {
      throw new ValidationError('condition: no action of this token has this ID', { condition: ['must be the ID of an action of this token'] });
    }
  }

  async create(token: TokenRecord, raw: unknown): Promise<ActionView> {
    const body = this.parseBody(raw);
    await this.loaded([body.type]);
    const params = this.registry.validate(body.type, this.secrets.resolve(body.type, body.parameters));
    const steps = await this.steps(token);
    // The chain's document (GET /token/{id}/workflow) could not hold one more.
    if (steps.length >= MAX_STEPS) throw new Conflict(`This token already has ${MAX_STEPS} actions, the most a chain holds: delete one first`);
    const step: Step = {
      id: randomUUID(),
      type: body.type,
      ...(body.name ? { name: body.name } : {}),
      parameters: params,
      disabled: body.disabled ?? false,
      condition: body.condition ?? null,
      condition_action: body.condition_action ?? null,
      ...(body.queue ? { queue: true, delay: body.delay ?? 0 } : {}),
      ...(body.queue && body.queue_profile ? { queue_profile: body.queue_profile } : {}),
    };
    await this.checkProfiles(token, [step], () => '');
    this.checkQueueable(step);
    this.checkCondition(steps, step);
    const next = this.place(steps, step, body.order);
    await this.save(token, next);
    return actionView(token.uuid, step, next.indexOf(step), this.secrets);
  }

  async update(token: TokenRecord, actionId: string, raw: unknown): Promise<ActionView> {
    const steps = await this.steps(token);
    const current = steps.find((s) => s.id === actionId);
    if (!current) throw new NotFound('Action not found');
    const body = this.parseBody(raw);
    await this.loaded([body.type]);
    const params = this.registry.validate(body.type, this.secrets.resolve(body.type, body.parameters, current), { allowDeprecated: body.type === current.type });
    const step: Step = {
      ...current,
      type: body.type,
      parameters: params,
      ...(body.name !== undefined ? { name: body.name ?? undefined } : {}),
      ...(body.disabled !== undefined ? { disabled: body.disabled ?? false } : {}),
      ...(body.condition !== undefined ? { condition: body.condition } : {}),
      ...(body.condition_action !== undefined ? { condition_action: body.condition_action } : {}),
      ...(body.queue !== undefined ? { queue: body.queue ?? false } : {}),
      ...(body.delay !== undefined ? { delay: body.delay ?? 0 } : {}),
      ...(body.queue_profile !== undefined ? { queue_profile: body.queue_profile } : {}),
    };
    if (!step.queue_profile) delete step.queue_profile;
    await this.checkProfiles(token, [step], () => '');
    this.checkQueueable(step);
    this.checkCondition(steps, step);
    const next = this.place(steps, step, body.order ?? steps.indexOf(current) + 1);
    await this.save(token, next);
    return actionView(token.uuid, step, next.indexOf(step), this.secrets);
  }

  /**
   * A step to try out (test-action) as the runtime would run it: a secret's marker stands for the
   * value stored in the action `actionId` (when it is of the same type).
   */
  async trialParameters(token: TokenRecord, actionId: string | undefined, type: string, parameters: Record<string, unknown>): Promise<Record<string, unknown>> {
    const stored = actionId ? (await this.steps(token)).find((s) => s.id === actionId) : undefined;
    await this.loaded([type]);
    return this.registry.validate(type, this.secrets.resolve(type, parameters, stored));
  }

  /** Disables one action of the chain; false when the chain has no such (enabled) action. */
  async disable(token: TokenRecord, actionId: string): Promise<boolean> {
    const steps = await this.steps(token);
    if (!steps.some((s) => s.id === actionId && !s.disabled)) return false;
    await this.save(
      token,
      steps.map((s) => (s.id === actionId ? { ...s, disabled: true } : s)),
    );
    return true;
  }

  async remove(token: TokenRecord, actionId: string): Promise<void> {
    const steps = await this.steps(token);
    if (!steps.some((s) => s.id === actionId)) throw new NotFound('Action not found');
    await this.save(
      token,
      steps.filter((s) => s.id !== actionId).map((s) => (s.condition === actionId ? { ...s, condition: null } : s)),
    );
  }

  /** Copies a template token's chain onto a clone (new step IDs, conditions remapped). */
  async copy(from: TokenRecord, to: TokenRecord): Promise<void> {
    const steps = await this.steps(from);
    if (!steps.length) return;
    const ids = new Map(steps.map((s) => [s.id, randomUUID()]));
    const copied = steps.map((s) => ({ ...s, id: ids.get(s.id)!, condition: s.condition ? (ids.get(s.condition) ?? null) : s.condition }));
    await this.save(to, copied, { ...(await this.document(from)), metadata: { token: to.uuid } });
  }
}
