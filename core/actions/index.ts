// The action runtime: plugin loader, registry, variables and templating, chain runner.
export { ActionRegistry, DuplicateActionType, parametersJsonSchema } from './registry.js';
export type { ActionTypeInfo, RegisteredAction } from './registry.js';
export { BUILTIN_PLUGINS_DIR, REPO_ROOT, entryModule, loadPlugins } from './loader.js';
export type { LoadPluginsOptions, LoadPluginsResult, LoadedPlugin, PluginFailure, PluginManifest } from './loader.js';
export { DEFAULT_BUDGET_MS, MAX_REPETITIONS, runChain } from './runner.js';
export type { ChainAction, ChainInput, ChainLine, ChainResult } from './runner.js';
export { MODIFIERS, resolveWithModifiers, template, templateValue } from './templating.js';
export { VariableScope, requestVariables } from './variables.js';
export { accountGlobals, registerCoreServices, runOwner, runServices } from './services.js';
export type { GlobalVariableStore } from './services.js';
