// `listen`: a capture waits up to N seconds for a response set through the set-response endpoint
// (the webhook.site CLI's `forward --listen-timeout`). The wait is kept in the store, so the PUT
// may reach any process sharing it.
import type { SetResponse, Store } from '../store/types.js';
import { sleep, type Clock } from '../util/time.js';
import type { CapturedResponse } from './pipeline.js';

const POLL_MS = 50;

/** Headers that belong to one connection, never forwarded to the waiting caller. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'content-length']);

export async function waitForSetResponse(store: Store, clock: Clock, tokenId: string, requestUuid: string, seconds: number): Promise<SetResponse | null> {
  const deadline = clock.now() + seconds * 1000;
  await store.listeners.open(requestUuid, tokenId, deadline);
  try {
    for (;;) {
      const r = await store.listeners.poll(requestUuid);
      const left = deadline - clock.now();
      if (r || left <= 0) return r;
      await sleep(Math.min(POLL_MS, left));
    }
  } finally {
    await store.listeners.close(requestUuid);
  }
}

export function responseFromSet(set: SetResponse, fallbackType: string): CapturedResponse {
  const headers: Record<string, string> = {};
  let contentType = fallbackType;
  for (const [name, value] of Object.entries(set.headers ?? {})) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    const v = Array.isArray(value) ? value.join(', ') : String(value);
    if (lower === 'content-type') contentType = v;
    else headers[name] = v;
  }
  return { status: set.status, content: Buffer.from(set.content ?? '', 'base64'), contentType, headers };
}
