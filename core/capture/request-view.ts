// A captured request as the API (and the realtime channel) shows it.
import { queryAllOf } from './query.js';
import { sentResponseOf } from './sent-response.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';

/**
 * With `token`, a capture answered with the token's default response shows that response; without
 * (realtime events, actions' view of the request) `response` is only there when it was stored.
 */
export function requestView(r: RequestRecord, token?: TokenRecord): Record<string, unknown> {
  const response = sentResponseOf(r, token);
  return {
    uuid: r.uuid,
    type: r.type,
    token_id: r.token_id,
    team_id: r.team_id,
    ip: r.ip,
    hostname: r.hostname,
    method: r.method,
    user_agent: r.user_agent,
    content: r.body.toString('utf8'),
    query: r.query,
    request: r.form ?? {},
    headers: r.headers,
    url: r.url,
    size: r.size,
    files: r.files,
    custom_action_output: r.custom_action_output,
    custom_action_errors: r.custom_action_errors,
    note: r.note,
    time: r.time,
    sorting: r.sorting,
    ...r.extra,
    // Every value of each query key (`query` keeps the last); `extra` holds it when a key repeated.
    query_all: queryAllOf(r.query, r.extra),
    // What was sent back; `extra.response` is its stored form, never shown as is.
    response: response ?? undefined,
    created_at: formatTimestamp(r.created_at),
    updated_at: formatTimestamp(r.updated_at),
  };
}
