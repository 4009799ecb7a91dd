// Reads the shell examples of a Markdown file and checks what they print against what the text
// says they print. The conventions, as the README uses them:
// - every ```sh block holding a curl command is run; `<!-- readme-test: skip <reason> -->` on the
//   line before a block leaves it out;
// - a command is a line (with its `\` continuations); the `# ...` lines right below it are its
//   output, `...` standing for anything (inside a JSON string, as a value, as more fields or
//   more list items); JSON is compared by the fields shown;
// - a trailing `# <body> (status NNN)` documents the body and the status; any other trailing
//   comment is prose;
// - a command with no documented status must succeed: exit code 0, every curl call 2xx.

export interface Example {
  /** 1-based line of the command in the file. */
  line: number;
  command: string;
  /** Documented output (own-line comments, or the body of a `(status NNN)` comment). */
  output?: string;
  status?: number;
}

export interface Block {
  line: number;
  examples: Example[];
  skip?: string;
}

const SKIP = /^<!--\s*readme-test:\s*skip\b\s*(.*?)\s*-->$/;
const STATUS = /^(.*?)\s*\(status (\d{3})\)$/;

/** Index of a trailing ` # comment` outside quotes, or -1. */
function commentStart(text: string): number {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return i;
  }
  return -1;
}

function parseBlock(lines: string[], first: number): Example[] {
  const out: Example[] = [];
  let last: Example | undefined;
  let docs: string[] = [];
  const flush = () => {
    if (last && docs.length) last.output = docs.join('\n');
    docs = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (!raw.trim()) {
      flush();
      last = undefined;
      continue;
    }
    if (raw.trimStart().startsWith('#')) {
      if (last && last.output === undefined) docs.push(raw.trim().replace(/^#\s?/, ''));
      continue;
    }
    flush();
    const line = first + i;
    let text = raw;
    while (text.endsWith('\\') && i + 1 < lines.length) text += '\n' + lines[++i]!;
    const example: Example = { line, command: text };
    const at = commentStart(text);
    if (at >= 0) {
      example.command = text.slice(0, at).trimEnd();
      const status = STATUS.exec(text.slice(at + 1).trim());
      if (status) {
        example.output = status[1]!;
        example.status = Number(status[2]);
      }
    }
    out.push(example);
    last = example;
  }
  flush();
  return out;
}

/** The ```sh blocks that hold curl commands, in order. */
export function shellExamples(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```sh') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    const body = lines.slice(start, end);
    if (body.some((l) => /(^|[\s($|])curl\s/.test(l))) {
      const skip = SKIP.exec(lines[i - 1]?.trim() ?? '')?.[1];
      if (skip === '') throw new Error(`README line ${i}: a readme-test skip needs a reason`);
      blocks.push({ line: i + 1, examples: parseBlock(body, start + 1), ...(skip ? { skip } : {}) });
    }
    i = end;
  }
  return blocks;
}

// Documented JSON: `...` as a value or list item matches anything; in a key's place, it says the
// object has more fields (which is how objects are compared anyway).
const ANY = '\u2026any';

function documentedJson(text: string): unknown {
  let out = '';
  const stack: string[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
      continue;
    }
    if (text.startsWith('...', i)) {
      out += stack.at(-1) === '{' && expectKey ? `"${ANY}":0` : `"${ANY}"`;
      i += 2;
      continue;
    }
    if (c === '{' || c === '[') stack.push(c);
    if (c === '}' || c === ']') stack.pop();
    if (c === '{' || c === ',') expectKey = stack.at(-1) === '{';
    if (c === ':') expectKey = false;
    out += c;
  }
  return JSON.parse(out);
}

function wildcard(pattern: string): RegExp {
  const parts = pattern.split('...').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

/** Where `actual` differs from the documented value, or null. */
function difference(doc: unknown, actual: unknown, path: string): string | null {
  if (doc === ANY) return null;
  if (typeof doc === 'string' && doc.includes('...')) {
    return typeof actual === 'string' && wildcard(doc).test(actual) ? null : `${path}: ${JSON.stringify(actual)} does not match ${JSON.stringify(doc)}`;
  }
  if (Array.isArray(doc)) {
    if (!Array.isArray(actual)) return `${path}: expected a list, got ${JSON.stringify(actual)}`;
    const open = doc.at(-1) === ANY;
    const shown = open ? doc.slice(0, -1) : doc;
    if (open ? actual.length < shown.length : actual.length !== shown.length) return `${path}: ${actual.length} items, documented ${shown.length}${open ? ' or more' : ''}`;
    for (let i = 0; i < shown.length; i++) {
      const d = difference(shown[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (doc !== null && typeof doc === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(doc)) {
      if (key === ANY) continue;
      if (!(key in actual)) return `${path}.${key}: missing`;
      const d = difference(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(doc, actual) ? null : `${path}: ${JSON.stringify(actual)}, documented ${JSON.stringify(doc)}`;
}

/** Why the printed output does not match the documented one, or null when it does. */
export function outputMismatch(documented: string, printed: string): string | null {
  const doc = documented.trim();
  const got = printed.trim();
  if (doc.startsWith('{') || doc.startsWith('[')) {
    let actual: unknown;
    try {
      actual = JSON.parse(got);
    } catch {
      return `printed no JSON: ${got.slice(0, 300)}`;
    }
    return difference(documentedJson(doc), actual, '$');
  }
  return wildcard(doc).test(got) ? null : `printed ${JSON.stringify(got.slice(0, 300))}, documented ${JSON.stringify(doc)}`;
}
