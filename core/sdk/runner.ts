// What `@capture/sdk/testing` needs from the host to run an action: this small interface, not the
// action runtime itself. The host installs its implementation (core/actions/test-runner.ts; this
// repository's vitest setup does it, lazily); a plugin tested outside the service calls
// useActionRunner with its own.
import type { DependencyContainer } from 'tsyringe';
import type { CompiledRule } from './redaction.js';
import type { Services } from './services.js';
import type { AnyActionDefinition, CapturedRequest, ResponseDraft, TokenInfo } from './types.js';

/** One output line of a chain, attributed to its action. */
export interface ChainLine {
  action: string;
  type: string;
  order: number;
  text: string;
  markdown?: boolean;
  error?: boolean;
}

export interface RunnerInput {
  /** The definitions the chain knows; the first is the one run. */
  definitions: AnyActionDefinition[];
  container: DependencyContainer;
  token: TokenInfo;
  request: CapturedRequest;
  rawBody: Buffer;
  services: Services;
  params: Record<string, unknown>;
  order: number;
  budgetMs?: number;
  variables?: Record<string, string>;
  /** Run the action as a queued one (ctx.queued). */
  queued?: boolean;
}

export interface RunnerResult {
  response: ResponseDraft | null;
  dontSave: boolean;
  stopped: boolean;
  lines: ChainLine[];
  errors: Array<{ action: string; message: string }>;
  variables: Record<string, string>;
  runtimeVariables: Record<string, string>;
  redact: CompiledRule[];
  later: Array<{ delay: number; type: string; parameters: Record<string, unknown> }>;
}

export interface ActionRunner {
  /** Runs one action as the first of a chain, the way a capture runs it. */
  run(input: RunnerInput): Promise<RunnerResult>;
}

let installed: (() => Promise<ActionRunner>) | undefined;
let resolved: Promise<ActionRunner> | undefined;

/** Installs the host's runner: the runner itself, or a function importing it when first needed. */
export function useActionRunner(runner: ActionRunner | (() => Promise<ActionRunner>)): void {
  resolved = undefined;
  installed = typeof runner === 'function' ? runner : async () => runner;
}

/** The installed runner (imported on first use). */
export function actionRunner(): Promise<ActionRunner> {
  if (!installed) {
    return Promise.reject(new Error("no action runner installed: call useActionRunner() from @capture/sdk/testing with the host's (this repository's vitest setup installs core/actions/test-runner.ts)"));
  }
  return (resolved ??= installed());
}
