// Small shared pieces: copyable fields, notices, status announcements.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { copyText } from './format';
import { searchFor } from './search-bus';

/** A small "search for this" button: the request list shows the requests with the same value. */
export function SearchButton({ query, what }: { query: string; what: string }) {
  return (
    <button type="button" class="btn tiny search-this" title={`Search: ${query}`} aria-label={`Search requests for ${what}`} onClick={() => searchFor(query)}>
      <span aria-hidden="true">⌕</span>
    </button>
  );
}

/** Announces short status messages to screen readers (and shows them briefly). */
let announceFn: ((msg: string) => void) | null = null;
export function announce(msg: string): void {
  announceFn?.(msg);
}

export function Announcer() {
  const [msg, setMsg] = useState('');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    let said = 0;
    announceFn = (m) => {
      said = Date.now();
      setMsg(m);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setMsg(''), 2500);
    };
    // A message is about the screen it was said on: another screen clears it (unless it was said
    // on the way there, as "Request deleted" before the list opens).
    const clear = () => Date.now() - said > 500 && setMsg('');
    window.addEventListener('hashchange', clear);
    return () => {
      announceFn = null;
      window.removeEventListener('hashchange', clear);
    };
  }, []);
  return (
    <div class={`toast${msg ? ' show' : ''}`} role="status" aria-live="polite">
      {msg}
    </div>
  );
}

export function CopyButton({ text, label, children }: { text: string; label: string; children?: ComponentChildren }) {
  return (
    <button type="button" class="btn small" aria-label={label} onClick={async () => announce((await copyText(text)) ? 'Copied to the clipboard' : 'Copy failed: select the text and copy it')}>
      {children ?? 'Copy'}
    </button>
  );
}

/** A read-only value with a copy button, e.g. the capture URL. */
export function CopyField({ id, label, value, href }: { id: string; label: string; value: string; href?: string }) {
  return (
    <div class="copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} type="text" readOnly value={value} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />
        {href && (
          <a class="btn small" href={href} target="_blank" rel="noopener noreferrer" aria-label={`Open ${label.toLowerCase()} in a new tab`}>
            Open
          </a>
        )}
      </div>
    </div>
  );
}

export function ErrorNotice({ error, children }: { error: unknown; children?: ComponentChildren }) {
  if (!error) return null;
  const e = error as Error;
  if (error instanceof ApiError && error.notAvailable) return <NotAvailable />;
  return (
    <div class="notice error" role="alert">
      <p>{e.message || String(error)}</p>
      {children}
    </div>
  );
}

export function NotAvailable({ what = 'This feature' }: { what?: string }) {
  return (
    <div class="notice muted" role="status" data-testid="not-available">
      <p>
        <strong>{what} is not available on this server.</strong> The server answered 404 for its API: the module that provides it is not running here.
      </p>
    </div>
  );
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {label}…
    </p>
  );
}

export function fieldErrorId(form: string, field: string) {
  return `${form}-${field}-error`;
}

export function FieldError({ form, field, errors }: { form: string; field: string; errors: Record<string, string[]> }) {
  const msgs = errors[field];
  if (!msgs?.length) return null;
  return (
    <p class="field-error" id={fieldErrorId(form, field)}>
      {msgs.join(' ')}
    </p>
  );
}

/**
 * Name/value rows (headers, query, form fields) as a two-column table. With `search`, each value
 * has a button (shown on hover and focus) that searches the requests for it.
 */
/**
 * A table's header row, one heading per column (`false` leaves one out); `hidden` heads a last
 * column that is read out but not shown, such as the row's buttons.
 */
export function TableHead({ columns, hidden }: { columns: ReadonlyArray<string | false>; hidden?: string }) {
  return (
    <thead>
      <tr>
        {columns.map(
          (c) =>
            c !== false && (
              <th scope="col" key={c}>
                {c}
              </th>
            ),
        )}
        {hidden && (
          <th scope="col">
            <span class="sr-only">{hidden}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/**
 * Buttons to the page before and after, around where the list is (`children`, default "Page n of
 * m"). `labels` name the two buttons when "Previous" and "Next" would mislead (a newest-first log).
 */
export function Pager(props: {
  page: number;
  last: number;
  onPage: (page: number) => void;
  label: string;
  labels?: [string, string];
  class?: string;
  statusClass?: string;
  /** Read out where the list is whenever it changes (role=status). */
  announce?: boolean;
  children?: ComponentChildren;
}) {
  const { page, last, onPage, label, labels = ['Previous', 'Next'], statusClass, announce, children } = props;
  return (
    <nav class={props.class ?? 'pager'} aria-label={label}>
      <button class="btn small" type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {labels[0]}
      </button>
      <span class={statusClass} role={announce ? 'status' : undefined}>
        {children ?? `Page ${page} of ${last}`}
      </span>
      <button class="btn small" type="button" disabled={page >= last} onClick={() => onPage(page + 1)}>
        {labels[1]}
      </button>
    </nav>
  );
}

export function KvTable({ rows, labelledBy, search }: { rows: Array<[string, string]>; labelledBy?: string; search?: (name: string, value: string) => string | null }) {
  return (
    <div class="table-wrap">
      <table class="kv" aria-labelledby={labelledBy}>
        <tbody>
          {rows.map(([k, v], i) => {
            const q = search?.(k, v) ?? null;
            return (
              <tr key={`${k}-${i}`}>
                <th scope="row">{k}</th>
                <td>
                  {v}
                  {q && <SearchButton query={q} what={`${k} ${v.length > 40 ? `${v.slice(0, 40)}…` : v}`} />}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Where the service serves a page of its documentation (docs/<page>; core/web/docs.ts). */
export function docsUrl(page = '', anchor = ''): string {
  return `/docs/${page}${anchor ? `#${anchor}` : ''}`;
}

/** Help next to a form: a page of the documentation, opened beside the page so nothing typed is lost. */
export function DocsLink({ page, anchor, children }: { page: string; anchor?: string; children: ComponentChildren }) {
  return (
    <a class="docs-link" href={docsUrl(page, anchor)} target="_blank" rel="noopener">
      {children}
    </a>
  );
}
