// The one kernel of workflow documents (TokenActions in ./document.ts, Schedule in
// core/scheduler/document.ts). Every document has the same envelope:
//
//   apiVersion: capture/v1
//   kind: <a registered kind>
//   metadata: { ... }
//   spec: { ... }
//
// Here: that version, the parser (YAML or JSON, one or several documents per file, syntax errors
// with line and column), the kind registry (each kind registers its zod schema; the published JSON
// Schema is generated from it), the one validation pass (ajv on that generated JSON Schema; field
// errors keyed by path such as `spec.steps.2.delay`, which ./positions.ts maps to line and column),
// and the one directory walker. Walker rule: only the YAML/JSON files directly in the folder are
// read; subfolders (`workflows/examples/` among them) are never applied.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { BadRequest, ValidationError, fromParseLimit, type FieldErrors } from '../errors.js';
import { ParseLimitError } from '@capture/sdk/parse-limits';
import { parseWithPositions, positionAt, type PositionedDocument } from './positions.js';

export const API_VERSION = 'capture/v1';

export interface KindDefinition<D> {
  /** The value of `kind`. */
  kind: string;
  /** The whole document (envelope included); the published JSON Schema is generated from it. */
  schema: z.ZodType;
  /** `$id` file name under https://capture.local/schemas/ and title of the published JSON Schema. */
  schemaFile: string;
  title: string;
  /** Messages for the `pattern` keyword, by pattern (ajv's own message quotes the regex). */
  patternMessages?: Record<string, string>;
  /** What JSON Schema cannot say, after the structure passed: may normalise, throws a 422. */
  refine?: (doc: D) => D;
}

export interface WorkflowKind<D> extends KindDefinition<D> {
  /** The JSON Schema as written to schemas/<schemaFile>. */
  jsonSchema(): Record<string, unknown>;
  /** Checks the structure, fills defaults (on a copy), then `refine`. Throws a 422 naming every field. */
  validate(input: unknown): D;
}

const kinds = new Map<string, WorkflowKind<unknown>>();

const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  useDefaults: true,
  formats: { uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i },
});

/** ajv's errors as field errors keyed by dotted path (`_` for the document itself). */
function fieldErrors(errors: NonNullable<ValidateFunction['errors']>, patternMessages: Record<string, string>): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required') {
      const key = [at, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
      (out[key] ??= []).push('is required');
    } else if (e.keyword === 'pattern') {
      (out[at || '_'] ??= []).push(patternMessages[(e.params as { pattern: string }).pattern] ?? 'has an invalid format');
    } else {
      (out[at || '_'] ??= []).push(e.message ?? 'is invalid');
    }
  }
  return out;
}

/** Throws a ValidationError (422) whose message names the first field, when there are errors. */
export function throwFieldErrors(errors: FieldErrors): void {
  const first = Object.entries(errors)[0];
  if (first) throw new ValidationError(`${first[0]}: ${first[1][0]}`, errors);
}

/** Registers a kind of workflow document. */
export function defineKind<D>(def: KindDefinition<D>): WorkflowKind<D> {
  let validator: ValidateFunction | undefined;
  // The generated schema holds each pattern as RegExp#source, which escapes `/`: key by that too.
  const patternMessages = Object.fromEntries(
    Object.entries(def.patternMessages ?? {}).flatMap(([p, m]) => [
      [p, m],
      [new RegExp(p).source, m],
    ]),
  );
  const jsonSchema = () => ({
    $id: `https://capture.local/schemas/${def.schemaFile}`,
    title: def.title,
    ...z.toJSONSchema(def.schema, { io: 'input', target: 'draft-2020-12' }),
  });
  const kind: WorkflowKind<D> = {
    ...def,
    jsonSchema,
    validate(input) {
      validator ??= ajv.compile(jsonSchema());
      const copy = structuredClone(input);
      if (!validator(copy)) throwFieldErrors(fieldErrors(validator.errors ?? [], patternMessages));
      return def.refine ? def.refine(copy as D) : (copy as D);
    },
  };
  kinds.set(def.kind, kind as WorkflowKind<unknown>);
  return kind;
}

/** The registered kind a document declares, if any. */
export function kindOf(input: unknown): WorkflowKind<unknown> | undefined {
  const kind = typeof input === 'object' && input !== null ? (input as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' ? kinds.get(kind) : undefined;
}

/** parseWithPositions, with a text over the parse limits as a 413 (size) or 422 (depth, at its line and column). */
function parseWithinLimits(text: string): PositionedDocument[] {
  try {
    return parseWithPositions(text);
  } catch (e) {
    if (!(e instanceof ParseLimitError)) throw e;
    if (e.limit === 'size') throw fromParseLimit(e, 'document');
    const { line, col } = positionAt(text, e.offset);
    throw new ValidationError(e.message, { document: [`line ${line}, column ${col}: ${e.message}`] });
  }
}

/**
 * Every document of YAML or JSON text (JSON is YAML), empty documents left out. A syntax error is
 * a 400 naming its line and column; a text over the parse limits a 413 or 422.
 */
export function parseDocuments(text: string): unknown[] {
  const docs = parseWithinLimits(text);
  for (const d of docs) {
    const e = d.syntaxErrors[0];
    if (e) {
      const message = `line ${e.line}, column ${e.col}: ${e.message}`;
      throw new BadRequest(`Invalid YAML at ${message}`, { document: [message] });
    }
  }
  return docs.map((d) => d.value).filter((v) => v !== null && v !== undefined);
}

/** The one document of a text (an API body); several are a 400. Empty text is null. */
export function parseDocument(text: string): unknown {
  const docs = parseDocuments(text);
  if (docs.length > 1) throw new BadRequest(`Expected one workflow document, got ${docs.length}`, { document: ['must hold one document'] });
  return docs[0] ?? null;
}

/** One file of a workflow folder: its documents, or why it could not be read or parsed. */
export interface FolderFile {
  /** The file's name within the folder. */
  file: string;
  docs: unknown[];
  error?: string;
}

/**
 * The YAML/JSON files (`*.yaml`, `*.yml`, `*.json`) directly in `dir`, in name order, each with its
 * documents. Subfolders are not read, so `examples/` is never applied. A missing folder has none.
 */
export async function readWorkflowFolder(dir: string): Promise<FolderFile[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const names = entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.(ya?ml|json)$/i.test(e.name))
    .map((e) => e.name)
    .sort();
  const out: FolderFile[] = [];
  for (const file of names) {
    try {
      out.push({ file, docs: parseDocuments(await fs.readFile(path.join(dir, file), 'utf8')) });
    } catch (e) {
      out.push({ file, docs: [], error: (e as Error).message });
    }
  }
  return out;
}
