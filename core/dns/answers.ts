// The DNS answer a token gives: its response content (default content, or the body a Modify
// Response action set), when that is the documented JSON array of {type: a|cname|txt, value}.
// Anything else is not a valid answer, and the query gets an empty one.
import { isIPv4 } from 'node:net';

export type AnswerType = 'a' | 'cname' | 'txt';

export interface DnsAnswer {
  type: AnswerType;
  value: string;
}

/** More records than this is not a sensible answer (and would not fit a UDP reply anyway). */
export const MAX_ANSWERS = 50;

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

export function isHostname(name: string): boolean {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  return n.length > 0 && n.length <= 253 && n.split('.').every((l) => LABEL.test(l));
}

/** The records of a response body, or null when it is not a valid answer. */
export function parseAnswers(content: string): DnsAnswer[] | null {
  let doc: unknown;
  try {
    doc = JSON.parse(content);
  } catch {
    return null;
  }
  if (!Array.isArray(doc) || doc.length > MAX_ANSWERS) return null;
  const out: DnsAnswer[] = [];
  for (const item of doc) {
    if (!item || typeof item !== 'object') return null;
    const { type, value } = item as Record<string, unknown>;
    if (typeof type !== 'string' || typeof value !== 'string') return null;
    const t = type.toLowerCase();
    if (t === 'a') {
      if (!isIPv4(value)) return null;
    } else if (t === 'cname') {
      if (!isHostname(value)) return null;
    } else if (t !== 'txt') {
      return null;
    }
    out.push({ type: t as AnswerType, value: t === 'cname' ? value.replace(/\.$/, '') : value });
  }
  return out;
}

/** TXT character-strings are at most 255 bytes: a longer line is split (not cut). */
export function txtStrings(line: string): string[] {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 255) return [line];
  const out: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + 255, bytes.length);
    // Do not split inside a UTF-8 sequence (continuation bytes are 10xxxxxx).
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    out.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
  }
  return out;
}

/**
 * The records that answer a query of `qtype` ('A', 'TXT'...): those of that type; for any other
 * type, the name's CNAME when it has one (a CNAME stands for every type); all of them for ANY.
 */
export function select(answers: DnsAnswer[], qtype: string): DnsAnswer[] {
  const t = qtype.toLowerCase();
  if (t === 'any') return answers;
  const same = answers.filter((a) => a.type === t);
  if (same.length) return t === 'cname' ? same.slice(0, 1) : same;
  return answers.filter((a) => a.type === 'cname').slice(0, 1);
}
