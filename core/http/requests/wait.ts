// GET /token/{id}/requests/wait: answers with a request matching `query` newer than `after`, at
// once when one is stored, else when one arrives (core/realtime/waiters.ts), else 408.
import type { ParameterizedContext } from 'koa';
import type { z } from 'zod';
import { HttpError, NotFound, ValidationError } from '../../errors.js';
import { WAITERS } from '../../service-keys.js';
import type { RequestRecord, Store, TokenRecord } from '../../store/types.js';
import type { AppState, HttpServices } from '../services.js';
import { requestView } from '../../capture/request-view.js';
import type { WaitQuery } from './requests.schema.js';
import { parseSearch } from './search.js';

/**
 * One capture can wake a thousand waiters with the same record: its JSON is built once. (The view's
 * token part is the token's default response, the same for every waiter of that token.)
 */
const viewJson = new WeakMap<RequestRecord, string>();
function viewOf(r: RequestRecord, token: TokenRecord): string {
  let json = viewJson.get(r);
  if (json === undefined) viewJson.set(r, (json = JSON.stringify(requestView(r, token))));
  return json;
}

/** `after` as a sorting key: given as one, or the sorting key of the named request of this token. */
async function afterSorting(store: Store, token: TokenRecord, after: string | undefined): Promise<number | null> {
  if (after === undefined) return null;
  if (/^\d+$/.test(after)) return Number(after);
  const r = await store.requests.get(token.uuid, after.toLowerCase());
  if (!r) throw new ValidationError('after: no request of this token has this ID', { after: ['no request of this token has this ID'] });
  return r.sorting;
}

export async function waitForRequest(ctx: ParameterizedContext<AppState>, services: HttpServices, token: TokenRecord, params: z.output<typeof WaitQuery>): Promise<void> {
  const q = { data: params };
  const queryText = q.data.query?.trim() ?? '';
  const query = queryText === '' ? null : parseSearch(queryText);
  const after = await afterSorting(services.store, token, q.data.after);
  const waiters = services.provided?.get(WAITERS);
  if (!waiters) throw new HttpError(503, 'Waiting for requests needs the realtime module, which is not running');

  // The caller hanging up ends the wait (and frees its listener) at once.
  const gone = new AbortController();
  const onClose = () => gone.abort();
  ctx.res.once('close', onClose);
  try {
    const outcome = await waiters.wait({ tokenId: token.uuid, query, queryText, afterSorting: after, timeoutMs: q.data.timeout * 1000, signal: gone.signal });
    switch (outcome.kind) {
      case 'found':
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = viewOf(outcome.request, token);
        return;
      case 'timeout':
        throw new HttpError(408, `No matching request arrived within ${q.data.timeout} s`);
      case 'gone':
        throw new NotFound('Token not found');
      case 'closing':
        throw new HttpError(503, 'The service is shutting down');
      case 'aborted':
        // Nobody is left to answer.
        ctx.status = 204;
        return;
    }
  } finally {
    ctx.res.off('close', onClose);
  }
}
