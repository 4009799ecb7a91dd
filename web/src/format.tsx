// Display helpers: sizes, times, paths, bodies pretty-printed and highlighted as JSON or XML, curl.
import type { ComponentChildren } from 'preact';
import type { CapturedRequest } from './api';

export function formatSize(n: number): string {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** API timestamps are `YYYY-MM-DD HH:MM:SS` in UTC. */
export function parseApiTime(s: string | null | undefined): Date | null {
  if (!s) return null;
  const d = new Date(`${s.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** When a request arrived: its sorting key is microseconds since the epoch, finer than created_at. */
export function requestDate(r: CapturedRequest): Date | null {
  if (typeof r.sorting === 'number' && r.sorting > 1e15 && r.sorting < 1e17) return new Date(Math.floor(r.sorting / 1000));
  return parseApiTime(r.created_at);
}

export function formatTime(d: Date | null): string {
  if (!d) return '';
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  return sameDay ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

/** Date and time in the reader's time zone and words (day, short month, year and time): for what may be long ago. */
export function formatDateTime(d: Date | null): string {
  return d ? d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '';
}

/**
 * Text from a capture (an error quoting a binary body, say) with its control characters shown as
 * `\xNN`: raw, they draw as empty boxes or nothing. Line breaks and tabs stay.
 */
export function showControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A capture's badge: its HTTP method, EMAIL or DNS. */
export function methodLabel(r: Pick<CapturedRequest, 'type' | 'method'>): string {
  return r.type === 'email' ? 'EMAIL' : r.type === 'dns' ? 'DNS' : r.method;
}

/** The path and query of a capture; with `tokenRefs`, relative to the token's own prefix. */
export function requestPath(r: CapturedRequest, tokenRefs: Array<string | null> = []): string {
  if (r.type === 'email') return r.subject ? r.subject : `(no subject) from ${r.sender || 'unknown'}`;
  if (r.type === 'dns') return r.dns ? `${r.dns.type} ${r.dns.name}` : r.hostname || 'DNS';
  let p: string;
  try {
    const u = new URL(r.url);
    p = u.pathname + u.search;
  } catch {
    p = r.url || '/';
  }
  for (const ref of tokenRefs) {
    if (!ref) continue;
    const prefix = `/${ref}`;
    if (p === prefix) return '/';
    if (p.startsWith(`${prefix}/`) || p.startsWith(`${prefix}?`)) return p.slice(prefix.length).replace(/^\?/, '/?');
  }
  return p;
}

export function headerEntries(h: CapturedRequest['headers'] | null | undefined): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(h ?? {})) {
    if (Array.isArray(v)) v.forEach((x) => out.push([k, String(x)]));
    else out.push([k, String(v)]);
  }
  return out;
}

export function headerValue(r: CapturedRequest, name: string): string | undefined {
  const v = r.headers?.[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export function fileList(r: CapturedRequest) {
  const f = r.files ?? [];
  return Array.isArray(f) ? f : Object.values(f);
}

// --- bodies --------------------------------------------------------------------------------------

/** Above this, bodies are shown as plain text: highlighting megabytes would stall the page. */
const HIGHLIGHT_LIMIT = 256 * 1024;

export type BodyKind = 'json' | 'xml' | 'text' | 'empty';

export function bodyKind(content: string, contentType: string | undefined): BodyKind {
  const t = content.trim();
  if (!t) return 'empty';
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json') || /^[[{]/.test(t)) {
    try {
      JSON.parse(t);
      return 'json';
    } catch {
      /* not JSON after all */
    }
  }
  if (ct.includes('xml') || ct.includes('soap') || t.startsWith('<')) {
    if (parseXml(t)) return 'xml';
  }
  return 'text';
}

function parseXml(text: string): Document | null {
  if (text.length > 4 * HIGHLIGHT_LIMIT) return null;
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  return doc.getElementsByTagName('parsererror').length ? null : doc;
}

const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Pretty JSON as highlighted nodes. */
export function highlightJson(content: string): ComponentChildren {
  const pretty = JSON.stringify(JSON.parse(content), null, 2);
  if (pretty.length > HIGHLIGHT_LIMIT) return pretty;
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of pretty.matchAll(JSON_TOKEN)) {
    const i = m.index ?? 0;
    if (i > last) out.push(pretty.slice(last, i));
    if (m[1] !== undefined) {
      out.push(<span class={m[2] ? 'tk-key' : 'tk-str'}>{m[1]}</span>);
      if (m[2]) out.push(m[2]);
    } else if (m[3] !== undefined) out.push(<span class={m[3] === 'null' ? 'tk-null' : 'tk-bool'}>{m[3]}</span>);
    else out.push(<span class="tk-num">{m[0]}</span>);
    last = i + m[0].length;
  }
  if (last < pretty.length) out.push(pretty.slice(last));
  return out;
}

export function prettyJson(content: string): string {
  return JSON.stringify(JSON.parse(content), null, 2);
}

/** Pretty XML (re-indented from the parsed tree) as highlighted nodes. */
export function highlightXml(content: string): ComponentChildren {
  const doc = parseXml(content.trim());
  if (!doc) return content;
  const out: ComponentChildren[] = [];
  const decl = /^<\?xml[^?]*\?>/.exec(content.trim());
  if (decl) out.push(<span class="tk-meta">{decl[0]}</span>, '\n');
  const pad = (d: number) => '  '.repeat(d);
  const walk = (node: Node, depth: number) => {
    switch (node.nodeType) {
      case Node.ELEMENT_NODE: {
        const el = node as Element;
        const kids = [...el.childNodes].filter((c) => !(c.nodeType === Node.TEXT_NODE && !c.nodeValue?.trim()));
        const attrs = [...el.attributes].flatMap((a) => [' ', <span class="tk-attr">{a.name}</span>, '=', <span class="tk-str">"{a.value}"</span>]);
        out.push(pad(depth), <span class="tk-tag">&lt;{el.tagName}</span>, ...attrs);
        if (kids.length === 0) {
          out.push(<span class="tk-tag">/&gt;</span>, '\n');
          return;
        }
        out.push(<span class="tk-tag">&gt;</span>);
        const onlyText = kids.length === 1 && kids[0]!.nodeType === Node.TEXT_NODE;
        if (onlyText) out.push(kids[0]!.nodeValue!.trim());
        else {
          out.push('\n');
          kids.forEach((k) => walk(k, depth + 1));
          out.push(pad(depth));
        }
        out.push(<span class="tk-tag">&lt;/{el.tagName}&gt;</span>, '\n');
        return;
      }
      case Node.TEXT_NODE:
        out.push(pad(depth), (node.nodeValue ?? '').trim(), '\n');
        return;
      case Node.CDATA_SECTION_NODE:
        out.push(pad(depth), <span class="tk-meta">{`<![CDATA[${node.nodeValue ?? ''}]]>`}</span>, '\n');
        return;
      case Node.COMMENT_NODE:
        out.push(pad(depth), <span class="tk-comment">{`<!--${node.nodeValue ?? ''}-->`}</span>, '\n');
        return;
      case Node.PROCESSING_INSTRUCTION_NODE: {
        const pi = node as ProcessingInstruction;
        out.push(pad(depth), <span class="tk-meta">{`<?${pi.target} ${pi.data}?>`}</span>, '\n');
        return;
      }
    }
  };
  doc.childNodes.forEach((n) => walk(n, 0));
  return out;
}

// --- curl ----------------------------------------------------------------------------------------

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const SKIP_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'accept-encoding', 'expect']);

/** The captured request as a curl command that sends it again to the same URL. */
export function toCurl(r: CapturedRequest): string {
  const lines = [`curl -X ${r.method} ${shq(r.url)}`];
  for (const [k, v] of headerEntries(r.headers)) {
    if (!SKIP_HEADERS.has(k.toLowerCase())) lines.push(`-H ${shq(`${k}: ${v}`)}`);
  }
  if (r.content) lines.push(`--data-binary ${shq(r.content)}`);
  return lines.join(' \\\n  ');
}

/** A Postman collection (v2.1) holding the captured request, to send it again from Postman. */
export function toPostman(r: CapturedRequest): string {
  const name = `${r.method} ${r.url.replace(/^https?:\/\/[^/]+/, '')}`;
  const header = headerEntries(r.headers)
    .filter(([k]) => !SKIP_HEADERS.has(k.toLowerCase()))
    .map(([key, value]) => ({ key, value }));
  const request = { method: r.method, header, url: { raw: r.url }, ...(r.content ? { body: { mode: 'raw', raw: r.content } } : {}) };
  const collection = {
    info: { name: `Captured ${name}`, _postman_id: r.uuid, schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
    item: [{ name, request }],
  };
  return JSON.stringify(collection, null, 2);
}

const LINK = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;

/** Text with its http(s) addresses as links (opened in a new tab, no referrer). */
export function linkify(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(LINK)) {
    if (m.index! > last) out.push(text.slice(last, m.index));
    out.push(
      <a href={m[0]} target="_blank" rel="noopener noreferrer nofollow">
        {m[0]}
      </a>,
    );
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// --- clipboard -----------------------------------------------------------------------------------

export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.append(ta);
  ta.select();
  let ok: boolean;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}
