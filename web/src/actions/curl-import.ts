// "Import from cURL" of the HTTP Request action: a curl command line as the action's parameters
// (url, method, headers one per line, content, basic auth). Only what curl sends is read; output
// and connection flags are ignored. Imports name their .js files: this module also runs under Node.

export interface CurlRequest {
  url: string;
  method?: string;
  headers?: string;
  content?: string;
  auth?: { mode: 'basic'; username: string; password: string };
}

/** The words of a shell command line: quotes, backslash escapes and line continuations as sh reads them. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const add = (s: string) => (word = (word ?? '') + s);
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && text[i + 1] === '\n') i += 2;
    else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new Error("A quote (') is not closed");
      add(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && /["\\$`\n]/.test(text[j + 1] ?? '')) j++;
        s += text[j++];
      }
      if (j >= text.length) throw new Error('A quote (") is not closed');
      add(s);
      i = j + 1;
    } else if (c === '\\') {
      add(text[i + 1] ?? '');
      i += 2;
    } else {
      add(c);
      i++;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

const DATA = new Set(['-d', '--data', '--data-raw', '--data-binary', '--data-ascii', '--data-urlencode', '--json']);
const WITH_VALUE = new Set(['-o', '--output', '-m', '--max-time', '--connect-timeout', '-A', '--user-agent', '-e', '--referer', '-b', '--cookie', '-x', '--proxy', '-w', '--write-out', '--retry']);

/** Reads a curl command; throws with a sentence when it is not one. */
export function parseCurl(text: string): CurlRequest {
  const words = shellWords(text.trim());
  if (words[0] !== 'curl') throw new Error('This is not a curl command: it must start with curl');
  let url = '';
  let method: string | undefined;
  const headers: string[] = [];
  const data: string[] = [];
  let auth: CurlRequest['auth'];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const value = () => {
      const v = words[++i];
      if (v === undefined) throw new Error(`${w} needs a value`);
      return v;
    };
    if (w === '-X' || w === '--request') method = value().toUpperCase();
    else if (w === '-H' || w === '--header') headers.push(value());
    else if (DATA.has(w)) {
      const v = value();
      data.push(v);
      if (w === '--json') headers.push('Content-Type: application/json', 'Accept: application/json');
    } else if (w === '-u' || w === '--user') {
      const v = value();
      const at = v.indexOf(':');
      auth = { mode: 'basic', username: at === -1 ? v : v.slice(0, at), password: at === -1 ? '' : v.slice(at + 1) };
    } else if (w === '-A' || w === '--user-agent') headers.push(`User-Agent: ${value()}`);
    else if (w === '--url') url = value();
    else if (WITH_VALUE.has(w)) value();
    else if (/^-X[A-Z]+$/.test(w)) method = w.slice(2);
    else if (!w.startsWith('-')) url = w;
  }
  if (!url) throw new Error('The curl command has no URL');
  const content = data.length ? data.join('&') : undefined;
  if (!method && content !== undefined) method = 'POST';
  return { url, ...(method ? { method } : {}), ...(headers.length ? { headers: headers.join('\n') } : {}), ...(content !== undefined ? { content } : {}), ...(auth ? { auth } : {}) };
}

/** JSON text indented by two spaces, or null when it is not JSON (a `$variable$` template, say). */
export function formatJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null;
  }
}
