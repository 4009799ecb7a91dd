// Replay (webhook.site's "Replay Custom Actions"): run the token's actions again, or forward the
// requests to a URL, for all requests or those a search query matches, as a background job whose
// progress, summary (ran, failed, skipped) and first failures show here; it can be cancelled.
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api';
import { cancelReplay, isActive, listReplays, matchingCount, startReplay, type Replay } from './replay-api';
import { href } from './route';
import { ErrorNotice, FieldError, Spinner, TableHead } from './ui';
import './replay.css';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Above this many matching requests a warning is shown (as webhook.site does). */
const WARN_ABOVE = 50;
const POLL_MS = 500;

const STATUS_TEXT: Record<Replay['status'], string> = { queued: 'Queued', running: 'Running', done: 'Done', cancelled: 'Cancelled', failed: 'Failed' };

export function TokenReplay({ tokenId, tokenRef, initialQuery }: { tokenId: string; tokenRef: string; initialQuery: string }) {
  const [mode, setMode] = useState<'actions' | 'forward'>('actions');
  const [url, setUrl] = useState('');
  const [method, setMethod] = useState('');
  const [query, setQuery] = useState(initialQuery);
  const [sorting, setSorting] = useState<'oldest' | 'newest'>('oldest');
  const [ordered, setOrdered] = useState(false);
  const [limit, setLimit] = useState('100000');
  const [count, setCount] = useState<number | null>(null);
  const [countError, setCountError] = useState<ApiError | null>(null);
  const [replays, setReplays] = useState<Replay[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [starting, setStarting] = useState(false);

  // How many requests the query matches, as it is typed.
  useEffect(() => {
    const ctl = new AbortController();
    const t = setTimeout(() => {
      matchingCount(tokenId, query, ctl.signal).then(
        (n) => {
          setCount(n);
          setCountError(null);
        },
        (e: ApiError) => {
          if ((e as Error).name === 'AbortError') return;
          setCount(null);
          setCountError(e);
        },
      );
    }, 250);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [tokenId, query]);

  // The replays, followed while one is queued or running.
  const active = replays?.some(isActive) ?? false;
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      listReplays(tokenId).then(
        (rs) => {
          if (stop) return;
          setReplays(rs);
          if (rs.some(isActive)) timer = setTimeout(load, POLL_MS);
        },
        (e: ApiError) => !stop && setError(e),
      );
    void load();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [tokenId, active]);

  async function start(e: Event) {
    e.preventDefault();
    setStarting(true);
    setError(null);
    try {
      const r = await startReplay(tokenId, {
        mode,
        ...(mode === 'forward' ? { url: url.trim(), ...(method ? { method } : {}) } : {}),
        ...(query.trim() ? { query: query.trim() } : {}),
        sorting,
        ordered,
        limit: Number(limit),
      });
      setReplays((rs) => [r, ...(rs ?? []).filter((x) => x.id !== r.id)]);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setStarting(false);
    }
  }

  async function cancel(id: string) {
    try {
      const r = await cancelReplay(tokenId, id);
      setReplays((rs) => (rs ?? []).map((x) => (x.id === id ? r : x)));
    } catch (err) {
      setError(err as ApiError);
    }
  }

  const fieldErrors = error?.errors ?? {};
  const current = replays?.[0];
  return (
    <div class="replay">
      <section class="panel" aria-labelledby="replay-title">
        <h2 id="replay-title">Replay</h2>
        <p class="hint">
          Run this token's Custom Actions again — their new output replaces what is stored on each request, and queued actions run queued — or forward the requests to another URL. For all requests or those a search query
          matches, up to 100,000, in the background.
        </p>
        <form class="replay-form" aria-label="Start a replay" onSubmit={start}>
          <fieldset>
            <legend>What to do</legend>
            <label class="check">
              <input type="radio" name="replay-mode" value="actions" checked={mode === 'actions'} onChange={() => setMode('actions')} /> Run the actions again
            </label>
            <label class="check">
              <input type="radio" name="replay-mode" value="forward" checked={mode === 'forward'} onChange={() => setMode('forward')} /> Forward the requests to a URL
            </label>
            <FieldError form="replay" field="mode" errors={fieldErrors} />
          </fieldset>
          {mode === 'forward' && (
            <div class="forward-form">
              <div class="field grow">
                <label for="replay-url">Target URL</label>
                <input id="replay-url" type="url" required placeholder="https://example.com/webhook" value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
                <FieldError form="replay" field="url" errors={fieldErrors} />
              </div>
              <div class="field">
                <label for="replay-method">Method</label>
                <select id="replay-method" value={method} onChange={(e) => setMethod((e.currentTarget as HTMLSelectElement).value)}>
                  <option value="">As each was sent</option>
                  {METHODS.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </div>
            </div>
          )}
          <div class="field">
            <label for="replay-query">Requests matching (search query; empty: all)</label>
            <input id="replay-query" value={query} placeholder='method:POST AND created_at:["now-1d" TO *]' aria-describedby="replay-count" onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
            <p id="replay-count" class="hint small" aria-live="polite">
              {countError ? countError.message : count === null ? 'Counting…' : `${count} matching request${count === 1 ? '' : 's'}`}
            </p>
            {count !== null && count > WARN_ABOVE && (
              <p class="notice warn" role="note">
                More than {WARN_ABOVE} requests match: the replay runs on {Math.min(count, Number(limit) || 0)} of them.
              </p>
            )}
            <FieldError form="replay" field="query" errors={fieldErrors} />
          </div>
          <div class="replay-options">
            <div class="field">
              <label for="replay-sorting">Order</label>
              <select id="replay-sorting" value={sorting} onChange={(e) => setSorting((e.currentTarget as HTMLSelectElement).value as 'oldest' | 'newest')}>
                <option value="oldest">Oldest first</option>
                <option value="newest">Newest first</option>
              </select>
            </div>
            <div class="field">
              <label for="replay-limit">At most</label>
              <input id="replay-limit" type="number" min={1} max={100000} value={limit} onInput={(e) => setLimit((e.currentTarget as HTMLInputElement).value)} />
              <FieldError form="replay" field="limit" errors={fieldErrors} />
            </div>
            <label class="check">
              <input type="checkbox" checked={ordered} onChange={(e) => setOrdered((e.currentTarget as HTMLInputElement).checked)} /> Guaranteed ordering (one at a time, slower)
            </label>
          </div>
          <button class="btn primary" type="submit" disabled={starting || (mode === 'forward' && !url.trim())}>
            {starting ? 'Starting…' : 'Start the replay'}
          </button>
        </form>
        {error && !Object.keys(fieldErrors).length && <ErrorNotice error={error} />}
        {error && Object.keys(fieldErrors).length > 0 && (
          <p class="field-error" role="alert">
            {error.message}
          </p>
        )}
      </section>

      {replays === null && !error && <Spinner label="Loading the replays" />}
      {current && <ReplayProgress replay={current} tokenRef={tokenRef} onCancel={() => cancel(current.id)} />}
      {replays && replays.length > 1 && (
        <section class="panel" aria-labelledby="replay-history-title">
          <h3 id="replay-history-title">Earlier replays</h3>
          <table class="table">
            <TableHead columns={['Started', 'What', 'Status', 'Ran', 'Failed', 'Skipped']} />
            <tbody>
              {replays.slice(1).map((r) => (
                <tr key={r.id}>
                  <td>{r.created_at}</td>
                  <td>{describe(r)}</td>
                  <td>{STATUS_TEXT[r.status]}</td>
                  <td>{r.ran}</td>
                  <td>{r.failed}</td>
                  <td>{r.skipped}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}

function describe(r: Replay): string {
  const what = r.mode === 'actions' ? 'Actions run again' : `Forwarded to ${r.url}${r.method ? ` as ${r.method}` : ''}`;
  return `${what}${r.query ? ` — ${r.query}` : ''}${r.ordered ? ' (ordered)' : ''}`;
}

function ReplayProgress({ replay: r, tokenRef, onCancel }: { replay: Replay; tokenRef: string; onCancel: () => void }) {
  return (
    <section class="panel" aria-labelledby="replay-progress-title">
      <div class="section-head">
        <h3 id="replay-progress-title">Latest replay</h3>
        {isActive(r) && (
          <button type="button" class="btn small danger" disabled={r.cancel_requested} onClick={onCancel}>
            {r.cancel_requested ? 'Cancelling…' : 'Cancel the replay'}
          </button>
        )}
      </div>
      <p class="hint">{describe(r)}</p>
      <p>
        <span id="replay-status" class={`badge${r.status === 'failed' ? ' bad' : ''}`}>
          {STATUS_TEXT[r.status]}
        </span>{' '}
        <span id="replay-processed">
          {r.processed} of {r.total} processed
        </span>
      </p>
      <progress id="replay-progress" aria-label="Replay progress" max={100} value={r.progress}>
        {r.progress}%
      </progress>
      <dl class="replay-summary" aria-label="Replay summary">
        <dt>Ran</dt>
        <dd id="replay-ran">{r.ran}</dd>
        <dt>Failed</dt>
        <dd id="replay-failed">{r.failed}</dd>
        <dt>Skipped</dt>
        <dd id="replay-skipped">{r.skipped}</dd>
      </dl>
      {r.error && (
        <p class="field-error" role="alert">
          {r.error}
        </p>
      )}
      {r.log.length > 0 && (
        <>
          <h4>Failures and skips{r.log.length >= 100 ? ' (the first 100)' : ''}</h4>
          <ul class="replay-log">
            {r.log.map((l) => (
              <li key={l.request_id + l.message}>
                <a href={href({ view: 'token', token: tokenRef, tab: 'requests', request: l.request_id })}>{l.request_id.slice(0, 8)}</a> {l.outcome === 'failed' ? 'failed' : 'skipped'}: {l.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
