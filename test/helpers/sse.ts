// A small Server-Sent Events client for tests: parses frames and comments off a fetch stream.
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
  json: any;
}

export interface SseClient {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (from the start of the stream) matching, waiting up to `ms`. */
  waitFor(pred: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  /** Resolves once `n` events matching arrived. */
  waitForCount(pred: (e: SseEvent) => boolean, n: number, ms?: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  let ended: Promise<void> = Promise.resolve();
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    ended = (async () => {
      let buf = '';
      let frame: { id?: string; event?: string; data: string[] } = { data: [] };
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            if (line === '') {
              if (frame.data.length || frame.event) {
                const data = frame.data.join('\n');
                let json: unknown = null;
                try {
                  json = JSON.parse(data);
                } catch {
                  json = null;
                }
                events.push({ id: frame.id, event: frame.event ?? 'message', data, json });
              }
              frame = { data: [] };
              notify();
              continue;
            }
            if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
              notify();
              continue;
            }
            const i = line.indexOf(':');
            const field = i < 0 ? line : line.slice(0, i);
            const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (field === 'data') frame.data.push(value);
            else if (field === 'event') frame.event = value;
            else if (field === 'id') frame.id = value;
          }
        }
      } catch {
        // aborted
      } finally {
        notify();
      }
    })();
  } else {
    await res.arrayBuffer().catch(() => undefined);
  }

  function waitForCount(pred: (e: SseEvent) => boolean, n: number, ms = 5000): Promise<SseEvent[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = events.filter(pred);
        if (found.length >= n) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found.slice(0, n));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`SSE: ${events.filter(pred).length} of ${n} expected events after ${ms} ms; got ${JSON.stringify(events.map((e) => e.event))}`));
      }, ms);
      waiters.add(check);
      check();
    });
  }

  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    waitFor: async (pred, ms) => (await waitForCount(pred, 1, ms))[0]!,
    waitForCount,
    ended,
    close: () => ac.abort(),
  };
}
