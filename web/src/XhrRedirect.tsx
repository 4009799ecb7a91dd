// XHR Redirect: while the page is open, the browser sends each request that arrives live on to a
// URL of the viewer's choice (a server on their own machine, say), with its method, headers and
// body. The browser sends it, not the service: the target must answer CORS preflights, and only
// what a page may send goes along (fetch drops forbidden headers such as Host or Cookie).
import { useState } from 'preact/hooks';
import type { CapturedRequest } from './api';
import { headerEntries } from './format';

/** Headers a page may not set, or that describe the hop to this service rather than the request. */
const NOT_FORWARDED = /^(host|connection|content-length|transfer-encoding|keep-alive|upgrade|expect|te|trailer|cookie|cookie2|origin|referer|accept-encoding|accept-charset|date|dnt|via|proxy-.*|sec-.*|x-forwarded-.*)$/i;

export interface XhrResult {
  request: string;
  status: number | null;
  error?: string;
}

/** Sends one captured HTTP request to `target` from the browser. */
export async function xhrRedirect(r: CapturedRequest, target: string): Promise<XhrResult> {
  const headers = new Headers();
  for (const [name, value] of headerEntries(r.headers)) {
    if (NOT_FORWARDED.test(name)) continue;
    try {
      headers.append(name, value);
    } catch {
      /* a value fetch refuses is left out */
    }
  }
  const hasBody = !['GET', 'HEAD'].includes(r.method.toUpperCase()) && r.content !== '';
  try {
    const res = await fetch(target, { method: r.method, headers, body: hasBody ? r.content : undefined, mode: 'cors', credentials: 'omit' });
    return { request: r.uuid, status: res.status };
  } catch (e) {
    return { request: r.uuid, status: null, error: `${(e as Error).message} (does the target answer with CORS headers?)` };
  }
}

/** The settings a page keeps while open: off until the viewer turns it on. */
export interface XhrRedirectState {
  enabled: boolean;
  target: string;
}

export function XhrRedirectPanel({ state, onChange, last }: { state: XhrRedirectState; onChange: (s: XhrRedirectState) => void; last: XhrResult | null }) {
  const [target, setTarget] = useState(state.target);
  const valid = /^https?:\/\/\S+$/i.test(target.trim());
  return (
    <section class="panel" aria-labelledby="xhr-title">
      <h2 id="xhr-title">XHR Redirect</h2>
      <p class="hint small">While this page is open, your browser sends every new request on to this URL, with its method, headers and body. The target must allow cross-origin requests (CORS).</p>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) onChange({ enabled: !state.enabled, target: target.trim() });
        }}
      >
        <label>
          Target URL <input type="url" value={target} placeholder="http://localhost:3000/webhook" disabled={state.enabled} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
        </label>{' '}
        <button class="btn" type="submit" disabled={!valid && !state.enabled}>
          {state.enabled ? 'Stop redirecting' : 'Start redirecting'}
        </button>
      </form>
      <p class="hint small" role="status" id="xhr-status">
        {!state.enabled
          ? 'Off.'
          : last === null
            ? `Redirecting new requests to ${state.target}.`
            : last.status !== null
              ? `Last request redirected: the target answered ${last.status}.`
              : `Last request not redirected: ${last.error}`}
      </p>
    </section>
  );
}
