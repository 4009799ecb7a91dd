import type { z } from 'zod';
import type { ActionDefinition, PluginDefinition, ProviderDefinition } from './types.js';

const TYPE_NAME = /^[a-z][a-z0-9_]*$/;

/** Declares an action type. Only checks the definition's shape; the registry does the rest. */
export function defineAction<S extends z.ZodType>(def: ActionDefinition<S>): ActionDefinition<S> {
  if (!TYPE_NAME.test(def.type)) throw new Error(`Action type "${def.type}" must be lower_snake_case`);
  return Object.freeze({ creatable: true, sets: [], untemplated: [], ...def });
}

/** Declares a kind of connected account (see ProviderDefinition). */
export function defineProvider<C extends z.ZodType, S extends z.ZodType>(def: ProviderDefinition<C, S>): ProviderDefinition<C, S> {
  if (!TYPE_NAME.test(def.type)) throw new Error(`Provider type "${def.type}" must be lower_snake_case`);
  return Object.freeze({ ...def });
}

/** Declares a plugin: a name, the actions it provides and the kinds of account they use. */
export function definePlugin(def: PluginDefinition): PluginDefinition {
  return Object.freeze({ ...def, actions: [...def.actions], providers: [...(def.providers ?? [])] });
}
