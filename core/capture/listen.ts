// `listen`: a capture waits up to N seconds for a response set through the set-response endpoint
// (the webhook.site CLI's `forward --listen-timeout`). The wait is kept in the store, so the PUT
// may reach any process sharing it.
import { sendableHeaders } from '../sdk/headers.js';
import type { SetResponse, Store } from '../store/types.js';
import { sleep, type Clock } from '../util/time.js';
import type { CapturedResponse } from './pipeline.js';

const POLL_MS = 50;

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

/**
 * The waiting caller's answer. Connection headers (Transfer-Encoding, Content-Length...) are the
 * answering server's own and are dropped, as are bad names and values: the set-response endpoint
 * refuses them, but a stored one must not fail the answer.
 */
export function responseFromSet(set: SetResponse, fallbackType: string): CapturedResponse {
  const joined: Record<string, string> = {};
  for (const [name, value] of Object.entries(set.headers ?? {})) joined[name] = Array.isArray(value) ? value.join(', ') : String(value);
  const headers: Record<string, string> = {};
  let contentType = fallbackType;
  for (const [name, value] of Object.entries(sendableHeaders(joined))) {
    if (name.toLowerCase() === 'content-type') contentType = value;
    else headers[name] = value;
  }
  return { status: set.status, content: Buffer.from(set.content ?? '', 'base64'), contentType, headers };
}
