// Action templates (Templates API): a user's reusable list of actions with predefined variables,
// included in a chain by the `template` action. Included steps are expanded when the chain runs,
// so a changed template changes every chain that includes it.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ActionRegistry } from '../actions/registry.js';
import type { ParameterSecrets } from '../actions/secret-params.js';
import { NotFound, ValidationError, fromZod, type FieldErrors } from '../errors.js';
import type { Clock, TemplateInfo, Templates } from '@capture/sdk';
import type { Page, Store, TemplateRecord } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';
import { ActionBody } from '../workflows/service.js';
import type { Step } from '../workflows/document.js';

export const TemplateVariable = z.object({ name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _, . or -'), value: z.coerce.string().max(65_536) });

const TemplateActions = z.array(ActionBody.extend({ uuid: z.string().uuid().optional() })).max(50);
const TemplateVariables = z.array(TemplateVariable).max(100);

export const TemplateBody = z.object({
  name: z.string().trim().min(1).max(100),
  actions: TemplateActions.default([]),
  variables: TemplateVariables.default([]),
});

/** POST: `from_token` names the token the actions were copied from (a secret's marker is its stored value). */
export const TemplateCreateBody = TemplateBody.extend({ from_token: z.string().min(1).max(64).optional() });

/** PUT: only what is sent changes. */
export const TemplateUpdateBody = z.object({ name: TemplateBody.shape.name.optional(), actions: TemplateActions.optional(), variables: TemplateVariables.optional() });

/** How deep templates may include templates. */
export const MAX_TEMPLATE_DEPTH = 3;

export interface TemplateView {
  id: number;
  name: string;
  variables: Array<{ name: string; value: string }>;
  team_id: null;
  user_id: number;
  created_at: string;
  updated_at: string;
  actions: Array<Record<string, unknown>>;
}

/** Whether expand has anything to do: an enabled `template` step (most chains have none). */
export function includesTemplates(steps: readonly Step[]): boolean {
  for (const s of steps) if (s.type === 'template' && !s.disabled) return true;
  return false;
}

export class TemplateService {
  constructor(
    private readonly store: Pick<Store, 'templates'>,
    private readonly registry: Pick<ActionRegistry, 'validate' | 'ready' | 'deferred'>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly secrets: ParameterSecrets,
  ) {}

  /** Waits for the plugins of `types` (deferred loading): validating and masking need their code. */
  private async loaded(types: Iterable<string>): Promise<void> {
    if (this.registry.deferred) await this.registry.ready(types);
  }

  /** `t` as the API shows it; its action types' plugins must be loaded (`loaded`). */
  private view(t: TemplateRecord): TemplateView {
    return {
      id: t.id,
      name: t.name,
      variables: t.variables,
      team_id: null,
      user_id: t.user_id,
      created_at: formatTimestamp(t.created_at),
      updated_at: formatTimestamp(t.updated_at),
      actions: t.actions.map((s, i) => ({
        uuid: s.id,
        template_id: t.id,
        type: s.type,
        order: i + 1,
        name: s.name ?? null,
        condition: s.condition ?? null,
        condition_action: s.condition_action ?? null,
        queue: false,
        delay: 0,
        parameters: this.secrets.mask(s.type, (s.parameters ?? {}) as Record<string, unknown>),
        created_at: formatTimestamp(t.created_at),
        updated_at: formatTimestamp(t.updated_at),
      })),
    };
  }

  /**
   * Validated steps from the API's action list, ordered by `order`, conditions checked, secrets
   * sealed (a secret's marker stands for the value stored in the action of the same uuid).
   */
  private steps(actions: z.infer<typeof TemplateActions>, previous: Step[] = []): Step[] {
    const stored = new Map(previous.map((s) => [s.id, s]));
    const ordered = actions.map((a, i) => ({ a, i })).sort((x, y) => (x.a.order ?? x.i) - (y.a.order ?? y.i) || x.i - y.i);
    const steps: Step[] = [];
    for (const { a, i } of ordered) {
      try {
        const parameters = this.registry.validate(a.type, this.secrets.resolve(a.type, a.parameters, a.uuid ? stored.get(a.uuid) : undefined));
        steps.push({
          id: a.uuid ?? randomUUID(),
          type: a.type,
          ...(a.name ? { name: a.name } : {}),
          parameters: this.secrets.seal(a.type, parameters),
          disabled: a.disabled ?? false,
          condition: a.condition ?? null,
          condition_action: a.condition_action ?? null,
        });
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        const errors: FieldErrors = {};
        for (const [k, v] of Object.entries(e.errors ?? {})) errors[`actions.${i}.${k}`] = v;
        const first = Object.entries(errors)[0];
        throw new ValidationError(first ? `${first[0]}: ${first[1][0]}` : e.message, errors);
      }
    }
    steps.forEach((s, i) => {
      if (s.condition && !steps.slice(0, i).some((p) => p.id === s.condition)) {
        throw new ValidationError(`actions.${i}.condition: must be the uuid of an earlier action of the template`, { [`actions.${i}.condition`]: ['must be the uuid of an earlier action of the template'] });
      }
    });
    return steps;
  }

  /** `from`: the stored steps of the chain the actions were copied from, whose secrets markers stand for. */
  async create(userId: number, body: unknown, from: Step[] = []): Promise<TemplateView> {
    const b = TemplateBody.safeParse(body ?? {});
    if (!b.success) throw fromZod(b.error);
    await this.loaded(b.data.actions.map((a) => a.type));
    const now = this.clock.now();
    const t = await this.store.templates.create({ user_id: userId, name: b.data.name, variables: b.data.variables, actions: this.steps(b.data.actions, from), created_at: now, updated_at: now });
    return this.view(t);
  }

  async get(userId: number, id: number): Promise<TemplateView> {
    const t = await this.load(userId, id);
    await this.loaded(t.actions.map((s) => s.type));
    return this.view(t);
  }

  async list(userId: number, page: number, perPage: number): Promise<Page<TemplateView>> {
    const p = await this.store.templates.list(userId, { page, perPage });
    await this.loaded(p.items.flatMap((t) => t.actions.map((s) => s.type)));
    return { items: p.items.map((t) => this.view(t)), total: p.total };
  }

  async update(userId: number, id: number, body: unknown): Promise<TemplateView> {
    const current = await this.load(userId, id);
    const b = TemplateUpdateBody.safeParse(body ?? {});
    if (!b.success) throw fromZod(b.error);
    const patch: Partial<Pick<TemplateRecord, 'name' | 'variables' | 'actions'>> = {};
    if (b.data.name !== undefined) patch.name = b.data.name;
    if (b.data.variables !== undefined) patch.variables = b.data.variables;
    await this.loaded([...(b.data.actions ?? []), ...current.actions].map((a) => a.type));
    if (b.data.actions !== undefined) patch.actions = this.steps(b.data.actions, current.actions as unknown as Step[]);
    const t = await this.store.templates.update(userId, id, patch, this.clock.now());
    if (!t) throw new NotFound('Template not found');
    return this.view(t);
  }

  async delete(userId: number, id: number): Promise<void> {
    if (!(await this.store.templates.delete(userId, id))) throw new NotFound('Template not found');
  }

  private async load(userId: number, id: number): Promise<TemplateRecord> {
    const t = Number.isSafeInteger(id) ? await this.store.templates.get(userId, id) : null;
    if (!t) throw new NotFound('Template not found');
    return t;
  }

  /**
   * One account's templates as actions read them (the SDK's TEMPLATES service): by id, else by
   * name (the oldest of that name); secret parameters masked as the API shows them.
   */
  forAccount(userId: number | null): Templates {
    return {
      get: async (idOrName) => {
        if (userId === null) throw new Error('Templates belong to accounts; this URL has no owner');
        const t = (await this.byId(userId, idOrName)) ?? (await this.byName(userId, String(idOrName)));
        if (!t) throw new Error(`Template ${JSON.stringify(idOrName)} not found in this account`);
        await this.loaded(t.actions.map((s) => s.type));
        const view = this.view(t);
        return {
          id: t.id,
          name: t.name,
          variables: t.variables,
          actions: view.actions.map((a) => ({
            uuid: String(a.uuid),
            type: String(a.type),
            name: (a.name as string | null) ?? null,
            disabled: t.actions.find((s) => s.id === a.uuid)?.disabled === true,
            parameters: a.parameters as Record<string, unknown>,
          })),
        } satisfies TemplateInfo;
      },
    };
  }

  private async byId(userId: number, id: string | number): Promise<TemplateRecord | null> {
    const n = typeof id === 'number' ? id : /^\d+$/.test(id) ? Number(id) : NaN;
    return Number.isSafeInteger(n) ? this.store.templates.get(userId, n) : null;
  }

  /** The oldest template of this name (templates are listed by id). */
  private async byName(userId: number, name: string): Promise<TemplateRecord | null> {
    const perPage = 100;
    for (let page = 1; ; page++) {
      const p = await this.store.templates.list(userId, { page, perPage });
      const found = p.items.filter((t) => t.name === name).sort((a, b) => a.id - b.id)[0];
      if (found) return found;
      if (page * perPage >= p.total || !p.items.length) return null;
    }
  }

  /**
   * The chain with every enabled `template` step replaced by a `template_include` step (which sets
   * the template's variables, then the step's own) followed by the template's actions. A template
   * that cannot be included stays a `template` step, whose run reports why.
   */
  async expand(userId: number | null, steps: Step[], depth = 0, seen: number[] = []): Promise<Step[]> {
    if (!includesTemplates(steps)) return steps;
    const out: Step[] = [];
    for (const s of steps) {
      if (s.type !== 'template' || s.disabled) {
        out.push(s);
        continue;
      }
      const id = Number(s.parameters.template_id);
      const fail = (reason: string) => out.push({ ...s, parameters: { ...s.parameters, unavailable: reason } });
      if (userId === null) fail('Templates belong to accounts; this URL has no owner');
      else if (seen.includes(id)) fail(`Template ${id} includes itself`);
      else if (depth >= MAX_TEMPLATE_DEPTH) fail(`Templates are included at most ${MAX_TEMPLATE_DEPTH} deep`);
      else {
        const t = Number.isSafeInteger(id) ? await this.store.templates.get(userId, id) : null;
        if (!t) fail(`Template ${s.parameters.template_id} not found in this account`);
        else {
          const own = Array.isArray(s.parameters.variables) ? (s.parameters.variables as Array<{ name: string; value: string }>) : [];
          out.push({ ...s, type: 'template_include', parameters: { template_id: t.id, name: t.name, variables: [...t.variables, ...own] } });
          out.push(...(await this.expand(userId, t.actions as unknown as Step[], depth + 1, [...seen, id])));
        }
      }
    }
    return out;
  }
}
