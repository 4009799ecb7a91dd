// Workflow documents: a token's action chain as YAML or JSON that a team can keep in git.
//
//   apiVersion: capture/v1
//   kind: TokenActions
//   metadata: { token: <uuid or alias>, name: optional }
//   spec:
//     steps:
//       - id: <uuid, optional: kept stable across applies>
//         name: optional label, usable in `condition`
//         type: auto_json
//         parameters: { source: $request.content$ }
//         disabled: false
//         condition: <id or name of an earlier conditions step>
//         queue: true                   # optional: run after the capture was answered
//         queue_profile: <profile id>   # optional: throttled and in order (docs/queued-actions.md)
//
// The document's structure is checked by the workflow kernel (./kernel.ts: ajv against
// schemas/workflow.schema.json, generated from the zod schema below); each step's parameters by its
// action type's own schema.
import { randomUUID } from 'node:crypto';
import YAML from 'yaml';
import { z } from 'zod';
import { SECRET_MARKER } from '../actions/secret-params.js';
import type { FieldErrors } from '../errors.js';
import { API_VERSION, defineKind, throwFieldErrors } from './kernel.js';

export const StepSchema = z.object({
  id: z.string().uuid().optional().describe('Stable ID of the step; the actions API calls it uuid'),
  name: z.string().min(1).max(100).optional(),
  type: z.string().min(1).max(64),
  parameters: z.record(z.string(), z.unknown()).default({}),
  disabled: z.boolean().default(false),
  condition: z.string().min(1).max(100).nullable().optional().describe('ID or name of an earlier conditions step'),
  condition_action: z.enum(['true', 'false']).nullable().optional(),
  queue: z.boolean().optional(),
  delay: z.number().int().min(0).max(86400).optional(),
  queue_profile: z.string().uuid().nullable().optional().describe("ID of a Queue Profile of the token's owner (queued steps only)"),
});

/** The most steps a token's chain holds, however they came (a document, or actions added one by one). */
export const MAX_STEPS = 100;

export const TokenActionsDocumentSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('TokenActions'),
  metadata: z.object({
    token: z.string().min(1).max(64).describe('UUID or alias of the token'),
    name: z.string().max(200).optional(),
    description: z.string().max(2000).optional(),
  }),
  spec: z.object({ steps: z.array(StepSchema).max(MAX_STEPS) }),
});

export type Step = z.infer<typeof StepSchema> & { id: string };
export type TokenActionsDocument = Omit<z.infer<typeof TokenActionsDocumentSchema>, 'spec'> & { spec: { steps: Step[] } };

export const TokenActionsKind = defineKind<TokenActionsDocument>({
  kind: 'TokenActions',
  schema: TokenActionsDocumentSchema,
  schemaFile: 'workflow.schema.json',
  title: 'Workflow document',
});

/** The JSON Schema of workflow documents, as written to schemas/workflow.schema.json. */
export function workflowJsonSchema(): Record<string, unknown> {
  return TokenActionsKind.jsonSchema();
}

/**
 * Validates a document's structure, gives steps without an ID one (reusing the ID of the step that
 * held the same position and type before, so re-applying a file keeps IDs), and resolves
 * `condition` names to IDs. Throws a 422 naming the field.
 */
export function normaliseDocument(input: unknown, previous: Step[] = []): TokenActionsDocument {
  const valid = TokenActionsKind.validate(input);
  // Only the fields the schema knows are kept (the schema lets others through).
  const { token, name, description } = valid.metadata;
  const doc = { apiVersion: valid.apiVersion, kind: valid.kind, metadata: { token, ...(name !== undefined && { name }), ...(description !== undefined && { description }) }, spec: valid.spec };
  const steps: Step[] = doc.spec.steps.map((s, i) => {
    const before = previous[i];
    const { id, name, type, parameters, disabled, condition, condition_action, queue, delay, queue_profile } = s;
    const known = { id, name, type, parameters, disabled, condition, condition_action, queue, delay, queue_profile };
    for (const k of Object.keys(known) as Array<keyof typeof known>) if (known[k] === undefined) delete known[k];
    return { ...known, id: id ?? (before && before.type === type ? before.id : randomUUID()) };
  });
  const seen = new Map<string, string>();
  const errors: FieldErrors = {};
  steps.forEach((s, i) => {
    if ([...seen.values()].includes(s.id)) (errors[`spec.steps.${i}.id`] ??= []).push('is used by an earlier step');
    if (s.condition) {
      const target = seen.get(s.condition) ?? ([...seen.values()].includes(s.condition) ? s.condition : undefined);
      if (!target) (errors[`spec.steps.${i}.condition`] ??= []).push('must name an earlier step');
      else s.condition = target;
    }
    seen.set(s.name ?? s.id, s.id);
  });
  throwFieldErrors(errors);
  return { ...doc, spec: { steps } };
}

export function emptyDocument(token: string): TokenActionsDocument {
  return { apiVersion: API_VERSION, kind: 'TokenActions', metadata: { token }, spec: { steps: [] } };
}

export function toYaml(doc: TokenActionsDocument): string {
  return YAML.stringify(doc, { lineWidth: 0 });
}

/** Why an export holds markers instead of secrets: atop exported YAML, and printed by the CLI. */
export function secretsWarning(count: number): string {
  return `${count} secret parameter(s) exported as "${SECRET_MARKER}": applying this document to the same token keeps the stored values; elsewhere, replace each with the value or a $global.name$ variable.`;
}

/** The document as YAML to keep or share, with the warning when secrets were left out. */
export function exportYaml(doc: TokenActionsDocument, secretCount: number): string {
  return (secretCount ? `# ${secretsWarning(secretCount)}\n` : '') + toYaml(doc);
}
