// @capture/sdk/runner: the chain runner. The host runs every capture's chain with it
// (core/actions); @capture/sdk/testing runs one action with it, so a plugin's tests need no host.
export * from './chain/runner.js';
export { MODIFIERS, resolveWithModifiers, template, templateHeaderLines, templateValue, type Resolver } from './chain/templating.js';
export { RequestVariables, VariableScope, requestVariables } from './chain/variables.js';
export { stepParams } from './chain/step-params.js';
export { servicesWith } from './chain/services-with.js';
