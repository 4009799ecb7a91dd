// Where things are in a YAML (or JSON) workflow file, so that errors can say `file:line:column`:
// syntax errors, and field errors keyed by a path such as `spec.steps.2.parameters.status` (mapped
// to the deepest part of that path the file has). Depends only on `yaml` and the parse limits, so
// the page can use it too.
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node as YamlNode } from 'yaml';
import type { FieldErrors } from '../errors.js';
import { checkParseLimits } from '@capture/sdk/parse-limits';

/** Aliases a document may expand (yaml's default, 100, stated: each expansion copies a node). */
export const MAX_ALIAS_COUNT = 100;

/** 1-based line and column. */
export interface Position {
  line: number;
  col: number;
}

/** An error at a place in the file; `path` is empty for a syntax error. */
export interface LocatedError extends Position {
  path: string;
  message: string;
}

/** One document of a file: its value (undefined when it has syntax errors) and where its parts are. */
export interface PositionedDocument {
  value: unknown;
  syntaxErrors: LocatedError[];
  /** Where the deepest part of `path` present in the document starts. */
  positionOf(path: string): Position;
  /** Field errors (path -> messages), each at its place, in file order. */
  locate(errors: FieldErrors): LocatedError[];
}

/** `spec.steps.0.type`, `/spec/steps/0/type` or `spec.steps[0].type` as path segments. */
export function pathSegments(path: string): Array<string | number> {
  return path
    .split(/[./[\]]+/)
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const byPlace = (a: Position, b: Position) => a.line - b.line || a.col - b.col;

/** The line and column of a UTF-16 offset in `text`. */
export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, col: offset - lineStart + 1 };
}

/**
 * Every document of a YAML stream (JSON is YAML), empty documents left out. A text larger or deeper
 * than the parse limits (@capture/sdk/parse-limits) throws a ParseLimitError before it is parsed:
 * yaml's composer recurses per level of nesting.
 */
export function parseWithPositions(text: string): PositionedDocument[] {
  checkParseLimits(text, 'yaml', { what: 'The document' });
  const lines = new LineCounter();
  const at = (offset: number): Position => {
    const { line, col } = lines.linePos(offset);
    return { line, col };
  };
  return Array.from(parseAllDocuments(text, { lineCounter: lines, prettyErrors: false }))
    .filter((doc) => doc.contents !== null || doc.errors.length > 0)
    .map((doc) => {
      const syntaxErrors = doc.errors.map((e) => ({ ...at(e.pos[0]), path: '', message: e.message.split('\n')[0]! }));
      let value: unknown;
      if (!syntaxErrors.length) {
        try {
          value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
        } catch (e) {
          syntaxErrors.push({ ...at(doc.range[0]), path: '', message: (e as Error).message });
        }
      }
      const positionOf = (path: string): Position => {
        let node: unknown = doc.contents;
        let offset = (doc.contents as YamlNode | null)?.range?.[0] ?? doc.range[0];
        for (const seg of pathSegments(path)) {
          if (isMap(node)) {
            const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg));
            if (!pair) break;
            offset = (pair.key as YamlNode | null)?.range?.[0] ?? offset;
            node = pair.value;
          } else if (isSeq(node) && typeof seg === 'number') {
            const item = node.items[seg] as YamlNode | undefined;
            if (!item) break;
            offset = item.range?.[0] ?? offset;
            node = item;
          } else break;
        }
        return at(offset);
      };
      const locate = (errors: FieldErrors): LocatedError[] =>
        Object.entries(errors)
          .flatMap(([path, messages]) => {
            const field = path === '_' ? '' : path;
            return messages.map((message) => ({ ...positionOf(field), path: field, message }));
          })
          .sort(byPlace);
      return { value, syntaxErrors, positionOf, locate };
    });
}
