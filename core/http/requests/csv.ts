// CSV export of captured requests: fixed columns, then one column per header, query parameter and
// form field seen in any of the exported requests.
import { queryAllOf } from '../../capture/query.js';
import type { RequestRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';

const FIXED = ['uuid', 'type', 'method', 'url', 'ip', 'hostname', 'user_agent', 'size', 'created_at', 'note', 'content'] as const;

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // Quote everything that could break a row; neutralise spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) || safe !== s ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function requestsToCsv(items: RequestRecord[]): string {
  const dyn = { header: new Set<string>(), query: new Set<string>(), form: new Set<string>() };
  for (const r of items) {
    Object.keys(r.headers).forEach((k) => dyn.header.add(k));
    Object.keys(r.query ?? {}).forEach((k) => dyn.query.add(k));
    Object.keys(r.form ?? {}).forEach((k) => dyn.form.add(k));
  }
  const cols = [...FIXED, ...[...dyn.header].map((k) => `header.${k}`), ...[...dyn.query].map((k) => `query.${k}`), ...[...dyn.form].map((k) => `request.${k}`)];
  const rows = items.map((r) => {
    const fixed: Record<string, unknown> = {
      uuid: r.uuid, type: r.type, method: r.method, url: r.url, ip: r.ip, hostname: r.hostname, user_agent: r.user_agent,
      size: r.size, created_at: formatTimestamp(r.created_at), note: r.note, content: r.body.toString('utf8'),
    };
    const query = queryAllOf(r.query, r.extra); // a repeated key's values in one cell, like a header's
    return cols
      .map((c) => {
        if (c in fixed) return cell(fixed[c]);
        const [kind, ...rest] = c.split('.');
        const key = rest.join('.');
        if (kind === 'header') return cell(r.headers[key]);
        if (kind === 'query') return cell(query?.[key]);
        return cell(r.form?.[key]);
      })
      .join(',');
  });
  return [cols.map(cell).join(','), ...rows].join('\r\n') + '\r\n';
}
