// Bounds on a text from outside before it is parsed: its size, and how deep its structure nests.
// The parsers and what runs on their output (yaml's composer, ajv, zod, structuredClone, JSONPath,
// variable flattening, XML tree walks) recurse once per level; a deep enough document overflows the
// stack, and an overflow that lands in V8's regexp compiler aborts the whole process instead of
// throwing. So every such text is measured here first, by a linear scan that never recurses.
//
// The scans may count more levels than the parser would build (never fewer, for text the parser
// accepts), so a text they pass is safe to parse:
// - JSON: brackets and braces outside strings; exact for valid JSON.
// - YAML: flow brackets and braces as yaml's own lexer finds them (not inside quoted, plain or block
//   scalars), plus the block levels of each line: one per indentation still open above it and one
//   per `-`, `?` or `:` indicator on the line (`- - - x` nests three sequences).
// - XML and HTML: open elements, closed by their end tag; empty-element tags (`<a/>`), comments,
//   CDATA, declarations and processing instructions do not nest, nor in HTML the void elements (`<br>`).
import { CST, Lexer } from 'yaml';

/** Levels of nesting any document or body may have before it is parsed. */
export const MAX_PARSE_DEPTH = 64;
/** UTF-8 bytes of a document the service parses whole (workflow document, OpenAPI spec, JSON Schema). */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

export type TextFormat = 'json' | 'yaml' | 'xml' | 'html';

export interface ParseLimits {
  /** What the text is, for the message: "The document", "The request body", "The OpenAPI spec". */
  what: string;
  /** Default MAX_DOCUMENT_BYTES; Infinity where the text is already bounded (a captured body, by MAX_BODY_BYTES). */
  maxBytes?: number;
  /** Default MAX_PARSE_DEPTH. */
  maxDepth?: number;
}

/**
 * A text over a limit: `limit` says which. It carries the HTTP status that answers it (413 for
 * size, 422 for depth), exposed, so that even uncaught it renders as that status and its message.
 */
export class ParseLimitError extends Error {
  readonly status: 413 | 422;
  readonly expose = true;
  constructor(
    readonly limit: 'size' | 'depth',
    message: string,
    /** Where the text went over the depth limit (UTF-16 offset); 0 for size. */
    readonly offset = 0,
  ) {
    super(message);
    this.status = limit === 'size' ? 413 : 422;
  }
}

const mib = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

/** Throws a ParseLimitError when `text` is larger or nests deeper than allowed; returns it otherwise. */
export function checkParseLimits(text: string, format: TextFormat, limits: ParseLimits): string {
  const maxBytes = limits.maxBytes ?? MAX_DOCUMENT_BYTES;
  const maxDepth = limits.maxDepth ?? MAX_PARSE_DEPTH;
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: count only when the length leaves it open.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes)) {
    throw new ParseLimitError('size', `${limits.what} is larger than ${mib(maxBytes)}`);
  }
  const at = DEPTH_SCANS[format](text, maxDepth);
  if (at >= 0) throw new ParseLimitError('depth', `${limits.what} nests deeper than ${maxDepth} levels`, at);
  return text;
}

/** The offset where `text` first nests deeper than `max` levels, or -1. */
export function deeperThan(text: string, format: TextFormat, max = MAX_PARSE_DEPTH): number {
  return DEPTH_SCANS[format](text, max);
}

const DEPTH_SCANS: Record<TextFormat, (text: string, max: number) => number> = {
  json: jsonDeeperThan,
  yaml: yamlDeeperThan,
  xml: (text, max) => markupDeeperThan(text, max, new Set()),
  html: (text, max) => markupDeeperThan(text, max, VOID_ELEMENTS),
};

function jsonDeeperThan(text: string, max: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, escapes skipped.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return -1;
}

function yamlDeeperThan(text: string, max: number): number {
  let offset = 0;
  let flow = 0;
  /** Indentation of the block lines still open above this one. */
  const indents: number[] = [];
  let lineStart = true;
  let lineIndent = 0;
  let indicators = 0;
  let scalarNext = false;
  for (const source of new Lexer().lex(text)) {
    // The token after a scalar marker is the scalar's text, whatever it starts with.
    const type: string | null = scalarNext ? 'scalar-text' : CST.tokenType(source);
    scalarNext = type === 'scalar';
    switch (type) {
      case 'scalar':
      case 'doc-mode':
        continue; // markers, no text
      case 'flow-error-end':
        flow = 0; // the lexer ended a broken flow collection
        continue;
      case 'doc-start':
      case 'doc-end':
        indents.length = 0;
        flow = 0;
        break;
      case 'newline':
        if (flow === 0) {
          lineStart = true;
          lineIndent = 0;
          indicators = 0;
        }
        break;
      case 'space':
        if (lineStart && flow === 0) lineIndent = source.length;
        break;
      case 'comment':
        break;
      default: {
        if (lineStart && flow === 0) {
          lineStart = false;
          while (indents.length && indents[indents.length - 1]! >= lineIndent) indents.pop();
          indents.push(lineIndent);
        }
        if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
        else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flow > 0) flow--;
        else if (flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')) indicators++;
        if (indents.length + indicators + flow > max) return offset;
      }
    }
    offset += source.length;
  }
  return -1;
}

/** HTML elements that never have an end tag. */
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

function markupDeeperThan(text: string, max: number, voidElements: ReadonlySet<string>): number {
  const open: string[] = [];
  let i = text.indexOf('<');
  while (i >= 0 && i < text.length) {
    const next = text[i + 1];
    let end: number;
    if (text.startsWith('<!--', i)) end = endOf(text, '-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) end = endOf(text, ']]>', i + 9);
    else if (next === '?') end = endOf(text, '?>', i + 2);
    else if (next === '!') end = endOf(text, '>', i + 2);
    else {
      end = tagEnd(text, i + 1);
      const closing = next === '/';
      const name = /^[^\s/>]*/.exec(text.slice(i + (closing ? 2 : 1), Math.min(end, i + 256)))![0].toLowerCase();
      if (closing) {
        const at = open.lastIndexOf(name);
        if (at >= 0) open.length = at;
      } else if (name && text[end - 2] !== '/' && !voidElements.has(name)) {
        open.push(name);
        if (open.length > max) return i;
      }
    }
    i = text.indexOf('<', end);
  }
  return -1;
}

/** The index after `marker` (found from `from`), or the text's length. */
function endOf(text: string, marker: string, from: number): number {
  const at = text.indexOf(marker, from);
  return at < 0 ? text.length : at + marker.length;
}

/** The index after the `>` that ends a tag begun before `from`, quoted attribute values skipped. */
function tagEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '>') return i + 1;
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      if (close < 0) return text.length;
      i = close;
    }
  }
  return text.length;
}
