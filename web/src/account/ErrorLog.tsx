// The error log (GET /errors): actions that failed on captures and schedule runs that failed, newest
// first, searchable, with the unread ones marked; "Mark all read" marks what is shown and older, so
// an entry that arrives meanwhile stays unread. The header's count (useUnreadErrors) follows it.
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { showControls } from '../format';
import { href } from '../route';
import { ErrorNotice, Pager, announce } from '../ui';
import type { Operations } from '../../../packages/client/src/api-types';
import { useSession } from './api';
import { Gate, PageView, useLoad } from './common';
import './errorlog.css';

/** One entry of GET /errors, as the API's document (packages/client's generated types) describes it. */
export type ErrorEntry = Operations['GET /errors']['response']['data'][number];

type ErrorPage = Page<ErrorEntry> & { unread: number };

/** The count in the page header: listeners re-read it when the error log screen marks entries read. */
const unreadListeners = new Set<() => void>();
export function unreadChanged(): void {
  for (const l of unreadListeners) l();
}

/** Unread entries of the signed-in account, checked every 30 s; null when there is nobody to ask for. */
export function useUnreadErrors(): number | null {
  const session = useSession();
  const [n, setN] = useState<number | null>(null);
  const signedIn = session.state === 'signed-in';
  useEffect(() => {
    if (!signedIn) {
      setN(null);
      return;
    }
    let live = true;
    const load = () =>
      void call<{ unread: number }>('GET', '/errors/unread').then(
        (r) => live && setN(r.unread),
        () => live && setN(null),
      );
    load();
    unreadListeners.add(load);
    const timer = setInterval(load, 30_000);
    return () => {
      live = false;
      unreadListeners.delete(load);
      clearInterval(timer);
    };
  }, [signedIn, session.state === 'signed-in' ? session.me : null]);
  return n;
}

export function ErrorLog() {
  return (
    <Gate title="Error log" what="The error log lists the actions that failed on your tokens' captures and the schedule runs that failed." needs="any">
      {() => <ErrorLogScreen />}
    </Gate>
  );
}

function ErrorLogScreen() {
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  const [source, setSource] = useState<'' | 'action' | 'schedule'>('');
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [page, setPage] = useState(1);
  const [markError, setMarkError] = useState<unknown>(null);
  const params = new URLSearchParams({ page: String(page), per_page: '50' });
  if (query) params.set('query', query);
  if (source) params.set('source', source);
  if (unreadOnly) params.set('unread', 'true');
  const list = useLoad(() => call<ErrorPage>('GET', `/errors?${params}`), [params.toString()]);

  async function markAllRead() {
    const newest = list.data?.data[0]?.id;
    try {
      const r = await call<{ marked: number; unread: number }>('POST', '/errors/read', { json: newest ? { up_to: newest } : {} });
      announce(`${r.marked} marked read`);
      setMarkError(null);
      list.reload();
      unreadChanged();
    } catch (e) {
      setMarkError(e);
    }
  }

  return (
    <section class="panel" aria-labelledby="errors-title">
      <h1 id="errors-title">Error log</h1>
      <p class="hint">Actions that reported an error on a capture, and schedule runs that failed (a request error, a failed check or a server error).</p>
      <form
        class="error-log-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setQuery(typed.trim());
        }}
      >
        <label for="errors-query">Search</label>
        <div class="copy-row">
          <input id="errors-query" type="search" value={typed} placeholder="message, action, token, schedule" onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} />
          <button class="btn" type="submit">
            Search
          </button>
        </div>
        <label for="errors-source">Show</label>
        <select
          id="errors-source"
          value={source}
          onChange={(e) => {
            setPage(1);
            setSource((e.currentTarget as HTMLSelectElement).value as typeof source);
          }}
        >
          <option value="">Everything</option>
          <option value="action">Action errors</option>
          <option value="schedule">Schedule failures</option>
        </select>
        <label class="check">
          <input
            type="checkbox"
            checked={unreadOnly}
            onChange={(e) => {
              setPage(1);
              setUnreadOnly((e.currentTarget as HTMLInputElement).checked);
            }}
          />{' '}
          Unread only
        </label>
      </form>
      {list.data && (
        <p class="error-log-summary">
          <span id="errors-unread">{list.data.unread} unread</span>
          {' · '}
          {list.data.total} {query || source || unreadOnly ? 'matching' : 'in all'}{' '}
          <button class="btn small" type="button" onClick={() => void markAllRead()} disabled={list.data.unread === 0}>
            Mark all read
          </button>
        </p>
      )}
      <ErrorNotice error={markError} />
      <PageView list={list} loading="Loading the error log" empty={query || source || unreadOnly ? 'Nothing matches.' : 'No errors. Failed actions and schedule runs will show up here.'}>
        {(items) => (
          <ul class="acct-list error-log-list">
            {items.map((e) => (
              <li key={e.id} class={e.read ? 'read' : 'unread'}>
                <div>
                  <p class="error-log-head">
                    {!e.read && <span class="badge">new</span>} <span class="hint small">{e.created_at} UTC</span>{' '}
                    {e.source === 'action' ? (
                      <>
                        Action <code>{e.action_type ?? 'chain'}</code> on token{' '}
                        {e.token_id && (
                          <a href={href({ view: 'token', token: e.token_id, tab: 'requests', request: e.request_id ?? undefined })}>
                            <code>{e.token_id}</code>
                          </a>
                        )}
                      </>
                    ) : (
                      <>
                        Schedule <a href={href({ view: 'schedules', schedule: String(e.schedule_id), logs: true })}>{e.schedule_name ?? `#${e.schedule_id}`}</a>
                      </>
                    )}
                  </p>
                  <p class="error-log-message">{showControls(e.message)}</p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </PageView>
      {list.data && list.data.last_page > 1 && <Pager page={page} last={list.data.last_page} onPage={setPage} label="Pages" labels={['Newer', 'Older']} class="form-actions" statusClass="hint small" />}
    </section>
  );
}
