// The action types known to this process, each with the plugin (and container) it came from.
import { container as rootContainer } from '@capture/sdk/container';
import type { AnyActionDefinition, AnyProviderDefinition, DependencyContainer } from '@capture/sdk';
import { parameterErrors } from '@capture/sdk/parameter-errors';
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { secretPaths, type SecretPath } from './secret-params.js';

export interface RegisteredAction {
  definition: AnyActionDefinition;
  plugin: string;
  container: DependencyContainer;
  schema: Record<string, unknown>;
  /** Where its secret parameters are (`secret()` in the SDK). */
  secrets: SecretPath[];
}

export interface ActionTypeInfo {
  type: string;
  title: string;
  category: string;
  description: string;
  sets: string[];
  creatable: boolean;
  plugin: string;
  schema: Record<string, unknown>;
}

export class DuplicateActionType extends Error {
  constructor(
    readonly type: string,
    readonly existingPlugin: string,
  ) {
    super(`Action type "${type}" is already provided by ${existingPlugin}`);
  }
}

/** JSON Schema of an action's parameters as the API accepts them (zod's input side). */
export function parametersJsonSchema(def: AnyActionDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(def.parameters, {
    io: 'input',
    unrepresentable: 'any',
    // zod leaves out the default of a field that transforms its input (variableName()'s `json`):
    // the page names the variables a step sets from it, and a reader of the schema wants it too.
    override: ({ zodSchema, jsonSchema }) => {
      const d = (zodSchema as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def;
      if (d.type === 'default' && jsonSchema.default === undefined && typeof d.defaultValue !== 'function') jsonSchema.default = d.defaultValue as never;
    },
  }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, title: def.title, description: def.description, ...rest };
}

export interface RegisteredProvider {
  definition: AnyProviderDefinition;
  plugin: string;
}

/** A plugin known from its manifest whose code is imported on first use (see `ready`). */
interface DeferredPlugin {
  plugin: string;
  actionTypes: string[];
  providerTypes: string[];
  /** Imports the plugin and adds it (addAll); memoised, so every waiter shares one import. */
  load: () => Promise<void>;
}

export class ActionRegistry {
  private readonly types = new Map<string, RegisteredAction>();
  private readonly providerTypes = new Map<string, RegisteredProvider>();
  /** Action and provider types declared by manifests of plugins not imported yet. */
  private readonly deferredTypes = new Map<string, DeferredPlugin>();
  private readonly deferredProviders = new Map<string, DeferredPlugin>();
  /** Why each type of a deferred plugin that failed to import is unavailable (said on every use). */
  private readonly failedTypes = new Map<string, string>();

  /**
   * Declares a plugin by its manifest without importing it: its types count as taken (a second
   * plugin declaring one is refused) and `ready` imports it. `importPlugin` must end in addAll
   * under the same name; when it throws, the types are forgotten and the error goes to `failed`.
   */
  defer(plugin: string, actionTypes: string[], providerTypes: string[], importPlugin: () => Promise<void>, failed: (err: unknown) => void): void {
    for (const t of actionTypes) {
      const owner = this.types.get(t)?.plugin ?? this.deferredTypes.get(t)?.plugin;
      if (owner) throw new DuplicateActionType(t, owner);
    }
    for (const t of providerTypes) {
      const owner = this.providerTypes.get(t)?.plugin ?? this.deferredProviders.get(t)?.plugin;
      if (owner) throw new Error(`Provider type "${t}" is already provided by ${owner}`);
    }
    let loading: Promise<void> | undefined;
    const entry: DeferredPlugin = {
      plugin,
      actionTypes,
      providerTypes,
      load: () =>
        (loading ??= (async () => {
          try {
            await importPlugin();
          } catch (err) {
            // Logged once (failed); every later use of its types says why they are missing.
            const why = `its plugin ${plugin} failed to load: ${err instanceof Error ? err.message : String(err)}`;
            for (const t of [...actionTypes, ...providerTypes]) if (!this.types.has(t) && !this.providerTypes.has(t)) this.failedTypes.set(t, why);
            failed(err);
          } finally {
            // Only now: until the import settles, `deferred` stays true and `ready` waits for it.
            this.forget(entry);
          }
        })()),
    };
    for (const t of actionTypes) this.deferredTypes.set(t, entry);
    for (const t of providerTypes) this.deferredProviders.set(t, entry);
  }

  private forget(entry: DeferredPlugin): void {
    for (const t of entry.actionTypes) if (this.deferredTypes.get(t) === entry) this.deferredTypes.delete(t);
    for (const t of entry.providerTypes) if (this.deferredProviders.get(t) === entry) this.deferredProviders.delete(t);
  }

  /**
   * Resolves once the plugins declaring `actionTypes` (every deferred plugin when omitted) are
   * imported, so get/validate/list answer for them. Unknown types are ignored (validate names them).
   */
  async ready(actionTypes?: Iterable<string>): Promise<void> {
    if (!this.deferred) return;
    const wanted = new Set<DeferredPlugin>();
    if (actionTypes === undefined) {
      for (const e of this.deferredTypes.values()) wanted.add(e);
      for (const e of this.deferredProviders.values()) wanted.add(e);
    } else {
      for (const t of actionTypes) {
        const e = this.deferredTypes.get(t);
        if (e) wanted.add(e);
      }
    }
    await Promise.all([...wanted].map((e) => e.load()));
  }

  /** Resolves once the plugin declaring provider type `type` is imported. */
  async readyProvider(type: string): Promise<void> {
    await this.deferredProviders.get(type)?.load();
  }

  /**
   * Why `type` is missing: its plugin failed to load (named with the reason), or no plugin
   * provides it. Undefined when the type is registered.
   */
  unavailable(type: string): string | undefined {
    if (this.types.has(type)) return undefined;
    const failed = this.failedTypes.get(type);
    return failed ? `Action type "${type}" is unavailable: ${failed}` : `Unknown action type "${type}"`;
  }

  /**
   * Where `type`'s secret parameters are. A type whose plugin is not imported yet throws rather
   * than answering "none", which would show, store or run its secrets unsealed: await `ready` first.
   */
  secretsOf(type: string): SecretPath[] {
    const entry = this.types.get(type);
    if (entry) return entry.secrets;
    if (this.deferredTypes.has(type)) throw new Error(`Action type "${type}" is not loaded yet: await registry.ready() before reading its secret parameters`);
    return [];
  }

  /** Whether plugins declared but not imported yet remain (a plain flag check: hot paths test it before awaiting `ready`). */
  get deferred(): boolean {
    return this.deferredTypes.size > 0 || this.deferredProviders.size > 0;
  }

  /** Adds a plugin's actions and provider types, all or none. Throws DuplicateActionType. */
  addAll(plugin: string, definitions: AnyActionDefinition[], container: DependencyContainer = rootContainer, providers: AnyProviderDefinition[] = []): void {
    const seenProviders = new Set<string>();
    for (const p of providers) {
      const existing = this.providerTypes.get(p.type) ?? (this.deferredProviders.get(p.type)?.plugin === plugin ? undefined : this.deferredProviders.get(p.type));
      if (existing || seenProviders.has(p.type)) throw new Error(`Provider type "${p.type}" is already provided by ${existing?.plugin ?? plugin}`);
      seenProviders.add(p.type);
    }
    const seen = new Set<string>();
    for (const def of definitions) {
      const deferred = this.deferredTypes.get(def.type);
      const existing = this.types.get(def.type) ?? (deferred && deferred.plugin !== plugin ? deferred : undefined);
      if (existing) throw new DuplicateActionType(def.type, existing.plugin);
      if (seen.has(def.type)) throw new DuplicateActionType(def.type, plugin);
      seen.add(def.type);
    }
    // Schemas are derived first so a schema zod cannot express fails the plugin, not a later request.
    const entries = definitions.map((definition) => {
      const schema = parametersJsonSchema(definition);
      return { definition, plugin, container, schema, secrets: secretPaths(schema) };
    });
    for (const e of entries) this.types.set(e.definition.type, e);
    for (const definition of providers) this.providerTypes.set(definition.type, { definition, plugin });
  }

  provider(type: string): RegisteredProvider | undefined {
    return this.providerTypes.get(type);
  }

  providers(): RegisteredProvider[] {
    return [...this.providerTypes.values()].sort((a, b) => a.definition.type.localeCompare(b.definition.type));
  }

  get(type: string): RegisteredAction | undefined {
    return this.types.get(type);
  }

  /** Known, imported or not yet (deferred). */
  has(type: string): boolean {
    return this.types.has(type) || this.deferredTypes.has(type);
  }

  list(): ActionTypeInfo[] {
    return [...this.types.values()]
      .map(({ definition: d, plugin, schema }) => ({
        type: d.type,
        title: d.title,
        category: d.category,
        description: d.description,
        sets: d.sets ?? [],
        creatable: d.creatable !== false,
        plugin,
        schema,
      }))
      .sort((a, b) => a.type.localeCompare(b.type));
  }

  /**
   * Checks an action definition from the API. Throws a 422 ValidationError naming the field
   * (`type`, `parameters.mode`...). Fields holding `$variables$` are checked at run time instead.
   * Returns the parameters as given (variables must stay unreplaced in storage).
   */
  validate(type: string, parameters: unknown, options: { allowDeprecated?: boolean } = {}): Record<string, unknown> {
    const entry = this.types.get(type);
    if (!entry) {
      if (this.deferredTypes.has(type)) throw new Error(`Action type "${type}" is not loaded yet: await registry.ready() before validating`);
      const why = this.unavailable(type)!;
      throw new ValidationError(why, { type: [why] });
    }
    if (entry.definition.creatable === false && !options.allowDeprecated) {
      throw new ValidationError(`Action type "${type}" is deprecated and cannot be created`, { type: ['This action type can no longer be created'] });
    }
    const params = parameters ?? {};
    if (typeof params !== 'object' || Array.isArray(params)) {
      throw new ValidationError('parameters must be an object', { parameters: ['must be an object'] });
    }
    const problem = parameterErrors(entry.definition, params as Record<string, unknown>);
    if (problem) throw new ValidationError(problem.message, problem.errors);
    return params as Record<string, unknown>;
  }
}
