// A shared token, view-only (`#/share/<token>/<secret>`): its requests, live, and one request in
// full, opened with the share link's secret instead of an API key. Nothing here changes anything:
// the server refuses every other route to a share link (core/http/token-access.ts).
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, call, download, enc, type CapturedRequest, type RequestPage } from './api';
import { formatDateTime, formatSize, formatTime, headerEntries, highlightJson, bodyKind, highlightXml, fileList, methodLabel, requestDate, requestPath } from './format';
import { connectLive, type LiveMode } from './live';
import { href, navigate, type Route } from './route';
import { ErrorNotice, KvTable, Spinner } from './ui';
import { XhrRedirectPanel, xhrRedirect, type XhrRedirectState, type XhrResult } from './XhrRedirect';
import './share.css';

type ShareRoute = Extract<Route, { view: 'share' }>;

const PER_PAGE = 50;

export function SharePage({ route }: { route: ShareRoute }) {
  const { token, secret } = route;
  const [items, setItems] = useState<CapturedRequest[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<ApiError | null>(null);
  const [gone, setGone] = useState<'revoked' | 'deleted' | null>(null);
  const [mode, setMode] = useState<LiveMode>('connecting');
  const list = () => call<RequestPage>('GET', `/token/${enc(token)}/requests?sorting=newest&per_page=${PER_PAGE}`, { share: secret });
  const listRef = useRef(list);
  listRef.current = list;
  const [redirect, setRedirect] = useState<XhrRedirectState>({ enabled: false, target: '' });
  const [redirected, setRedirected] = useState<XhrResult | null>(null);
  // Read by the live handler, which is set up once per connection.
  const redirectRef = useRef(redirect);
  redirectRef.current = redirect;

  /** A 401 means the link was revoked or replaced; a 404 that the token is gone. */
  function failed(e: ApiError) {
    if (e.status === 401) setGone('revoked');
    else if (e.status === 404) setGone('deleted');
    else setError(e);
  }

  useEffect(() => {
    let stop = false;
    list().then(
      (p) => {
        if (stop) return;
        setItems(p.data);
        setTotal(p.total);
      },
      (e: ApiError) => !stop && failed(e),
    );
    return () => {
      stop = true;
    };
  }, [token, secret]);

  useEffect(() => {
    if (gone) return;
    const stop = connectLive(
      token,
      {
        created: (r) => {
          const to = redirectRef.current;
          if (to.enabled && r.type === 'web') void xhrRedirect(r, to.target).then(setRedirected);
          setItems((old) => (old && !old.some((o) => o.uuid === r.uuid) ? [r, ...old].slice(0, 500) : old));
          setTotal((n) => n + 1);
        },
        deleted: (d) => {
          if (d.all) setItems([]);
          else if (d.uuid) setItems((old) => old?.filter((o) => o.uuid !== d.uuid) ?? old);
          void listRef.current().then(
            (p) => setTotal(p.total),
            () => undefined,
          );
        },
        tokenUpdated: () => undefined,
        tokenDeleted: () => setGone('deleted'),
        refresh: async () => {
          try {
            const p = await listRef.current();
            setItems(p.data);
            setTotal(p.total);
          } catch (e) {
            failed(e as ApiError);
            throw e;
          }
        },
        mode: setMode,
      },
      () => `?share=${enc(secret)}`,
    );
    return stop;
  }, [token, secret, gone]);

  const selected = useMemo(() => items?.find((r) => r.uuid === route.request), [items, route.request]);

  if (gone) {
    return (
      <section class="panel narrow" aria-labelledby="share-gone">
        <h1 id="share-gone">{gone === 'revoked' ? 'This share link no longer works' : 'This token was deleted'}</h1>
        <p>{gone === 'revoked' ? 'Its owner revoked it or made a new one. Ask them for the current link.' : 'Its requests are gone.'}</p>
      </section>
    );
  }
  if (error) return <ErrorNotice error={error} />;
  if (!items) return <Spinner label="Opening the shared token" />;

  return (
    <div class="token-page share-page">
      <section class="panel token-head" aria-labelledby="share-title">
        <h1 id="share-title">Shared requests</h1>
        <p class="hint">
          A view-only link to the requests of token <code>{token}</code>: they appear here as they arrive. The token's settings and actions are not shared, and nothing can be changed from here.
        </p>
        <p class="token-facts">
          <span class={`live-state ${mode}`} role="status">
            {mode === 'live' ? 'Live' : mode === 'polling' ? 'Checking every 2 s' : 'Connecting…'}
          </span>
          <span>
            Requests{' '}
            <span class="count" id="share-total">
              {total}
            </span>
          </span>
        </p>
      </section>
      <XhrRedirectPanel
        state={redirect}
        last={redirected}
        onChange={(s) => {
          setRedirect(s);
          setRedirected(null);
        }}
      />
      <div class={`split${route.request ? ' has-detail' : ''}`}>
        <section class="panel request-list" aria-labelledby="share-list-title">
          <h2 id="share-list-title">Requests</h2>
          {items.length === 0 ? (
            <p class="hint">No requests yet. They will show up here as they arrive.</p>
          ) : (
            <ul class="share-requests">
              {items.map((r) => (
                <li key={r.uuid}>
                  <a href={href({ view: 'share', token, secret, request: r.uuid })} aria-current={r.uuid === route.request ? 'true' : undefined}>
                    <span class={`method m-${r.method.toLowerCase()}`}>{methodLabel(r)}</span>
                    <span>
                      <span class="path">{requestPath(r, [token])}</span> <span class="hint small">{formatTime(requestDate(r))}</span>
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section class="detail-pane" aria-label="Request details">
          {route.request ? (
            <SharedRequest key={route.request} token={token} secret={secret} id={route.request} known={selected} onGone={() => navigate({ view: 'share', token, secret }, true)} />
          ) : (
            <div class="empty-detail">
              <p>{items.length ? 'Select a request to see it in full.' : 'Requests will show up here as they arrive.'}</p>
            </div>
          )}
        </section>
      </div>
    </div>
  );
}

function SharedRequest({ token, secret, id, known, onGone }: { token: string; secret: string; id: string; known?: CapturedRequest; onGone: () => void }) {
  const [r, setR] = useState<CapturedRequest | null>(known ?? null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    call<CapturedRequest>('GET', `/token/${enc(token)}/request/${enc(id)}`, { share: secret }).then(setR, (e: ApiError) => (e.status === 404 ? onGone() : setError(e)));
  }, [id]);
  if (error) return <ErrorNotice error={error} />;
  if (!r) return <Spinner label="Loading the request" />;
  const kind = bodyKind(r.content, headerEntries(r.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]);
  let body: ComponentChildren = r.content;
  try {
    if (kind === 'json') body = highlightJson(r.content);
    else if (kind === 'xml') body = highlightXml(r.content);
  } catch {
    /* shown as sent */
  }
  const files = fileList(r);
  return (
    <article class="panel request-detail" aria-labelledby="shared-request-title">
      <h2 id="shared-request-title">
        {methodLabel(r)} {requestPath(r, [token])}
      </h2>
      <KvTable
        rows={[
          ['Received', formatDateTime(requestDate(r)) || `${r.created_at} UTC`],
          ['From', r.ip],
          ['Size', formatSize(r.size)],
          ['URL', r.url],
        ]}
      />
      <h3 id="shared-headers" class="sub-head">
        Headers <span class="count">{headerEntries(r.headers).length}</span>
      </h3>
      <KvTable rows={headerEntries(r.headers)} labelledBy="shared-headers" />
      {r.query && Object.keys(r.query).length > 0 && (
        <>
          <h3 id="shared-query" class="sub-head">
            Query
          </h3>
          <KvTable rows={Object.entries(r.query).map(([k, v]) => [k, String(v)])} labelledBy="shared-query" />
        </>
      )}
      <h3 class="sub-head">Body</h3>
      {r.content ? (
        <pre class="code" tabIndex={0} aria-label="Request body">
          <code>{body}</code>
        </pre>
      ) : (
        <p class="hint">No body.</p>
      )}
      {files.length > 0 && (
        <>
          <h3 class="sub-head">Files</h3>
          <ul>
            {files.map((f) => (
              <li key={f.id}>
                <button class="btn link" type="button" onClick={() => download(`/token/${enc(token)}/request/${enc(r.uuid)}/download/${enc(f.id)}`, f.filename, token, secret).catch((err: Error) => alert(err.message))}>
                  {f.filename}
                </button>{' '}
                <span class="hint small">{formatSize(f.size)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </article>
  );
}
