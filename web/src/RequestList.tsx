// The live list of a token's requests, newest first, with search and delete-all.
import { useEffect, useState } from 'preact/hooks';
import type { ApiError, CapturedRequest } from './api';
import { formatSize, formatTime, requestDate, requestPath } from './format';
import type { LiveMode } from './live';
import { href } from './route';
import { CopyButton, ErrorNotice, Spinner } from './ui';

interface Props {
  tokenRef: string;
  /** The token's UUID and alias: list paths are shown relative to them. */
  tokenNames: Array<string | null>;
  items: CapturedRequest[];
  total: number;
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

  return (
    <section class="list-pane" aria-labelledby="requests-title">
      <div class="list-head">
        <h2 id="requests-title">
          Requests <span class="count">{p.total}</span>
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
        {searchError ? searchError.message : (
          <>
            Query language: <code>method:POST</code>, <code>query.id:42</code>, <code>headers.x-key:abc</code>, <code>created_at:[now-1h TO *]</code>, AND/OR/NOT.
          </>
        )}
      </p>
      <div class="list-actions">
        <button class="btn small danger" type="button" onClick={() => void p.deleteAll()} disabled={p.total === 0}>
          {p.query ? 'Delete matching' : 'Delete all'}
        </button>
      </div>
      {p.error && !searchError && <ErrorNotice error={p.error} />}
      {p.loading && p.items.length === 0 ? (
        <Spinner label="Loading requests" />
      ) : p.items.length === 0 ? (
        p.query ? (
          <p class="hint pad">No request matches this search.</p>
        ) : (
          <Waiting captureUrl={p.captureUrl} email={p.email} />
        )
      ) : (
        <ol class="req-list" aria-label={p.query ? 'Matching requests, newest first' : 'Requests, newest first'}>
          {p.items.map((r) => (
            <li key={r.uuid} class={p.fresh.has(r.uuid) ? 'fresh' : undefined}>
              <a
                href={href({ view: 'token', token: p.tokenRef, tab: 'requests', request: r.uuid })}
                aria-current={p.selected === r.uuid ? 'true' : undefined}
                data-request-id={r.uuid}
              >
                <span class={`method m-${r.method.toLowerCase()}`}>{r.type === 'email' ? 'EMAIL' : r.method}</span>
                <span class="path" title={requestPath(r)}>{requestPath(r, p.tokenNames)}</span>
                <span class="meta">
                  <time dateTime={requestDate(r)?.toISOString()}>{formatTime(requestDate(r))}</time>
                  <span>{formatSize(r.size)}</span>
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
