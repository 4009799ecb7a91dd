// The public plugin SDK. A plugin imports only from here (or receives this module from the loader
// when it exports a factory), never from core internals.

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
export type { Clock, Counters, DatabaseQueryResult, Databases, GlobalVariables, HttpClient, HttpRequest, HttpResponse, HttpSession, Logger, LogLevel, Network, Provider, Providers, RequestReader, Services } from './services.js';
export { CLOCK, COUNTERS, GLOBAL_VARIABLES, HTTP_CLIENT, LOGGER, NETWORK, consoleLogger, fetchHttpClient, openNetwork, systemClock } from './services.js';
export { DATABASES, PROVIDERS, REQUESTS, SERVICES, type PerAccount, type RunOwner } from './services.js';
export { TEMPLATES, type TemplateInfo, type Templates } from './services.js';
export { boolean, integer, numeric, optionalText, providerId, secret, variableName } from './params.js';
export type { Bounds } from './params.js';
export { OPERATORS, OPERATOR_LABELS, UNARY_OPERATORS, VALUE_OPERATORS, compare, isDecimal, isNumeric } from './operators.js';
export type { Operator, ValueOperator } from './operators.js';
export { UTC, offsetAt, offsetText, parseZone, zoneAbbr } from './time-zone.js';
export type { Zone } from './time-zone.js';
export { MAX_DOCUMENT_BYTES, MAX_PARSE_DEPTH, ParseLimitError, checkParseLimits, deeperThan } from './parse-limits.js';
export type { ParseLimits, TextFormat } from './parse-limits.js';
export { REGEX_TIMEOUT_MS, RegexTimeout, parseRegex, regexExec, regexMatchAll, regexReplace, regexTest } from './regex.js';
export { SANDBOX } from './sandbox.js';
export { lazyImport } from './lazy.js';
export { untilAborted } from './abort.js';
export { postgresTypes } from './postgres.js';
export { FairQueue, accountOf } from './fair-share.js';
export { SCRIPT_OUTPUT_MAX_BYTES, SCRIPT_OUTPUT_MAX_LINE_BYTES, ScriptOutput } from './output.js';
export type { OutputLimits } from './output.js';
export { headerLines, headerProblem, headerSafe, parseHeaderLines, sendableHeaders, setResponseHeader } from './headers.js';
export { BYTES_END, BYTES_START, bytesText, hasBytes, textByteLength, textBytes } from './bytes.js';
export type { HostCalls, SandboxNatsCall, SandboxPool, SandboxResponseHeaders, SandboxResult } from './sandbox.js';
export { expiryMs, forgetOAuthRenewals, OAuthAccount, oauthCredentials, openOAuthAccount } from './oauth.js';
export type { OAuthContext, OAuthCredentials, OAuthProviderKind } from './oauth.js';
export { MAX_CELL_VARIABLES, cellColumns, cellRows } from './cells.js';
export { ActionRedactionRuleSchema, DEFAULT_REPLACEMENT, REDACTION_PRESETS, RedactionRuleSchema, RedactionSettingsSchema, luhnValid } from './redaction.js';
export type { ActionRedactionRule, RedactionEntry, RedactionRule, RedactionSettings } from './redaction.js';
export { MAILER } from './mail.js';
export type { Mailer, OutgoingAttachment, OutgoingMail, SentMail } from './mail.js';
export { MIXED_MESSAGE, ParameterError, bindParameters, mixesStyles, scanPlaceholders } from './sql-placeholders.js';
export type { BoundStatement, Dialect, ParamsInput, Placeholder, SqlValue } from './sql-placeholders.js';
export type { Cell } from './cells.js';
