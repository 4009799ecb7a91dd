// The SDK's RequestReader (webhook_get_requests): requests of another token of the same account,
// in the chain token's group or in no group, read through the store with the search language.
import type { TokenRecord, Store } from '../store/types.js';
import { requestView } from '../capture/request-view.js';
import { QuerySyntaxError, parseQuery } from '../store/query/index.js';
import type { CapturedRequest, Clock, RequestReader } from '@capture/sdk';

/** `https://host/<uuid>/anything`, `<uuid>` or an alias -> the token id or alias. */
export function tokenRefOf(text: string): string {
  const t = text.trim();
  if (!/^https?:\/\//i.test(t)) return t;
  try {
    return decodeURIComponent(new URL(t).pathname.split('/').filter(Boolean)[0] ?? '');
  } catch {
    return t;
  }
}

export function requestReader(store: Pick<Store, 'tokens' | 'requests'>, chainToken: Pick<TokenRecord, 'uuid' | 'user_id' | 'group_id'>, clock: Pick<Clock, 'now'>): RequestReader {
  return {
    async list(ref, opts) {
      const target = await store.tokens.resolve(tokenRefOf(ref));
      const sameToken = target?.uuid === chainToken.uuid;
      const sameAccount = !!target && chainToken.user_id !== null && target.user_id === chainToken.user_id;
      const groupOk = !!target && (target.group_id === null || target.group_id === chainToken.group_id);
      // One message for "missing" and "not yours", so other accounts' tokens cannot be probed.
      if (!target || !(sameToken || (sameAccount && groupOk))) throw new Error(`URL ${ref} not found, or not in this URL's account and group`);
      const limit = Math.max(0, Math.min(1000, Math.floor(opts.limit)));
      if (!limit) return [];
      let query: ReturnType<typeof parseQuery> | null;
      try {
        query = opts.query?.trim() ? parseQuery(opts.query) : null;
      } catch (e) {
        if (e instanceof QuerySyntaxError) throw new Error(`Invalid query: ${e.message}`);
        throw e;
      }
      const page = await store.requests.list(target.uuid, {
        query,
        dateFrom: null,
        dateTo: null,
        now: clock.now(),
        sorting: opts.sorting ?? 'newest',
        page: 1,
        perPage: limit,
      });
      return page.items.map((r) => requestView(r) as unknown as CapturedRequest);
    },
  };
}
