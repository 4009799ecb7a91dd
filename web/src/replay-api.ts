// The replay API (POST/GET /token/{id}/replays...) as the page uses it.
import { call, enc } from './api';

export interface ReplayLogEntry {
  request_id: string;
  outcome: 'failed' | 'skipped';
  message: string;
}

export interface Replay {
  id: string;
  token_id: string;
  mode: 'actions' | 'forward';
  url: string | null;
  method: string | null;
  query: string | null;
  sorting: 'oldest' | 'newest';
  ordered: boolean;
  limit: number;
  status: 'queued' | 'running' | 'done' | 'cancelled' | 'failed';
  cancel_requested: boolean;
  total: number;
  processed: number;
  ran: number;
  failed: number;
  skipped: number;
  progress: number;
  log: ReplayLogEntry[];
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface ReplayStart {
  mode: 'actions' | 'forward';
  url?: string;
  method?: string;
  query?: string;
  sorting: 'oldest' | 'newest';
  ordered: boolean;
  limit: number;
}

export const isActive = (r: Replay) => r.status === 'queued' || r.status === 'running';

export function startReplay(tokenId: string, body: ReplayStart): Promise<Replay> {
  return call<Replay>('POST', `/token/${enc(tokenId)}/replays`, { json: body, token: tokenId });
}

export async function listReplays(tokenId: string): Promise<Replay[]> {
  return (await call<{ data: Replay[] }>('GET', `/token/${enc(tokenId)}/replays`, { token: tokenId })).data;
}

export function getReplay(tokenId: string, id: string): Promise<Replay> {
  return call<Replay>('GET', `/token/${enc(tokenId)}/replays/${enc(id)}`, { token: tokenId });
}

export function cancelReplay(tokenId: string, id: string): Promise<Replay> {
  return call<Replay>('POST', `/token/${enc(tokenId)}/replays/${enc(id)}/cancel`, { token: tokenId });
}

/** How many requests a search query matches (the request list's total). */
export async function matchingCount(tokenId: string, query: string, signal?: AbortSignal): Promise<number> {
  const q = new URLSearchParams({ per_page: '1' });
  if (query.trim()) q.set('query', query.trim());
  return (await call<{ total: number }>('GET', `/token/${enc(tokenId)}/requests?${q}`, { token: tokenId, signal })).total;
}
