// The requests table's columns as the capture writer fills them, and a stored row read back as a
// record. Imports nothing but types: the writer thread loads it (writer/writer-worker.ts).
import type { RequestRecord } from '../../types.js';

/**
 * A row's columns, in its order. Most captures (no form, files, actions or note) leave the last six
 * at their defaults: their row stops before them (PLAIN_COLUMNS values) and the INSERT writes the
 * defaults itself, which spares binding six values per capture. team_id is in the head: every
 * capture of a team's token has one.
 */
export const COLUMNS = [
  'uuid', 'token_id', 'type', 'ip', 'hostname', 'method', 'user_agent', 'url', 'content_type', 'body', 'size', 'query', 'headers',
  'time', 'sorting', 'created_at', 'updated_at', 'team_id',
  'form', 'files', 'output', 'errors', 'note', 'extra',
] as const;
export const PLAIN_COLUMNS = 18;
/** The tail columns' values in a plain row, as SQL. */
const PLAIN_TAIL = "NULL, '[]', '[]', '[]', NULL, '{}'";

// Positions in a row of what the batch needs besides inserting it.
export const UUID = 0;
export const TOKEN = 1;
export const CREATED_AT = 15;

/** JSON text of a column; the common empty values skip the serializer (this is the capture hot path). */
export const json = (v: unknown) =>
  Array.isArray(v) && v.length === 0 ? '[]' : v !== null && typeof v === 'object' && isEmpty(v) ? '{}' : JSON.stringify(v);
function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** The INSERT's parameters for a record, in COLUMNS order; without the tail when it holds the defaults. */
export function toRow(r: RequestRecord): unknown[] {
  const row: unknown[] = [
    r.uuid, r.token_id, r.type, r.ip, r.hostname, r.method, r.user_agent, r.url, r.content_type, r.body, r.size,
    r.query === null ? null : json(r.query), json(r.headers), r.time, r.sorting, r.created_at, r.updated_at, r.team_id,
  ];
  const plain = r.form === null && r.files.length === 0 && r.custom_action_output.length === 0 &&
    r.custom_action_errors.length === 0 && r.note === null && isEmpty(r.extra);
  if (!plain) {
    row.push(r.form === null ? null : json(r.form), json(r.files), json(r.custom_action_output), json(r.custom_action_errors), r.note, json(r.extra));
  }
  return row;
}

/** The INSERT of the requests columns, in COLUMNS order, for a full row or a plain one (toRow's two forms). */
export function insertSql(plain: boolean): string {
  const values = Array(plain ? PLAIN_COLUMNS : COLUMNS.length).fill('?');
  if (plain) values.push(PLAIN_TAIL);
  return `INSERT INTO requests (${COLUMNS.join(', ')}) VALUES (${values.join(', ')})`;
}

