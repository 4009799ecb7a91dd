// Providers: a user's connected accounts (API keys, OAuth tokens, SSH key pairs) that actions use
// through `provider_id`. Their kinds come from the plugins (ProviderDefinition); credentials are
// validated by the kind's schema, sealed (core/auth/sealing.ts) before they reach the store, opened
// only for the action that uses them, and never returned by the API.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ActionRegistry, RegisteredProvider } from '../actions/registry.js';
import type { Sealer } from '../auth/sealing.js';
import { NotFound, ValidationError, fromZod } from '../errors.js';
import type { Clock, Providers } from '@capture/sdk';
import type { Page, ProviderRecord, Store } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';

const Name = z.string().trim().min(1).max(100);
const Fields = z.record(z.string(), z.unknown());

export const ProviderCreateBody = z.object({
  type: z.string().min(1).max(64),
  name: Name.optional(),
  credentials: Fields.optional(),
  settings: Fields.optional(),
});

export const ProviderUpdateBody = z.object({
  name: Name.optional(),
  /** Merged into the stored credentials (send only what changes); null removes a field. */
  credentials: z.record(z.string(), z.unknown().nullable()).optional(),
  /** Replaces the settings. */
  settings: Fields.optional(),
});

/** No settings schema: none are accepted. */
const NO_SETTINGS = z.object({}).strict();

/** What the API shows of a provider: never the credentials, only which fields are set. */
export interface ProviderView {
  id: string;
  type: string;
  name: string;
  settings: Record<string, unknown>;
  credential_fields: string[];
  created_at: string;
  updated_at: string;
}

export class ProviderService {
  constructor(
    private readonly store: Pick<Store, 'providers'>,
    private readonly registry: Pick<ActionRegistry, 'provider' | 'providers' | 'ready' | 'deferred'>,
    private readonly sealer: Sealer,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  private async kind(type: string): Promise<RegisteredProvider> {
    // Deferred loading: provider types come with their plugins' code (every plugin: the error names them all).
    if (this.registry.deferred) await this.registry.ready();
    const kind = this.registry.provider(type);
    if (!kind) {
      const known = this.registry.providers().map((p) => p.definition.type);
      throw new ValidationError(`Unknown provider type "${type}"`, { type: [`must be one of: ${known.join(', ') || '(none loaded)'}`] });
    }
    return kind;
  }

  private check(schema: z.ZodType, value: unknown, field: 'credentials' | 'settings'): Record<string, unknown> {
    const r = schema.safeParse(value);
    if (!r.success) throw fromZod({ issues: r.error.issues.map((i) => ({ ...i, path: [field, ...i.path] })) });
    return (r.data ?? {}) as Record<string, unknown>;
  }

  private view(r: ProviderRecord): ProviderView {
    const credentials = this.sealer.open<Record<string, unknown>>(r.secret);
    return { id: r.id, type: r.type, name: r.name, settings: r.settings, credential_fields: Object.keys(credentials).sort(), created_at: formatTimestamp(r.created_at), updated_at: formatTimestamp(r.updated_at) };
  }

  async create(userId: number, body: unknown): Promise<ProviderView> {
    const parsed = ProviderCreateBody.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error);
    const { definition } = await this.kind(parsed.data.type);
    let rawCredentials: unknown = parsed.data.credentials;
    let settingsIn: Record<string, unknown> = parsed.data.settings ?? {};
    if (rawCredentials === undefined && definition.generate) {
      const made = await definition.generate();
      rawCredentials = made.credentials;
      settingsIn = { ...settingsIn, ...made.settings };
    }
    const credentials = this.check(definition.credentials, rawCredentials ?? {}, 'credentials');
    const settings = this.check(definition.settings ?? NO_SETTINGS, settingsIn, 'settings');
    const now = this.clock.now();
    const record: ProviderRecord = {
      id: randomUUID(),
      user_id: userId,
      type: definition.type,
      name: parsed.data.name ?? definition.title,
      settings,
      secret: this.sealer.seal(credentials),
      created_at: now,
      updated_at: now,
    };
    return this.view(await this.store.providers.create(record));
  }

  async get(userId: number, id: string): Promise<ProviderView> {
    return this.view(await this.load(userId, id));
  }

  async list(userId: number, opts: { page: number; perPage: number; type?: string }): Promise<Page<ProviderView>> {
    const page = await this.store.providers.list(userId, opts);
    return { items: page.items.map((r) => this.view(r)), total: page.total };
  }

  async update(userId: number, id: string, body: unknown): Promise<ProviderView> {
    const current = await this.load(userId, id);
    const parsed = ProviderUpdateBody.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error);
    const { definition } = await this.kind(current.type);
    const patch: Partial<Pick<ProviderRecord, 'name' | 'settings' | 'secret'>> = {};
    if (parsed.data.name !== undefined) patch.name = parsed.data.name;
    if (parsed.data.settings !== undefined) patch.settings = this.check(definition.settings ?? NO_SETTINGS, parsed.data.settings, 'settings');
    if (parsed.data.credentials !== undefined) {
      const merged: Record<string, unknown> = { ...this.sealer.open<Record<string, unknown>>(current.secret) };
      for (const [k, v] of Object.entries(parsed.data.credentials)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      patch.secret = this.sealer.seal(this.check(definition.credentials, merged, 'credentials'));
    }
    const updated = await this.store.providers.update(userId, id, patch, this.clock.now());
    if (!updated) throw new NotFound('Provider not found');
    return this.view(updated);
  }

  async delete(userId: number, id: string): Promise<void> {
    if (!(await this.store.providers.delete(userId, id))) throw new NotFound('Provider not found');
  }

  private async load(userId: number, id: string): Promise<ProviderRecord> {
    const r = await this.store.providers.get(userId, id);
    if (!r) throw new NotFound('Provider not found');
    return r;
  }

  /** The SDK's view for one account's actions (null user: an anonymous token has none). */
  forAccount(userId: number | null): Providers {
    return {
      get: async (id, types) => {
        const wanted = typeof types === 'string' ? [types] : [...types];
        if (userId === null) throw new Error('Providers belong to accounts; this URL has no owner, so it cannot use one');
        const r = await this.store.providers.get(userId, String(id).trim());
        if (!r) throw new Error(`Provider ${id} not found in this account`);
        if (!wanted.includes(r.type)) throw new Error(`Provider ${id} is a ${r.type} account; this action needs ${wanted.join(' or ')}`);
        return { id: r.id, type: r.type, name: r.name, settings: r.settings, credentials: this.sealer.open<Record<string, unknown>>(r.secret) };
      },
      saveCredentials: async (id, patch) => {
        if (userId === null) throw new Error('Providers belong to accounts; this URL has no owner, so it cannot use one');
        try {
          await this.update(userId, String(id).trim(), { credentials: patch });
        } catch (e) {
          if (e instanceof NotFound) throw new Error(`Provider ${id} not found in this account`);
          throw e;
        }
      },
    };
  }
}

/** The provider types the loaded plugins define, with JSON Schemas of their fields (GET /provider-types). */
export function providerTypes(registry: Pick<ActionRegistry, 'providers'>): Array<Record<string, unknown>> {
  const schema = (s: z.ZodType) => {
    const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    return rest;
  };
  return registry.providers().map(({ definition: d, plugin }) => ({
    type: d.type,
    title: d.title,
    description: d.description,
    plugin,
    generates_credentials: !!d.generate,
    credentials: schema(d.credentials),
    settings: schema(d.settings ?? NO_SETTINGS),
  }));
}
