// `listen`: a capture waits up to N seconds from its arrival for a response set through the
// set-response endpoint (the webhook.site CLI's `forward --listen-timeout`). The wait is kept in
// the store, so the PUT may reach any process sharing it.
import { sendableHeaders } from '@capture/sdk/headers';
import type { SetResponse, Store } from '../store/types.js';
import { sleep, type Clock } from '../util/time.js';
import type { CapturedResponse } from './pipeline.js';

const POLL_MS = 50;

/** A capture's wait for a set-response: `response()` polls until one is set or the time is up. */
export interface Listening {
  response(): Promise<SetResponse | null>;
  /** Ends the wait: a set-response after it is refused. */
  close(): Promise<void>;
}

/**
 * Opens a capture's wait, for `seconds` from now. Call it before the capture is stored: from the
 * moment the capture can be listed, a set-response for it must find the wait open (opened after
 * the store, a client that listed the capture at once and answered it could get a 409, seen with
 * two processes on MongoDB).
 */
export async function listenFor(store: Store, clock: Clock, tokenId: string, requestUuid: string, seconds: number): Promise<Listening> {
  const deadline = clock.now() + seconds * 1000;
  await store.listeners.open(requestUuid, tokenId, deadline);
  return {
    async response() {
      for (;;) {
        const r = await store.listeners.poll(requestUuid);
        const left = deadline - clock.now();
        if (r || left <= 0) return r;
        await sleep(Math.min(POLL_MS, left));
      }
    },
    close: () => store.listeners.close(requestUuid),
  };
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
