// The replay API (POST/GET /token/{id}/replays...) as the page uses it.
import type { Operations } from '../../packages/client/src/api-types';
import { call, enc } from './api';

// The shapes come from the API's own document (packages/client's generated types), not a copy.
export type Replay = Operations['GET /token/{token_id}/replays/{replay_id}']['response'];
export type ReplayLogEntry = Replay['log'][number];

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
