// string.md "JSON", "HTML and Markdown" and "XML".
import { JSONPath } from 'jsonpath-plus';
import { checkParseLimits, ParseLimitError, type TextFormat } from '@capture/sdk/parse-limits';
import { lazyImport } from '@capture/sdk/async';
import { fail } from '../lang/errors.js';
import { WsArray, fromJson, jsonEncode, numericValue, type Value } from '../lang/values.js';
import { arg, bool, str, type Host, type Library } from './host.js';

// ---- HTML entities --------------------------------------------------------------------------

// Latin-1 names for U+00A0..U+00FF, in order.
const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml'.split(
    ' ',
  );
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  euro: '€',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  bull: '•',
  trade: '™',
  dagger: '†',
  Dagger: '‡',
  permil: '‰',
  lsaquo: '‹',
  rsaquo: '›',
  OElig: 'Œ',
  oelig: 'œ',
  Scaron: 'Š',
  scaron: 'š',
  Yuml: 'Ÿ',
  fnof: 'ƒ',
  circ: 'ˆ',
  tilde: '˜',
  ensp: '\u2002',
  emsp: '\u2003',
  thinsp: '\u2009',
  zwnj: '\u200c',
  zwj: '\u200d',
  lrm: '\u200e',
  rlm: '\u200f',
  larr: '←',
  uarr: '↑',
  rarr: '→',
  darr: '↓',
  harr: '↔',
  minus: '−',
  infin: '∞',
  ne: '≠',
  le: '≤',
  ge: '≥',
  asymp: '≈',
  prime: '′',
  Prime: '″',
  oline: '‾',
  frasl: '⁄',
  hearts: '♥',
  spades: '♠',
  clubs: '♣',
  diams: '♦',
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  pi: 'π',
  sigma: 'σ',
  omega: 'ω',
  mu: 'μ',
  Omega: 'Ω',
};
LATIN1.forEach((n, i) => (NAMED[n] = String.fromCharCode(0xa0 + i)));

export function htmlDecode(s: string): string {
  return s.replace(/&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return NAMED[e] ?? m;
  });
}

export const htmlEncode = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');

// ---- JSON -----------------------------------------------------------------------------------

/**
 * The text, measured before it is parsed: converting the result (fromJson, JSONPath, tree walks)
 * recurses per level. Over the limit is a script error; strings are bounded by maxStringLength.
 */
function withinLimits(text: string, format: TextFormat, what: string): string {
  try {
    return checkParseLimits(text, format, { what, maxBytes: Infinity });
  } catch (e) {
    if (e instanceof ParseLimitError) fail(e.message);
    throw e;
  }
}

export function jsonDecode(s: string): Value {
  withinLimits(s, 'json', 'the JSON');
  try {
    return fromJson(JSON.parse(s));
  } catch {
    return null;
  }
}

