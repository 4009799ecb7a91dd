import { checkParseLimits } from '@capture/sdk/parse-limits';
import { defineAction, optionalText, variableName, z } from '@capture/sdk';
import { lazyImport } from '@capture/sdk/async';

// The XML parser and XPath engine are loaded by the first extraction, not at start-up. xpath's
// typings omit parse(); `isHtml` makes names case-insensitive and ignores the XHTML namespace.
const loadXml = lazyImport(async () => {
  const [{ DOMParser }, xpath] = await Promise.all([import('@xmldom/xmldom'), import('xpath')]);
  return { DOMParser, parseXPath: (xpath as unknown as { parse(e: string): { evaluate(o: { node: unknown; isHtml?: boolean }): unknown } }).parse };
});

/** Text of a node: an element's non-blank text nodes, one per line (how the docs show `/organization`). */
function nodeText(node: Node): string {
  if (node.nodeType === 1 || node.nodeType === 9) {
    const parts: string[] = [];
    const walk = (n: Node) => {
      if (n.nodeType === 3 || n.nodeType === 4) {
        const t = (n.nodeValue ?? '').trim();
        if (t) parts.push(t);
      }
      for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
    };
    walk(node);
    return parts.join('\n');
  }
  return node.nodeValue ?? node.textContent ?? '';
}

export const extractXpath = defineAction({
  type: 'extract_xpath',
  title: 'Extract XPath',
  category: 'text',
  description: 'Runs an XPath expression on an XML or HTML document and stores the result in a variable (several nodes: one per line).',
  parameters: z.object({
    xpath: z.string().min(1),
    variable_name: variableName(),
    source: optionalText().describe('default the request body'),
    default: optionalText().describe('Value when nothing matches'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute({ params, request, vars, log }) {
    const { DOMParser, parseXPath } = await loadXml();
    const source = params.source ?? request.content;
    const isHtml = /^\s*(<!doctype html|<html[\s>])/i.test(source);
    // The tree walks below recurse per element; a captured body's size is bounded by MAX_BODY_BYTES.
    checkParseLimits(source, isHtml ? 'html' : 'xml', { what: 'The source', maxBytes: Infinity });
    const problems: string[] = [];
    let doc: Document;
    try {
      doc = new DOMParser({
        onError: (level, msg) => void (level !== 'warning' && problems.push(msg)),
      }).parseFromString(source, isHtml ? 'text/html' : 'text/xml') as unknown as Document;
    } catch (e) {
      // xmldom throws on fatal errors (mismatched tags) after reporting them.
      throw new Error(`The source is not well-formed XML: ${problems[0] ?? (e as Error).message}`);
    }
    if (!isHtml && (problems.length || !doc.documentElement)) throw new Error(`The source is not well-formed XML: ${problems[0] ?? 'no root element'}`);
    let result: unknown;
    try {
      result = parseXPath(params.xpath).evaluate({ node: doc, isHtml });
    } catch (e) {
      throw new Error(`Invalid XPath expression: ${(e as Error).message}`);
    }
    const nodes = (result as { nodes?: Node[] }).nodes ?? (Array.isArray(result) ? (result as Node[]) : null);
    const raw = result as { stringValue?(): string; toString(): string };
    const value = nodes ? nodes.map(nodeText).join('\n') : typeof raw.stringValue === 'function' ? raw.stringValue() : String(raw);
    const name = params.variable_name;
    if (nodes && nodes.length === 0) {
      if (params.default !== undefined) vars.set(name, params.default);
      return log(`No match for ${params.xpath}${params.default !== undefined ? `; $${name}$ set to the default` : ''}`);
    }
    vars.set(name, value);
    log(`Set $${name}$ to ${JSON.stringify(value.length > 200 ? value.slice(0, 200) + '…' : value)}`);
  },
});
