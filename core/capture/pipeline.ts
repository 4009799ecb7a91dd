// What every capture channel (HTTP, e-mail, DNS) does once it has a request record: run the
// token's Custom Actions, store the request unless an action said not to, tell the listeners.
import { compileSettings, hidesFromActions, redactRequest } from '../shared/redaction.js';
import type { CompiledRule } from '@capture/sdk/redaction';
import type { ResponseDraft } from '@capture/sdk';
import type { RequestRecord, Store, TokenRecord } from '../store/types.js';
import { uuidv7 } from '../util/uuid.js';
import { rememberResponse } from './sent-response.js';
import { SENT_BODY_FILE_ID } from './content-encoding.js';
// Imported: the global `performance` is a lazy accessor, a getter call on every read.
import { performance } from 'node:perf_hooks';

/** The answer a capture gets: the same shape actions build (the SDK's ResponseDraft). */
export type CapturedResponse = ResponseDraft;

export interface ActionOutcome {
  /** The response the actions built, or null to keep the one given. */
  response: CapturedResponse | null;
  dontSave: boolean;
  output: string[];
  errors: unknown[];
  /** Rules of `redact` actions that ran: applied with the token's own when the request is stored. */
  redact?: CompiledRule[];
}

/** Which of a token's redaction rules to apply: before the actions run, after them, or all at once (no actions). */
type RedactionPhase = 'before' | 'after' | 'all';

/**
 * Masks the capture with the token's redaction rules of `phase` (and `more`); returns the files'
 * bytes as masked. Nothing to do (no rules) costs one property check.
 */
function redact(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, phase: RedactionPhase, more?: CompiledRule[]): ReadonlyMap<string, Buffer> {
  const own = token.redaction?.rules.length ? compileSettings(token.redaction) : [];
  const chosen = phase === 'all' ? own : own.filter((r) => hidesFromActions(r) === (phase === 'before'));
  const rules = more?.length ? [...chosen, ...more] : chosen;
  if (!rules.length) return files;
  const decoded = record.sentBody ? record.body : null;
  const masked = redactRequest(record, files, rules).files;
  // The bytes as sent would still hold what was masked in the decoded body: they are not kept.
  if (decoded && record.body !== decoded) delete record.sentBody;
  return masked;
}

/** Runs a token's Custom Actions on a capture; provided by the action runtime. */
export type ActionsHook = (token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, response: CapturedResponse) => Promise<ActionOutcome | null>;
/** Told about every stored capture, after it is committed (realtime fan-out). */
export type CapturedHook = (token: TokenRecord, record: RequestRecord) => void;

export interface CapturePipeline {
  /** Set by the action runtime when it starts. */
  actions: ActionsHook | null;
  captured: CapturedHook[];
  /**
   * Runs actions, stores, notifies. `started` is the performance.now() at which the capture began,
   * for the request's `time`.
   */
  process(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, response: CapturedResponse, started: number): Promise<{ response: CapturedResponse; stored: boolean }>;
  /** Whether process() runs Custom Actions for `token`; without them, store() and committed() may do its work. */
  runsActions(token: TokenRecord): boolean;
  /**
   * process() for a token without actions, in fewer allocations (the HTTP hot path): stores the
   * capture and returns its commit, or null when it is not stored. Once the commit resolves, the
   * caller must call committed(): its own await is then the only continuation.
   */
  store(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, started: number): Promise<void> | null;
  /** Tells the listeners about a capture that store() committed. */
  committed(token: TokenRecord, record: RequestRecord): void;
}

export function createCapturePipeline(store: Store, onHookError: (err: unknown) => void = () => {}): CapturePipeline {
  /** Tells the `captured` hooks (realtime fan-out) about a committed capture. */
  function tellHooks(token: TokenRecord, record: RequestRecord): void {
    for (const hook of pipeline.captured) {
      try {
        hook(token, record);
      } catch (err) {
        onHookError(err);
      }
    }
  }
  /**
   * Stores the capture unless told not to (or the token keeps none): the commit, or null. Redaction
   * runs first, so the store, the realtime channels and every read after see only masked values.
   */
  function insert(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, started: number, dontSave: boolean, phase: RedactionPhase, more?: CompiledRule[]): Promise<void> | null {
    record.time = (performance.now() - started) / 1000;
    if (dontSave || token.request_limit <= 0) return null;
    if (token.redaction || more) files = redact(token, record, files, phase, more);
    // The bytes as sent of a decoded body are stored as a file of the request (content-encoding.ts).
    if (record.sentBody) files = new Map(files).set(SENT_BODY_FILE_ID, record.sentBody);
    return store.requests.insert(record, token.request_limit, files.size ? files : undefined);
  }
  /** Stores the capture (see insert), then tells the hooks. */
  function save(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, response: CapturedResponse, started: number, dontSave: boolean, phase: RedactionPhase, more?: CompiledRule[]) {
    const commit = insert(token, record, files, started, dontSave, phase, more);
    if (!commit) return Promise.resolve({ response, stored: false });
    return commit.then(() => {
      tellHooks(token, record);
      return { response, stored: true };
    });
  }
  async function withActions(token: TokenRecord, record: RequestRecord, files: ReadonlyMap<string, Buffer>, response: CapturedResponse, started: number) {
    // Rules with `actions_see_original: false` mask before the chain; the others after it.
    if (token.redaction) files = redact(token, record, files, 'before');
    const outcome = await pipeline.actions!(token, record, files, response);
    if (outcome) {
      if (outcome.response) {
        response = outcome.response;
        // Only HTTP captures send an answer; the default one is not stored (it can be rebuilt).
        if (record.type === 'web') rememberResponse(record, response);
      }
      record.custom_action_output = outcome.output;
      record.custom_action_errors = outcome.errors;
    }
    // Awaited, not returned: an async function returning a promise takes two more ticks.
    return await save(token, record, files, response, started, outcome?.dontSave ?? false, 'after', outcome?.redact);
  }
  const pipeline: CapturePipeline = {
    actions: null,
    captured: [],
    process(token, record, files, response, started) {
      if (pipeline.runsActions(token)) return withActions(token, record, files, response, started);
      // No actions (most captures): no extra async frame on the hot path.
      return save(token, record, files, response, started, false, 'all');
    },
    runsActions: (token) => !!(token.actions && pipeline.actions),
    store: (token, record, files, started) => insert(token, record, files, started, false, 'all'),
    committed: tellHooks,
  };
  return pipeline;
}

/**
 * A new request record: the fields every channel sets the same way (empty outputs, no note, the
 * capture clock and key), plus what the channel knows.
 */
export function newRequestRecord(fields: Pick<RequestRecord, 'token_id' | 'type' | 'ip' | 'hostname' | 'method' | 'url' | 'sorting'> & Partial<RequestRecord>, now: number): RequestRecord {
  const body = fields.body ?? Buffer.alloc(0);
  return {
    uuid: uuidv7(now),
    team_id: null,
    user_agent: '',
    content_type: null,
    body,
    size: body.length,
    query: null,
    headers: {},
    form: null,
    files: [],
    custom_action_output: [],
    custom_action_errors: [],
    time: 0,
    note: null,
    created_at: now,
    updated_at: now,
    extra: {},
    ...fields,
  };
}