function jsonPathQuery(json: string, path: string): unknown[] {
  let data: unknown;
  withinLimits(json, 'json', 'the first argument');
  try {
    data = JSON.parse(json);
  } catch {
    fail('the first argument is not valid JSON');
  }
  const p = path.trim();
  const full = p.startsWith('$') ? p : p.startsWith('.') || p.startsWith('[') ? '$' + p : '$.' + p;
  try {
    return JSONPath({ path: full, json: data as object, wrap: true, eval: false }) as unknown[];
  } catch (e) {
    return fail(`invalid JSONPath ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
}

// The XML, HTML and Markdown libraries are loaded by a script's first call that needs them, not at
// start-up.
const loadXml = lazyImport(async () => {
  const [{ DOMParser }, xpath] = await Promise.all([import('@xmldom/xmldom'), import('xpath')]);
  return { DOMParser, parseXPath: (xpath as unknown as { parse(e: string): { evaluate(o: { node: unknown; isHtml?: boolean }): unknown } }).parse };
});
type Xml = Awaited<ReturnType<typeof loadXml>>;
const loadHtmlToText = lazyImport(() => import('html-to-text').then((m) => m.convert));
const loadMarked = lazyImport(() => import('marked').then((m) => m.marked));

// ---- XML ------------------------------------------------------------------------------------

function parseXml({ DOMParser }: Xml, source: string): Document {
  const problems: string[] = [];
  const isHtml = /^\s*(<!doctype html|<html[\s>])/i.test(source);
  withinLimits(source, isHtml ? 'html' : 'xml', 'the input');
  let doc: Document;
  try {
    doc = new DOMParser({ onError: (level: string, msg: string) => void (level !== 'warning' && problems.push(msg)) }).parseFromString(source, isHtml ? 'text/html' : 'text/xml') as unknown as Document;
  } catch (e) {
    return fail(`the input is not well-formed XML: ${problems[0] ?? (e as Error).message}`);
  }
  if (!isHtml && (problems.length || !doc.documentElement)) fail(`the input is not well-formed XML: ${problems[0] ?? 'no root element'}`);
  return doc;
}

const scalar = (s: string): Value => {
  const n = numericValue(s);
  return n !== null && String(n) === s.trim() ? n : s;
};

function elementValue(el: Element): Value {
  const attrs = new WsArray();
  for (let i = 0; i < el.attributes.length; i++) attrs.set(el.attributes[i].name, el.attributes[i].value);
  const children = new WsArray();
  const lists = new Set<WsArray>();
  let text = '';
  let hasElements = false;
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1) {
      hasElements = true;
      const child = c as Element;
      const v = elementValue(child);
      const name = child.nodeName;
      const existing = children.get(name);
      if (existing === undefined) children.set(name, v);
      else if (existing instanceof WsArray && lists.has(existing)) existing.push(v);
      else {
        const list = WsArray.list([existing, v]);
        lists.add(list);
        children.set(name, list);
      }
    } else if (c.nodeType === 3 || c.nodeType === 4) text += c.nodeValue ?? '';
  }
  const t = text.trim();
  if (!hasElements && attrs.size === 0) return scalar(t);
  const out = hasElements ? children : new WsArray();
  if (!hasElements) out.set('@value', scalar(t));
  else if (t) out.set('@value', scalar(t));
  if (attrs.size) out.set('@attributes', attrs);
  return out;
}

function nodeText(node: Node): string {
  return (node.nodeType === 1 || node.nodeType === 9 ? node.textContent : (node.nodeValue ?? node.textContent)) ?? '';
}

async function xpathQuery(a: Value[]): Promise<string[]> {
  // The docs write both xpath(input, query) and xpath(query, input): the XML one is the input.
  let input = str(a, 0);
  let query = str(a, 1);
  if (!input.trim().startsWith('<') && query.trim().startsWith('<')) [input, query] = [query, input];
  const xml = await loadXml();
  const doc = parseXml(xml, input);
  let result: unknown;
  try {
    result = xml.parseXPath(query).evaluate({ node: doc, isHtml: /^\s*(<!doctype html|<html[\s>])/i.test(input) });
  } catch (e) {
    fail(`invalid XPath ${JSON.stringify(query)}: ${(e as Error).message}`);
  }
  const nodes = (result as { nodes?: Node[] }).nodes;
  if (nodes) return nodes.map(nodeText);
  const raw = result as { stringValue?(): string };
  return [typeof raw.stringValue === 'function' ? raw.stringValue() : String(result)];
}

export function formatsLibrary(host: Host): Library {
  return {
    is_json: (_c, a) => {
      const v = arg(a, 0);
      if (typeof v !== 'string') return false;
      try {
        JSON.parse(v);
        return true;
      } catch {
        return false;
      }
    },
    json_decode: (_c, a) => {
      const v = arg(a, 0);
      // A response array from request()/http() decodes its content.
      if (v instanceof WsArray && typeof v.get('content') === 'string') return jsonDecode(v.get('content') as string);
      return jsonDecode(str(a, 0));
    },
    json_encode: (_c, a) => jsonEncode(arg(a, 0), bool(a, 1, true), host.limits.maxStringLength),
    json_escape: (_c, a) => JSON.stringify(str(a, 0)).slice(1, -1),
    json_path: (_c, a) => {
      const matches = jsonPathQuery(str(a, 0), str(a, 1));
      if (!bool(a, 2, true)) return WsArray.list(matches.map(fromJson));
      if (matches.length === 0) return '';
      if (matches.length === 1) return fromJson(matches[0]);
      return WsArray.list(matches.map(fromJson));
    },
    html_strip_tags: (_c, a) =>
      str(a, 0)
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/<\/?[A-Za-z!?][^>]*>/g, ''),
    html_to_text: async (_c, a) => {
      const text = withinLimits(str(a, 0), 'html', 'the HTML');
      return (await loadHtmlToText())(text, { wordwrap: false });
    },
    html_decode: (_c, a) => htmlDecode(str(a, 0)),
    html_encode: (_c, a) => htmlEncode(str(a, 0)),
    markdown_to_html: async (_c, a) => {
      const md = bool(a, 1) ? htmlEncode(str(a, 0)) : str(a, 0);
      return ((await loadMarked()).parse(md, { async: false }) as string).trim();
    },
    xml2array: async (_c, a) => {
      const source = str(a, 0);
      const doc = parseXml(await loadXml(), source);
      const root = doc.documentElement!;
      return WsArray.entries([[root.nodeName, elementValue(root)]]);
    },
    xpath: async (_c, a) => (await xpathQuery(a))[0] ?? null,
    xpath_all: async (_c, a) => WsArray.list(await xpathQuery(a)),
  };
}
