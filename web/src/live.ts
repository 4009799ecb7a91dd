// The live feed of one token: Server-Sent Events from `/token/{id}/events`, and polling of the
// newest requests every 2 s whenever that stream is down (no realtime module on the server, or a
// proxy that breaks long-lived responses). EventSource resumes with Last-Event-ID by itself.
import { enc, streamAuthQuery, type CapturedRequest, type Token } from './api';

export type LiveMode = 'connecting' | 'live' | 'polling';

export interface LiveHandlers {
  created(r: CapturedRequest): void;
  deleted(d: { uuid?: string; all?: boolean }): void;
  tokenUpdated(t: Token): void;
  /** The token is gone: the feed has stopped. */
  tokenDeleted(): void;
  /** Fetch the newest requests again (a poll, or a resync after the stream reconnects). */
  refresh(): Promise<void>;
  mode(m: LiveMode): void;
}

export const POLL_MS = 2000;
/** How long to wait before trying the stream again after the server refused it outright. */
const SSE_RETRY_MS = 30_000;

/** `authQuery`: the stream's credentials (default the API key and token password; `?share=` for a share link). */
export function connectLive(token: string, h: LiveHandlers, authQuery: () => string = () => streamAuthQuery(token)): () => void {
  let closed = false;
  let es: EventSource | null = null;
  let pollTimer: ReturnType<typeof setTimeout> | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let polling = false;
  let everOpen = false;

  const parse = <T>(e: MessageEvent): T | null => {
    try {
      return JSON.parse(e.data as string) as T;
    } catch {
      return null;
    }
  };

  function startPolling() {
    if (polling || closed) return;
    polling = true;
    h.mode('polling');
    const tick = async () => {
      if (!polling || closed) return;
      try {
        await h.refresh();
      } catch (e) {
        if ((e as { status?: number }).status === 404) {
          stop();
          h.tokenDeleted();
          return;
        }
        /* otherwise shown by the list; keep polling */
      }
      if (polling && !closed) pollTimer = setTimeout(tick, POLL_MS);
    };
    pollTimer = setTimeout(tick, POLL_MS);
  }

  function stopPolling() {
    polling = false;
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = null;
  }

  function open() {
    if (closed || typeof EventSource === 'undefined') {
      startPolling();
      return;
    }
    es = new EventSource(`/token/${enc(token)}/events${authQuery()}`);
    es.onopen = () => {
      const wasDown = polling || everOpen;
      everOpen = true;
      stopPolling();
      h.mode('live');
      // Whatever arrived while the stream was down (polling may lag by up to 2 s).
      if (wasDown) void h.refresh().catch(() => undefined);
    };
    es.onerror = () => {
      if (closed || !es) return;
      startPolling();
      if (es.readyState === EventSource.CLOSED) {
        // Refused (404, 401, not an event stream): EventSource gives up; try again later.
        es.close();
        es = null;
        retryTimer = setTimeout(open, SSE_RETRY_MS);
      }
      // CONNECTING: EventSource retries by itself and onopen stops the polling.
    };
    es.addEventListener('request.created', (e) => {
      const r = parse<CapturedRequest>(e as MessageEvent);
      if (r) h.created(r);
    });
    es.addEventListener('request.deleted', (e) => {
      const d = parse<{ uuid?: string; all?: boolean }>(e as MessageEvent);
      if (d) h.deleted(d);
    });
    es.addEventListener('token.updated', (e) => {
      const t = parse<Token>(e as MessageEvent);
      if (t) h.tokenUpdated(t);
    });
    es.addEventListener('token.deleted', () => {
      stop();
      h.tokenDeleted();
    });
  }

  function stop() {
    closed = true;
    stopPolling();
    if (retryTimer) clearTimeout(retryTimer);
    es?.close();
    es = null;
  }

  h.mode('connecting');
  open();
  return stop;
}
