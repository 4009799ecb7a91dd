// @capture/sdk, the root of the plugin SDK: what every plugin uses to declare its actions and reach
// the host's services. Helpers for some plugins only are subpaths (@capture/sdk/oauth, /sql,
// /redaction, /headers, /bytes, ...: the exports of package.json); tests use @capture/sdk/testing.
// A plugin imports only these, never core internals; third-party plugins that export a factory get
// this root as its argument.

export { z } from 'zod';
export type { DependencyContainer, InjectionToken } from 'tsyringe';
export { defineAction, definePlugin, defineProvider } from './define.js';
export type {
  ActionContext,
  ActionDefinition,
  AnyActionDefinition,
  AnyProviderDefinition,
  CapturedFile,
  CapturedRequest,
  LogOptions,
  PluginDefinition,
  ProviderDefinition,
  ResponseDraft,
  TokenInfo,
  Variables,
} from './types.js';
export type {
  Clock,
  Counters,
  DatabaseQueryResult,
  Databases,
  GlobalVariables,
  HttpClient,
  HttpRequest,
  HttpResponse,
  HttpSession,
  Logger,
  LogLevel,
  Network,
  PerAccount,
  Provider,
  Providers,
  RequestReader,
  RunOwner,
  Services,
  TemplateInfo,
  Templates,
} from './services.js';
// Injection tokens: the services a plugin resolves from its container.
export { CLOCK, COUNTERS, DATABASES, GLOBAL_VARIABLES, HTTP_CLIENT, LOGGER, NETWORK, PROVIDERS, REQUESTS, SERVICES, TEMPLATES, systemClock } from './services.js';
export { MAILER } from './mail.js';
export type { Mailer, OutgoingAttachment, OutgoingMail, SentMail } from './mail.js';
export { SANDBOX } from './sandbox.js';
export type { SandboxPool } from './sandbox.js';
// Parameter schema pieces.
export { boolean, choice, integer, numeric, optionalPort, optionalText, providerId, secret, variableName } from './params.js';
export type { Bounds } from './params.js';
