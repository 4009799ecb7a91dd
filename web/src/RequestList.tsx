// The live list of a token's requests, newest first: search, counts, follow the newest, export
// (CSV, HAR) and delete.
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api';
import { formatSize, formatTime, headerValue, methodLabel, requestDate, requestPath } from './format';
import { StatusCode } from './HttpMessage';
import type { LiveMode } from './live';
import type { ViewedRequest } from './requests-api';
import { notifyOn, setNotifyOn } from './request-prefs';
import { href } from './route';
import { CopyButton, DocsLink, ErrorNotice, Spinner } from './ui';
import './requests.css';

interface Props {
  tokenRef: string;
  /** The token's UUID and alias: list paths are shown relative to them. */
  tokenNames: Array<string | null>;
  items: ViewedRequest[];
  /** Requests matching the search (all of them without one). */
  total: number;
  /** Requests of the token, whatever the search. */
  overall: number;
  selected?: string;
  loading: boolean;
  error: ApiError | null;
  isLast: boolean;
  query: string;
  setQuery: (q: string) => void;
  mode: LiveMode;
  fresh: Set<string>;
  captureUrl: string;
  email: string;
  loadOlder: () => Promise<void>;
  deleteAll: () => Promise<void>;
  /** Select each new request as it arrives. */
  follow: boolean;
  setFollow: (on: boolean) => void;
  exportAs: (format: 'csv' | 'har') => Promise<void>;
}

const MODE_TEXT: Record<LiveMode, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  polling: 'Refreshing every 2 s',
};

export function RequestList(p: Props) {
  const [text, setText] = useState(p.query);
  useEffect(() => setText(p.query), [p.query]);
  const searchError = p.error && p.error.status === 422 ? p.error : null;
  const [exporting, setExporting] = useState<'csv' | 'har' | null>(null);
  const [exportError, setExportError] = useState<Error | null>(null);
  async function exportAs(format: 'csv' | 'har') {
    setExporting(format);
    setExportError(null);
    try {
      await p.exportAs(format);
    } catch (e) {
      setExportError(e as Error);
    } finally {
      setExporting(null);
    }
  }
  // Nothing to act on under a search that failed: the list is empty, not unfiltered.
  const canAct = !searchError && p.total > 0;
  const what = p.query ? 'matching requests' : 'requests';

  return (
    <section class="list-pane" aria-labelledby="requests-title">
      <div class="list-head">
        <h2 id="requests-title">
          Requests{' '}
          <span class="count" data-testid="request-count">
            {p.query ? `${searchError ? 0 : p.total} matching of ${p.overall} total` : p.overall}
          </span>
        </h2>
        <span class={`live-state ${p.mode}`} role="status" title={p.mode === 'polling' ? 'The live stream is not available: the list is refreshed every 2 seconds' : undefined}>
          <span class="dot" aria-hidden="true" />
          {MODE_TEXT[p.mode]}
        </span>
      </div>
      <form
        role="search"
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          p.setQuery(text.trim());
        }}
      >
        <label for="search" class="sr-only">
          Search requests
        </label>
        <input
          id="search"
          type="search"
          value={text}
          placeholder='method:POST AND content:"order"'
          spellcheck={false}
          aria-invalid={searchError ? true : undefined}
          aria-describedby="search-help"
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        />
        <button class="btn small" type="submit">
          Search
        </button>
        {p.query && (
          <button
            class="btn small"
            type="button"
            onClick={() => {
              setText('');
              p.setQuery('');
            }}
          >
            Clear
          </button>
        )}
      </form>
      <p id="search-help" class={searchError ? 'field-error' : 'hint small'}>
        {searchError ? (
          searchError.message
        ) : (
          <>
            Query language: <code>method:POST</code>, <code>query.id:42</code>, <code>headers.x-key:abc</code>, <code>created_at:[now-1h TO *]</code>, AND/OR/NOT. <DocsLink page="search.md">Search language</DocsLink>
          </>
        )}
      </p>
      <div class="list-actions">
        <label class="check follow">
          <input type="checkbox" checked={p.follow} onChange={(e) => p.setFollow((e.currentTarget as HTMLInputElement).checked)} />
          Follow newest
        </label>
        {typeof Notification !== 'undefined' && <NotifyToggle />}
        <div class="toggle">
          <button class="btn small" type="button" disabled={!canAct || exporting !== null} aria-label={`Export the ${what} as CSV`} onClick={() => void exportAs('csv')}>
            {exporting === 'csv' ? 'Exporting…' : 'CSV'}
          </button>
          <button class="btn small" type="button" disabled={!canAct || exporting !== null} aria-label={`Export the ${what} as HAR`} onClick={() => void exportAs('har')}>
            {exporting === 'har' ? 'Exporting…' : 'HAR'}
          </button>
          {canAct && (
            <button class="btn small danger" type="button" onClick={() => void p.deleteAll()}>
              {p.query ? `Delete ${p.total} matching` : 'Delete all'}
            </button>
          )}
        </div>
      </div>
      {exportError && <ErrorNotice error={exportError} />}
      {p.error && !searchError && <ErrorNotice error={p.error} />}
      {p.loading && p.items.length === 0 ? (
        <Spinner label="Loading requests" />
      ) : searchError ? null : p.items.length === 0 ? (
        p.query ? (
          <p class="hint pad">No request matches this search.</p>
        ) : (
          <Waiting captureUrl={p.captureUrl} email={p.email} />
        )
      ) : (
        <ol class="req-list" aria-label={p.query ? 'Matching requests, newest first' : 'Requests, newest first'}>
          {p.items.map((r) => (
            <li key={r.uuid} class={[p.fresh.has(r.uuid) && 'fresh', failed(r) && 'failed'].filter(Boolean).join(' ') || undefined}>
              <a href={href({ view: 'token', token: p.tokenRef, tab: 'requests', request: r.uuid })} aria-current={p.selected === r.uuid ? 'true' : undefined} data-request-id={r.uuid}>
                <span class={`method m-${r.method.toLowerCase()}`}>{methodLabel(r)}</span>
                <span class="path" title={requestPath(r)}>
                  {requestPath(r, p.tokenNames)}
                </span>
                <span class="meta">
                  {failed(r) && (
                    <span class="badge bad" title="A custom action failed on this request">
                      <span aria-hidden="true">!</span>
                      <span class="sr-only">actions failed</span>
                    </span>
                  )}
                  {r.response && (
                    <span class="answered">
                      <span class="sr-only">answered </span>
                      <StatusCode status={r.response.status} short />
                    </span>
                  )}
                  <time dateTime={requestDate(r)?.toISOString()}>{formatTime(requestDate(r))}</time>
                  <span>{formatSize(r.size)}</span>
                  {shortType(r) && <span class="ctype">{shortType(r)}</span>}
                  <span class="ip">{r.ip}</span>
                </span>
              </a>
            </li>
          ))}
        </ol>
      )}
      {!p.isLast && p.items.length > 0 && (
        <button class="btn small more" type="button" onClick={() => void p.loadOlder()}>
          Load older requests
        </button>
      )}
    </section>
  );
}

