import type { DependencyContainer } from 'tsyringe';
import type { z } from 'zod';
import type { ActionRedactionRule } from './redaction.js';
import type { CapturedRequest } from './request.js';
import type { Services } from './services.js';

export type { CapturedFile, CapturedRequest } from './request.js';

export interface TokenInfo {
  uuid: string;
  alias: string | null;
  user_id: number | null;
  default_status: number;
  default_content: string;
  default_content_type: string;
}

/** The response being built. Starts as the token's default response; actions change it in place. */
export interface ResponseDraft {
  status: number;
  content: string | Buffer;
  contentType: string;
  headers: Record<string, string>;
}

export interface Variables {
  /** Resolves like `$name$` does (runtime, request, global variables; modifiers; JSON paths). */
  get(name: string): string | undefined;
  set(name: string, value: string | number | boolean): void;
  has(name: string): boolean;
  /** Runtime and request variables (not the global ones). */
  all(): Record<string, string>;
}

export interface LogOptions {
  /** Render the line as Markdown where output is shown. */
  markdown?: boolean;
}

export interface ActionContext<P = Record<string, unknown>> {
  /** Parameters after `$variable$` replacement and schema parsing. */
  params: P;
  /** Parameters as configured, before replacement (e.g. to see which variable a field names). */
  rawParams: Record<string, unknown>;
  action: { uuid: string; type: string; order: number };
  token: TokenInfo;
  request: CapturedRequest;
  rawBody: Buffer;
  response: ResponseDraft;
  vars: Variables;
  /** Replaces variables in a string computed at run time (parameters are already replaced). */
  template(text: string): string;
  log(line: string, options?: LogOptions): void;
  /** Records an action error without throwing; the chain goes on. */
  error(message: string): void;
  /** No further actions run after this one. */
  stop(): void;
  /** The request is not stored. */
  dontSave(): void;
  /**
   * Masks the request as it is stored, streamed and exported with these redaction rules
   * (core/shared/redaction.ts), when the chain ends: this run's later actions still see the original.
   * Invalid rules throw.
   */
  redact(rules: ActionRedactionRule[], replacement?: string): void;
  /** The outcome of a condition, for actions that reference this one through `condition`. */
  setResult(passed: boolean): void;
  /**
   * Runs the actions after this one once per item, with the item's variables set (repeating
   * actions). At most 1000 items (Get Requests reads up to 1000); the chain ends after the last repetition.
   */
  repeat(items: Array<Record<string, string>>): void;
  /**
   * Runs another action type now, inside this one (WebhookScript's `action()`): `parameters` are
   * templated and validated as a chain step's; its output, variables and response changes join
   * the chain's. Resolves with the variables it set; rejects with its errors.
   */
  runAction(type: string, parameters: Record<string, unknown>): Promise<Record<string, string>>;
  /**
   * Runs an action `delaySeconds` (at most 7 days) after the capture, as a queued job on the same
   * request (WebhookScript's `delay()`); its output is added to the request's later.
   */
  later(delaySeconds: number, type: string, parameters: Record<string, unknown>): void;
  /** Aborts when the chain's time budget is spent. */
  signal: AbortSignal;
  timeLeftMs(): number;
  services: Services;
  /** The plugin's own child container (core services are registered in its parent). */
  container: DependencyContainer;
}

export interface ActionDefinition<S extends z.ZodType = z.ZodType> {
  /** The API name, e.g. `auto_json`. */
  type: string;
  title: string;
  category: string;
  description: string;
  parameters: S;
  /** Variables it sets, for the editor (`<variable_name>.1`, `validator.count`...). */
  sets?: string[];
  /** False for deprecated types that still run but cannot be created. Default true. */
  creatable?: boolean;
  /** Top-level parameters left as typed, without `$variable$` replacement (scripts, names). */
  untemplated?: string[];
  // Method syntax keeps the parameter bivariant so every definition fits the registry's type.
  execute(ctx: ActionContext<z.output<S>>, params: z.output<S>): void | Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyActionDefinition = ActionDefinition<any>;

/**
 * A kind of connected account (an API key, an OAuth token, an SSH key pair...) that actions use
 * through `provider_id`. Credentials are encrypted at rest and never returned by the API.
 */
export interface ProviderDefinition<C extends z.ZodType = z.ZodType, S extends z.ZodType = z.ZodType> {
  /** The API name, e.g. `aws`. */
  type: string;
  title: string;
  description: string;
  /** Secret fields. */
  credentials: C;
  /** Fields shown back to the user (region, endpoint, a public key...). */
  settings?: S;
  /** Makes credentials (and settings) when the user sends none, e.g. a new SSH key pair. */
  generate?(): Promise<{ credentials: z.output<C>; settings?: Record<string, unknown> }>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProviderDefinition = ProviderDefinition<any, any>;

export interface PluginDefinition {
  name: string;
  actions: AnyActionDefinition[];
  /** Kinds of connected account its actions use. */
  providers?: AnyProviderDefinition[];
  /** Called once with the plugin's child container before its actions are registered. */
  register?(container: DependencyContainer): void | Promise<void>;
}
