// CSV export of captured requests: fixed columns, then one column per header, query parameter and
// form field seen in any of the exported requests. export.ts streams it a page at a time.
import { isUtf8 } from 'node:buffer';
import { queryAllOf } from '../../capture/query.js';
import type { RequestRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';

// `content_base64`: the body in base64 when it is not UTF-8 (empty otherwise), as the API gives it.
const FIXED = ['uuid', 'type', 'method', 'http_version', 'url', 'ip', 'hostname', 'user_agent', 'size', 'created_at', 'note', 'content', 'content_base64'] as const;

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // Quote everything that could break a row; neutralise spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) || safe !== s ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The header, query and form keys seen in the exported requests: one column each. */
export interface CsvKeys {
  header: Set<string>;
  query: Set<string>;
  form: Set<string>;
}

export const csvKeys = (): CsvKeys => ({ header: new Set(), query: new Set(), form: new Set() });

export function addCsvKeys(keys: CsvKeys, items: readonly RequestRecord[]): void {
  for (const r of items) {
    Object.keys(r.headers).forEach((k) => keys.header.add(k));
    Object.keys(r.query ?? {}).forEach((k) => keys.query.add(k));
    Object.keys(r.form ?? {}).forEach((k) => keys.form.add(k));
  }
}

export function csvColumns(keys: CsvKeys): string[] {
  return [...FIXED, ...[...keys.header].map((k) => `header.${k}`), ...[...keys.query].map((k) => `query.${k}`), ...[...keys.form].map((k) => `request.${k}`)];
}

/** The header line, CRLF-terminated. */
export const csvHeader = (cols: readonly string[]): string => cols.map(cell).join(',') + '\r\n';

/** One request's line, CRLF-terminated; a key not among the columns is left out. */
export function csvRow(r: RequestRecord, cols: readonly string[]): string {
  const body = r.body;
  const fixed: Record<string, unknown> = {
    uuid: r.uuid,
    type: r.type,
    method: r.method,
    http_version: r.httpVersion,
    url: r.url,
    ip: r.ip,
    hostname: r.hostname,
    user_agent: r.user_agent,
    size: r.size,
    created_at: formatTimestamp(r.created_at),
    note: r.note,
    content: body.toString('utf8'),
    content_base64: body.length && !isUtf8(body) ? body.toString('base64') : '',
  };
  const query = queryAllOf(r.query, r.extra); // a repeated key's values in one cell, like a header's
  return (
    cols
      .map((c) => {
        if (c in fixed) return cell(fixed[c]);
        const [kind, ...rest] = c.split('.');
        const key = rest.join('.');
        if (kind === 'header') return cell(r.headers[key]);
        if (kind === 'query') return cell(query?.[key]);
        return cell(r.form?.[key]);
      })
      .join(',') + '\r\n'
  );
}
