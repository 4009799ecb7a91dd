// One token: its URL and e-mail address, the live list of its requests, one request in detail, its
// settings and its action workflow.
import type { FunctionComponent } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ChainWithTemplates } from './account/TokenTemplates';
import { ApiError, call, enc, serverConfig, setTokenPassword, type CapturedRequest, type RequestPage, type ServerConfig, type Token } from './api';
import { connectLive, type LiveMode } from './live';
import { RequestDetail } from './RequestDetail';
import { RequestList } from './RequestList';
import { followNewest, lastQuery, notifyOn, setFollowNewest, setLastQuery } from './request-prefs';
import { exportRequests, overallTotal, type ViewedRequest } from './requests-api';
import { href, navigate, type Route } from './route';
import { settings } from './settings';
import { TokenSettings } from './TokenSettings';
import { TokenShare } from './TokenShare';
import { SampleSend } from './SampleSend';
import { TokenReplay } from './TokenReplay';
import { FormBuilder } from './FormBuilder';
import { ErrorNotice, CopyField, Spinner, announce } from './ui';
import { workflowDrafts } from './actions/drafts';
import { parseApiTime, requestPath } from './format';
import { onSearchFor } from './search-bus';

/** The workflow editor brings the YAML parser along: loaded when its tab is first opened. */
type WorkflowProps = { token: Token; onToken: (t: Token) => void; revision: number };
function LazyWorkflow(props: WorkflowProps) {
  const [C, setC] = useState<FunctionComponent<WorkflowProps> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    import('./Workflow').then((m) => setC(() => m.Workflow), setError);
  }, []);
  if (error) return <ErrorNotice error={error} />;
  return C ? <C {...props} /> : <Spinner label="Loading the editor" />;
}

type TokenRoute = Extract<Route, { view: 'token' }>;

export const PER_PAGE = 50;

/** `<scheme>://<ref>.<capture domain>[:port]`, with the scheme and port of the service's base URL. */
function subdomainForm(baseUrl: string, ref: string, domain: string): string {
  const base = new URL(baseUrl);
  return `${base.protocol}//${ref}.${domain}${base.port ? `:${base.port}` : ''}`;
}

function byNewest(a: ViewedRequest, b: ViewedRequest) {
  return b.sorting - a.sorting;
}

export function TokenPage({ route }: { route: TokenRoute }) {
  const ref = route.token;
  const [token, setToken] = useState<Token | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [config, setConfig] = useState<ServerConfig | null>(null);

  useEffect(() => {
    void serverConfig().then(setConfig);
  }, []);

  useEffect(() => {
    let stop = false;
    setLoadError(null);
    call<Token>('GET', `/token/${enc(ref)}`, { token: ref })
      .then((t) => {
        if (stop) return;
        setToken(t);
        settings.remember(t.uuid, t.alias);
      })
      .catch((e: ApiError) => !stop && setLoadError(e));
    return () => {
      stop = true;
    };
  }, [ref, attempt]);

  if (loadError) return <TokenLoadError error={loadError} tokenRef={ref} retry={() => setAttempt((n) => n + 1)} />;
  if (!token || !config) return <Spinner label="Opening the token" />;
  return <LoadedToken route={route} token={token} setToken={setToken} config={config} />;
}

function TokenLoadError({ error, tokenRef, retry }: { error: ApiError; tokenRef: string; retry: () => void }) {
  const [pw, setPw] = useState('');
  if (error.status === 401 && /password/i.test(error.message)) {
    return (
      <section class="panel narrow" aria-labelledby="pw-title">
        <h1 id="pw-title">This token is password protected</h1>
        {/wrong/i.test(error.message) && (
          <p class="field-error" role="alert">
            Wrong password.
          </p>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setTokenPassword(tokenRef, pw);
            retry();
          }}
        >
          <label for="token-password">Token password</label>
          <div class="copy-row">
            <input id="token-password" type="password" value={pw} onInput={(e) => setPw((e.currentTarget as HTMLInputElement).value)} />
            <button class="btn primary" type="submit">
              Open
            </button>
          </div>
        </form>
      </section>
    );
  }
  const hint =
    error.status === 404
      ? 'There is no token with this ID or alias (it may have expired).'
      : error.status === 401
        ? 'This token belongs to a user: enter their API key (button at the top right).'
        : error.status === 403
          ? 'This token belongs to another user.'
          : null;
  return (
    <section class="panel narrow" aria-labelledby="err-title">
      <h1 id="err-title">Cannot open {tokenRef}</h1>
      <ErrorNotice error={error}>{hint && <p>{hint}</p>}</ErrorNotice>
      <p>
        <a href={href({ view: 'home' })}>Back to the start page</a>
      </p>
    </section>
  );
}

