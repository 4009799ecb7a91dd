// The host's own parts, for plugin tests that run an action the real way: the actions module a test
// server mounts, the registry and chain runner, the script sandbox, the outbound client and policy,
// the mail module, the provider-type listing, and capture-time redaction. Plugin tests import these
// from here (or core/sdk/testing.ts, or the SDK index), never from core/** directly
// (test/import-boundaries.test.ts checks it). Plugin code under src/ uses the SDK index only.
export { createActionsModule } from '../actions/module.js';
export { ActionRegistry } from '../actions/registry.js';
export { loadPlugins } from '../actions/loader.js';
export { runChain } from '../actions/runner.js';
export { createMailModule, type MailInfo } from '../mail/module.js';
export { MAIL_INFO } from '../service-keys.js';
export { createOutboundClient, resolveAllowed, type OutboundPolicy } from '../net/outbound.js';
export { providerTypes } from '../providers/service.js';
export { createSandboxPool } from '../sandbox/index.js';
export { redactRequest } from './redaction.js';
