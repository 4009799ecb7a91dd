// The action types known to this process, each with the plugin (and container) it came from.
import { container as rootContainer, type DependencyContainer } from '../sdk/container.js';
import { z } from 'zod';
import { ValidationError, type FieldErrors } from '../errors.js';
import type { AnyActionDefinition, AnyProviderDefinition } from '../sdk/index.js';
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
  const schema = z.toJSONSchema(def.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, title: def.title, description: def.description, ...rest };
}

// A field holding `$variable$` can only be checked once the variable is replaced at run time.
const HAS_VARIABLE = /\$[^\s$][^$\n]*\$/;

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

export interface RegisteredProvider {
  definition: AnyProviderDefinition;
  plugin: string;
}

export class ActionRegistry {
  private readonly types = new Map<string, RegisteredAction>();
  private readonly providerTypes = new Map<string, RegisteredProvider>();

  /** Adds a plugin's actions and provider types, all or none. Throws DuplicateActionType. */
  addAll(plugin: string, definitions: AnyActionDefinition[], container: DependencyContainer = rootContainer, providers: AnyProviderDefinition[] = []): void {
    const seenProviders = new Set<string>();
    for (const p of providers) {
      const existing = this.providerTypes.get(p.type);
      if (existing || seenProviders.has(p.type)) throw new Error(`Provider type "${p.type}" is already provided by ${existing?.plugin ?? plugin}`);
      seenProviders.add(p.type);
    }
    const seen = new Set<string>();
    for (const def of definitions) {
      const existing = this.types.get(def.type);
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

  has(type: string): boolean {
    return this.types.has(type);
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
    if (!entry) throw new ValidationError(`Unknown action type "${type}"`, { type: [`Unknown action type "${type}"`] });
    if (entry.definition.creatable === false && !options.allowDeprecated) {
      throw new ValidationError(`Action type "${type}" is deprecated and cannot be created`, { type: ['This action type can no longer be created'] });
    }
    const params = parameters ?? {};
    if (typeof params !== 'object' || Array.isArray(params)) {
      throw new ValidationError('parameters must be an object', { parameters: ['must be an object'] });
    }
    const result = entry.definition.parameters.safeParse(params);
    if (result.success) return params as Record<string, unknown>;
    const errors: FieldErrors = {};
    for (const issue of result.error.issues) {
      const raw = valueAt(params, issue.path);
      if (typeof raw === 'string' && HAS_VARIABLE.test(raw)) continue;
      const key = ['parameters', ...issue.path.map(String)].join('.');
      (errors[key] ??= []).push(raw === undefined && issue.code !== 'custom' ? 'is required' : issue.message);
    }
    const first = Object.entries(errors)[0];
    if (!first) return params as Record<string, unknown>;
    throw new ValidationError(`${first[0]}: ${first[1][0]}`, errors);
  }
}