function LoadedToken({ route, token, setToken, config }: { route: TokenRoute; token: Token; setToken: (t: Token) => void; config: ServerConfig }) {
  const id = token.uuid;
  const [items, setItems] = useState<ViewedRequest[]>([]);
  const [total, setTotal] = useState(0);
  // Requests of the token whatever the search (`total` counts the matching ones).
  const [overallWithQuery, setOverallWithQuery] = useState(0);
  const [follow, setFollow] = useState(followNewest);
  const [isLast, setIsLast] = useState(true);
  const [page, setPage] = useState(1);
  const [loading, setLoading] = useState(true);
  const [listError, setListError] = useState<ApiError | null>(null);
  // The last search of this token comes back after a reload.
  const [query, setQueryState] = useState(() => lastQuery(id));
  const setQuery = (q: string) => {
    setQueryState(q);
    setLastQuery(id, q);
  };
  const [mode, setMode] = useState<LiveMode>('connecting');
  const [deleted, setDeleted] = useState(false);
  const [fresh] = useState(() => new Set<string>());
  const [unsaved, setUnsaved] = useState(() => workflowDrafts.has(token.uuid));
  useEffect(() => workflowDrafts.subscribe(() => setUnsaved(workflowDrafts.has(token.uuid))), [token.uuid]);
  const queryRef = useRef(query);
  queryRef.current = query;
  const overall = query ? overallWithQuery : total;

  /** A search the API refused shows its error over an empty list, never the unfiltered one. */
  function listFailed(e: ApiError) {
    setListError(e);
    if (e.status === 422) {
      setItems([]);
      setTotal(0);
      setIsLast(true);
    }
  }
  /** Under a search, the overall count comes from an unfiltered page of one. */
  function countOverall(q: string) {
    if (q)
      void overallTotal(id).then(
        (n) => q === queryRef.current && setOverallWithQuery(n),
        () => undefined,
      );
  }

  const path = `/token/${enc(id)}`;
  const listUrl = (p: number, q: string) => `${path}/requests?sorting=newest&per_page=${PER_PAGE}&page=${p}${q ? `&query=${enc(q)}` : ''}`;

  /** Page 1 again, merged in front of any older pages already shown. */
  const refresh = useCallback(async () => {
    const q = queryRef.current;
    try {
      const res = await call<RequestPage>('GET', listUrl(1, q), { token: id });
      if (q !== queryRef.current) return;
      setListError(null);
      setTotal(res.total);
      countOverall(q);
      setItems((old) => {
        if (res.is_last_page || res.data.length === 0) return res.data;
        const oldest = res.data[res.data.length - 1]!.sorting;
        const seen = new Set(res.data.map((r) => r.uuid));
        return [...res.data, ...old.filter((o) => o.sorting < oldest && !seen.has(o.uuid))];
      });
      if (page === 1) setIsLast(res.is_last_page);
    } catch (e) {
      if (q === queryRef.current) listFailed(e as ApiError);
      throw e;
    }
  }, [id, page]);

  // First page, again whenever the search changes.
  useEffect(() => {
    let stop = false;
    setLoading(true);
    setPage(1);
    call<RequestPage>('GET', listUrl(1, query), { token: id })
      .then((res) => {
        if (stop) return;
        setItems(res.data);
        setTotal(res.total);
        setIsLast(res.is_last_page);
        setListError(null);
      })
      .catch((e: ApiError) => !stop && listFailed(e))
      .finally(() => !stop && setLoading(false));
    countOverall(query);
    return () => {
      stop = true;
    };
  }, [id, query]);

  // The live feed, for as long as the token is open.
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | null = null;
    const refreshSoon = () => {
      if (pending) return;
      pending = setTimeout(() => {
        pending = null;
        void refreshRef.current().catch(() => undefined);
      }, 100);
    };
    const stop = connectLive(id, {
      created(created) {
        if (queryRef.current) return refreshSoon();
        // Live events carry the response sent back, default or stored, as the request API does.
        const r = created;
        fresh.add(r.uuid);
        // Opted in, and the page is not in view: the browser says a request came.
        if (notifyOn() && document.hidden && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
          const shown = new Notification(`${r.type === 'email' ? 'E-mail' : r.method} ${requestPath(r, [token.uuid, token.alias])}`, { body: `New request on ${token.alias ?? token.uuid}`, tag: r.uuid });
          // A click brings the page back with the request open.
          shown.onclick = () => {
            window.focus();
            navigate({ view: 'token', token: id, tab: 'requests', request: r.uuid });
            shown.close();
          };
        }
        setItems((old) => (old.some((o) => o.uuid === r.uuid) ? old : [r, ...old].sort(byNewest)));
        setTotal((n) => n + 1);
      },
      deleted(d) {
        if (queryRef.current) return refreshSoon();
        if (d.all) {
          setItems([]);
          setTotal(0);
        } else if (d.uuid) {
          setItems((old) => old.filter((o) => o.uuid !== d.uuid));
          setTotal((n) => Math.max(0, n - 1));
        }
      },
      tokenUpdated: setToken,
      tokenDeleted: () => {
        settings.forget(id);
        setDeleted(true);
      },
      refresh: () => refreshRef.current(),
      mode: setMode,
    });
    return () => {
      stop();
      if (pending) clearTimeout(pending);
    };
  }, [id]);

  async function loadOlder() {
    const next = page + 1;
    try {
      const res = await call<RequestPage>('GET', listUrl(next, query), { token: id });
      setItems((old) => {
        const seen = new Set(old.map((o) => o.uuid));
        return [...old, ...res.data.filter((r) => !seen.has(r.uuid))];
      });
      setPage(next);
      setIsLast(res.is_last_page);
    } catch (e) {
      listFailed(e as ApiError);
    }
  }

  // Following: each newest request is selected as it arrives (and the newest one when switched on).
  // "Search for this" from the request view: the list shows the requests with that value.
  useEffect(
    () =>
      onSearchFor((q) => {
        setQuery(q);
        if (window.matchMedia('(max-width: 760px)').matches) navigate({ view: 'token', token: route.token, tab: 'requests' });
      }),
    [id, route.token],
  );

  // Alt+R: the requests, Alt+A: the actions, Alt+S: the search box (letters by key position, so a
  // Mac's Option characters do not matter); listed under "Keyboard shortcuts".
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      const to = e.code === 'KeyR' ? 'requests' : e.code === 'KeyA' ? 'workflow' : e.code === 'KeyS' ? 'search' : null;
      if (!to) return;
      e.preventDefault();
      if (to === 'search') {
        if (route.tab !== 'requests') navigate({ view: 'token', token: route.token, tab: 'requests' });
        setTimeout(() => document.getElementById('search')?.focus(), 0);
      } else navigate({ view: 'token', token: route.token, tab: to });
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [route.token, route.tab]);

  // At phone width list and request share one column: an opened request starts at its top (with
  // its back link), and going back finds the list where it was left.
  const listScroll = useRef(0);
  useEffect(() => {
    if (route.tab !== 'requests' || !window.matchMedia('(max-width: 760px)').matches) return;
    if (route.request) document.querySelector('.split')?.scrollIntoView({ block: 'start' });
    else window.scrollTo(0, listScroll.current);
  }, [route.request]);

  const newest = items[0]?.uuid;
  useEffect(() => {
    if (follow && newest && route.tab === 'requests' && newest !== route.request) navigate({ view: 'token', token: route.token, tab: 'requests', request: newest }, true);
  }, [follow, newest]);
  function changeFollow(on: boolean) {
    setFollow(on);
    setFollowNewest(on);
    announce(on ? 'Following the newest request' : 'Not following the newest request');
  }

  async function deleteAll() {
    const what = query ? `the ${total} requests matching this search` : `all ${total} requests`;
    if (!confirm(`Delete ${what}? This cannot be undone.`)) return;
    try {
      await call('DELETE', `${path}/request${query ? `?query=${enc(query)}` : ''}`, { token: id });
      announce(query ? 'Matching requests deleted' : 'All requests deleted');
      if (route.request) navigate({ view: 'token', token: route.token, tab: 'requests' }, true);
      await refresh().catch(() => undefined);
    } catch (e) {
      setListError(e as ApiError);
    }
  }

  async function deleteOne(r: CapturedRequest) {
    try {
      await call('DELETE', `${path}/request/${enc(r.uuid)}`, { token: id });
      setItems((old) => old.filter((o) => o.uuid !== r.uuid));
      setTotal((n) => Math.max(0, n - 1));
      announce('Request deleted');
      navigate({ view: 'token', token: route.token, tab: 'requests' }, true);
    } catch (e) {
      alert((e as Error).message);
    }
  }

  const captureUrl = `${config.base_url}/${token.alias ?? token.uuid}`;
  // Host names are lower case: an alias with capitals or `_` is not a host label, so its UUID stands in.
  const label = token.alias && /^[a-z0-9-]+$/.test(token.alias) ? token.alias : token.uuid;
  const subdomainUrl = config.capture_domain ? subdomainForm(config.base_url, label, config.capture_domain) : null;
  const email = `${token.uuid}@${config.email_domain}`;
  const selected = useMemo(() => items.find((r) => r.uuid === route.request), [items, route.request]);

  if (deleted) {
    return (
      <section class="panel narrow" aria-labelledby="gone-title">
        <h1 id="gone-title">This token was deleted</h1>
        <p>
          <code>{token.uuid}</code> no longer exists: its URL and e-mail address capture nothing, and its requests are gone.
        </p>
        <p>
          <a href={href({ view: 'home' })}>Back to the start page</a>
        </p>
      </section>
    );
  }

  return (
    <div class="token-page">
      <section class="panel token-head" aria-label="Token addresses">
        <div class="addresses">
          <CopyField id="capture-url" label="Capture URL" value={captureUrl} href={captureUrl} />
          {subdomainUrl && <CopyField id="capture-subdomain" label="Subdomain URL" value={subdomainUrl} href={subdomainUrl} />}
          <CopyField id="capture-email" label="E-mail address" value={email} />
          <CopyField id="capture-dns" label="DNS name" value={`*.${token.uuid}.${config.dns_domain}`} />
        </div>
        <p class="token-facts">
          <span>
            Token <code>{token.uuid}</code>
          </span>
          <span>
            Responds <code>{token.default_status}</code> <code>{token.default_content_type}</code>{' '}
            <a href={href({ view: 'token', token: route.token, tab: 'settings' })} class="small">
              Edit the default response
            </a>
          </span>
          <a
            class={`badge${token.actions ? '' : ' warn'}`}
            href={href({ view: 'token', token: route.token, tab: token.actions ? 'workflow' : 'settings' })}
            title={token.actions ? 'Custom actions run on every capture' : 'Custom actions do not run: turn them on in Settings'}
          >
            {token.actions ? 'Custom actions on' : 'Custom actions off'}
          </a>
          {token.cors && <span class="badge">CORS</span>}
          {token.expires_at && <Expiry at={token.expires_at} />}
        </p>
        <div class="token-tools">
          <Shortcuts />
          <SampleSend token={token} tokenRef={route.token} />
        </div>
      </section>

      <nav class="tabs" aria-label="Token">
        <a href={href({ view: 'token', token: route.token, tab: 'requests' })} aria-current={route.tab === 'requests' ? 'page' : undefined}>
          Requests <span class="count">{overall}</span>
        </a>
        <a href={href({ view: 'token', token: route.token, tab: 'settings' })} aria-current={route.tab === 'settings' ? 'page' : undefined}>
          Settings
        </a>
        <a href={href({ view: 'token', token: route.token, tab: 'workflow' })} aria-current={route.tab === 'workflow' ? 'page' : undefined}>
          Actions
          {unsaved && (
            <span class="unsaved-dot" title="Unsaved changes">
              {' '}
              •<span class="sr-only"> (unsaved changes)</span>
            </span>
          )}
        </a>
        <a href={href({ view: 'token', token: route.token, tab: 'replay' })} aria-current={route.tab === 'replay' ? 'page' : undefined}>
          Replay
        </a>
        <a href={href({ view: 'token', token: route.token, tab: 'form' })} aria-current={route.tab === 'form' ? 'page' : undefined}>
          Form Builder
        </a>
      </nav>

      {route.tab === 'requests' && (
        <div
          class={`split${route.request ? ' has-detail' : ''}`}
          onClickCapture={() => {
            if (!route.request) listScroll.current = window.scrollY;
          }}
        >
          <RequestList
            tokenRef={route.token}
            tokenNames={[token.uuid, token.alias]}
            items={items}
            total={total}
            overall={overall}
            follow={follow}
            setFollow={changeFollow}
            exportAs={(format) => exportRequests(id, format, listError?.status === 422 ? '' : query)}
            selected={route.request}
            loading={loading}
            error={listError}
            isLast={isLast}
            query={query}
            setQuery={setQuery}
            mode={mode}
            fresh={fresh}
            captureUrl={captureUrl}
            email={email}
            loadOlder={loadOlder}
            deleteAll={deleteAll}
          />
          <section class="detail-pane" aria-label="Request details">
            {route.request ? (
              <RequestDetail key={route.request} tokenId={id} tokenRef={route.token} requestId={route.request} known={selected} onDelete={deleteOne} />
            ) : (
              <div class="empty-detail">
                <p>
                  {listError?.status === 422
                    ? 'The search could not run: its error is under the search box.'
                    : items.length
                      ? 'Select a request to see it in full.'
                      : query && !loading
                        ? 'No request matches this search.'
                        : 'Requests will show up here as they arrive.'}
                </p>
              </div>
            )}
          </section>
        </div>
      )}
      {route.tab === 'settings' && (
        <>
          <TokenSettings token={token} onSaved={setToken} />
          <TokenShare token={token} />
        </>
      )}
      {route.tab === 'workflow' && <ChainWithTemplates token={token} editor={(revision) => <LazyWorkflow key={revision} token={token} onToken={setToken} revision={revision} />} />}
      {route.tab === 'replay' && <TokenReplay tokenId={id} tokenRef={route.token} initialQuery={query} />}
      {route.tab === 'form' && <FormBuilder captureUrl={captureUrl} />}
    </div>
  );
}