/** A custom action failed on the request: its row stands out, as on webhook.site. */
const failed = (r: ViewedRequest) => Array.isArray(r.custom_action_errors) && r.custom_action_errors.length > 0;

/** The request's content type without parameters (`application/json`, not `...; charset=utf-8`). */
function shortType(r: ViewedRequest): string {
  return (headerValue(r, 'content-type') ?? '').split(';')[0]!.trim();
}

function Waiting({ captureUrl, email }: { captureUrl: string; email: string }) {
  const curl = `curl -X POST -H 'Content-Type: application/json' -d '{"hello":"world"}' ${captureUrl}`;
  return (
    <div class="waiting">
      <p>
        <span class="spinner" aria-hidden="true" /> Waiting for the first request…
      </p>
      <p class="hint">Send anything to the capture URL, or an e-mail to {email}. For example:</p>
      <pre>
        <code>{curl}</code>
      </pre>
      <CopyButton text={curl} label="Copy the example command" />
    </div>
  );
}

/** Opt-in browser notifications of new requests while the page is in the background. */
function NotifyToggle() {
  const [on, setOn] = useState(() => notifyOn() && Notification.permission === 'granted');
  const [denied, setDenied] = useState(Notification.permission === 'denied');
  return (
    <label class="check follow" title={denied ? 'Notifications are blocked for this site in the browser settings' : 'Notify me of new requests while this page is in the background'}>
      <input
        type="checkbox"
        checked={on}
        disabled={denied}
        onChange={async (e) => {
          const want = (e.currentTarget as HTMLInputElement).checked;
          const granted = want && (Notification.permission === 'granted' || (await Notification.requestPermission()) === 'granted');
          setNotifyOn(granted);
          setOn(granted);
          setDenied(Notification.permission === 'denied');
        }}
      />
      Notify
    </label>
  );
}
