// The request view's calls beyond listing: the answer a capture was sent, its note, re-running the
// actions on it, forwarding it, exporting the list. Everything goes through api.ts's `call`.
import { call, download, enc, type CapturedRequest } from './api';

/** What a capture URL sent back (the API's `response`). */
export interface SentResponse {
  status: number;
  content_type: string;
  headers: Record<string, string>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
  /** `default`: the token's default response as it is set now. */
  source: 'stored' | 'default';
}

export type ViewedRequest = CapturedRequest & { response?: SentResponse };

export interface ForwardResult {
  status: number;
  headers: Record<string, string[]>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
  /** Seconds. */
  time: number;
  url: string;
  method: string;
}

export interface RerunResult {
  success: boolean;
  result: {
    /** Output lines by action ID. */
    output: Record<string, string[]>;
    errors: Array<{ action: string; message: string }>;
    response: { content: string | null; status: number | null; headers: Record<string, string> | null };
    dont_save: boolean;
    stopped: boolean;
    variables: Record<string, unknown>;
  };
}

/** An action of the token, as far as naming it goes. */
export interface ActionInfo {
  uuid: string;
  type: string;
  order: number;
  name: string | null;
}

const requestPath = (tokenId: string, requestId: string) => `/token/${enc(tokenId)}/request/${enc(requestId)}`;

export function getRequest(tokenId: string, requestId: string): Promise<ViewedRequest> {
  return call<ViewedRequest>('GET', requestPath(tokenId, requestId), { token: tokenId });
}

export function saveNote(tokenId: string, requestId: string, note: string | null): Promise<ViewedRequest> {
  return call<ViewedRequest>('PUT', `${requestPath(tokenId, requestId)}/note`, { token: tokenId, json: { note } });
}

export function rerunActions(tokenId: string, requestId: string): Promise<RerunResult> {
  return call<RerunResult>('POST', `${requestPath(tokenId, requestId)}/execute`, { token: tokenId, json: {} });
}

export function forwardRequest(tokenId: string, requestId: string, url: string, method?: string): Promise<ForwardResult> {
  return call<ForwardResult>('POST', `${requestPath(tokenId, requestId)}/forward`, { token: tokenId, json: method ? { url, method } : { url } });
}

export async function tokenActions(tokenId: string): Promise<ActionInfo[]> {
  return (await call<{ data: ActionInfo[] }>('GET', `/token/${enc(tokenId)}/actions`, { token: tokenId })).data;
}

/** How many requests the token holds, whatever the search. */
export async function overallTotal(tokenId: string): Promise<number> {
  return (await call<{ total: number }>('GET', `/token/${enc(tokenId)}/requests?per_page=1`, { token: tokenId })).total;
}

/** Saves the (matching) requests, newest first, as CSV or HAR. */
export function exportRequests(tokenId: string, format: 'csv' | 'har', query: string): Promise<void> {
  const q = new URLSearchParams({ format, sorting: 'newest' });
  if (query) q.set('query', query);
  return download(`/token/${enc(tokenId)}/requests/export?${q}`, `requests-${tokenId}.${format}`, tokenId);
}

/** "#2 http (Notify shop)" for an action ID; the ID itself for an action that is gone. */
export function actionLabel(id: string, actions: ActionInfo[] | null): string {
  if (!id) return 'The action chain';
  const a = actions?.find((x) => x.uuid === id);
  if (!a) return `Action ${id}`;
  return `Action #${a.order} ${a.type}${a.name ? ` (${a.name})` : ''}`;
}

/** An error of `custom_action_errors` in words: stored errors are {action, message}; the reference's are bare action IDs. */
export function actionErrorText(e: unknown, actions: ActionInfo[] | null): { action: string; message: string } {
  if (typeof e === 'string') return { action: actionLabel(e, actions), message: '' };
  if (e && typeof e === 'object') {
    const o = e as { action?: unknown; message?: unknown };
    return { action: actionLabel(typeof o.action === 'string' ? o.action : '', actions), message: typeof o.message === 'string' ? o.message : JSON.stringify(e) };
  }
  return { action: 'The action chain', message: String(e) };
}