const DAY = 86_400_000;

/** "Expires in 6 d 23 h", counting down; a warning under a day, when the token and its requests go soon. */
function Expiry({ at }: { at: string }) {
  const when = parseApiTime(at);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  if (!when) return <span>Expires {at} UTC</span>;
  const left = when.getTime() - now;
  const d = Math.floor(left / DAY);
  const h = Math.floor((left % DAY) / 3_600_000);
  const m = Math.floor((left % 3_600_000) / 60_000);
  const text = left <= 0 ? 'Expired' : d > 0 ? `Expires in ${d} d ${h} h` : h > 0 ? `Expires in ${h} h ${m} min` : `Expires in ${Math.max(1, m)} min`;
  return (
    <span class={left < DAY ? 'badge warn expiry' : 'expiry'} title={`${when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}: the token and its requests are deleted then`}>
      <time dateTime={when.toISOString()}>{text}</time>
      {left < DAY && left > 0 && <span class="sr-only">: soon the token and its requests are deleted</span>}
    </span>
  );
}

/** The page's keyboard shortcuts, in a popover. */
function Shortcuts() {
  return (
    <details class="shortcuts">
      <summary class="btn small">Keyboard shortcuts</summary>
      <dl class="shortcut-list">
        <dt>
          <kbd>Alt</kbd>+<kbd>R</kbd>
        </dt>
        <dd>Requests</dd>
        <dt>
          <kbd>Alt</kbd>+<kbd>S</kbd>
        </dt>
        <dd>Search the requests</dd>
        <dt>
          <kbd>Alt</kbd>+<kbd>A</kbd>
        </dt>
        <dd>Actions</dd>
        <dt>
          <kbd>Ctrl</kbd>+<kbd>S</kbd>
        </dt>
        <dd>Save the actions (in the editor)</dd>
        <dt>
          <kbd>Alt</kbd>+<kbd>↑</kbd> / <kbd>↓</kbd>
        </dt>
        <dd>Move the focused action step</dd>
        <dt>
          <kbd>$</kbd>
        </dt>
        <dd>Variables, in an action field</dd>
      </dl>
    </details>
  );
}
