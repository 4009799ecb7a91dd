// The host's own parts, for plugin tests that run an action the real way: the actions module a test
// server mounts, the registry and chain runner, the script sandbox, the outbound client and policy,
// the mail module, the provider-type listing, and capture-time redaction. Plugin tests import these
// from here (test/helpers/ is open to them, as the server helpers are), never from core/** directly
// (the lint's capture/import-boundaries rule checks it). Plugin code uses @capture/sdk and its subpaths only.
export { createActionsModule } from '../../core/actions/module.js';
export { ActionRegistry } from '../../core/actions/registry.js';
export { loadPlugins } from '../../core/actions/loader.js';
export { runChain } from '@capture/sdk/runner';
export { createMailModule, type MailInfo } from '../../core/mail/module.js';
export { MAIL_INFO } from '../../core/service-keys.js';
export { createOutboundClient, resolveAllowed, type OutboundPolicy } from '../../core/net/outbound.js';
export { providerTypes } from '../../core/providers/service.js';
export { createSandboxPool } from '../../core/sandbox/index.js';
export { redactRequest } from '../../core/shared/redaction.js';
