// The action runtime: plugin loader, registry, variables and templating, chain runner.
export { ActionRegistry, DuplicateActionType, parametersJsonSchema } from './registry.js';
export type { ActionTypeInfo, RegisteredAction } from './registry.js';
export { BUILTIN_PLUGINS_DIR, REPO_ROOT, entryModule, loadPlugins } from './loader.js';
export type { LoadPluginsOptions, LoadPluginsResult, LoadedPlugin, PluginFailure, PluginManifest } from './loader.js';
export { DEFAULT_BUDGET_MS, MAX_REPETITIONS, runChain } from '@capture/sdk/runner';
export type { ChainAction, ChainInput, ChainLine, ChainResult } from '@capture/sdk/runner';
export { MODIFIERS, resolveWithModifiers, template, templateValue } from '@capture/sdk/runner';
export { VariableScope, requestVariables } from '@capture/sdk/runner';
export { accountGlobals, registerCoreServices, runOwner, runServices } from './services.js';
export type { GlobalVariableStore } from './services.js';
