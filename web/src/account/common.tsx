// What the account screens share: the gate that explains who may use a screen (instead of letting
// the API fail), the once-only display of a new API key, and a small loader hook.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Page } from '../api';
import { href } from '../route';
import { settings } from '../settings';
import { CopyButton, ErrorNotice, Spinner, announce } from '../ui';
import { openApiKeyPanel, useSession, type Me, type NewApiKey } from './api';

/** A list endpoint's page as it loads: its error, a spinner, the empty text, or the items. */
export function PageView<T>(props: { list: { data: Page<T> | null; error: ApiError | null }; loading: string; empty: ComponentChildren; children: (items: T[]) => ComponentChildren }) {
  const { list } = props;
  return (
    <>
      <ErrorNotice error={list.error} />
      {!list.data && !list.error && <Spinner label={props.loading} />}
      {list.data && list.data.data.length === 0 && <p class="hint">{props.empty}</p>}
      {list.data && list.data.data.length > 0 && props.children(list.data.data)}
    </>
  );
}

/** Loads with `load` when `deps` change; `reload()` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: ApiError | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    load().then(
      (d) => live && setData(d),
      (e: ApiError) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [...deps, n]);
  return { data, error, reload: useCallback(() => setN((x) => x + 1), []) };
}

export function SignInButton() {
  return (
    <button class="btn primary" type="button" onClick={openApiKeyPanel}>
      Enter an API key
    </button>
  );
}

/**
 * Renders `children(me)` when the stored key signs in as the kind of caller the screen needs;
 * otherwise says why not and what to do. `needs`: a user (their own resources), the administrator,
 * or anyone signed in.
 */
export function Gate({ title, what, needs, children }: { title: string; what: string; needs: 'user' | 'admin' | 'any'; children: (me: Me) => ComponentChildren }) {
  const session = useSession();
  if (session.state === 'checking') return <Spinner label="Checking the API key" />;
  if (session.state === 'anonymous' || session.state === 'invalid') {
    return (
      <section class="panel acct-gate" aria-labelledby="gate-title">
        <h1 id="gate-title">{title}</h1>
        <p>{what}</p>
        {session.state === 'invalid' ? (
          <p class="field-error" role="alert">
            The stored API key does not work: {session.message}
          </p>
        ) : (
          <p>
            {needs === 'admin' ? 'Only the administrator may use this screen: sign in with the ' : 'Sign in with an '}
            <strong>{needs === 'admin' ? 'ADMIN_API_KEY' : 'API key'}</strong> to use it.
          </p>
        )}
        <div class="form-actions">
          <SignInButton />
          <a href={href({ view: 'welcome' })}>How do I get a key?</a>
        </div>
      </section>
    );
  }
  const { me } = session;
  if (needs === 'admin' && !me.admin) {
    return (
      <section class="panel acct-gate" aria-labelledby="gate-title">
        <h1 id="gate-title">{title}</h1>
        <p>{what}</p>
        <p>
          <strong>Administrator only.</strong> You are signed in as {me.name}; this screen needs the server's <code>ADMIN_API_KEY</code>. Your own keys are under{' '}
          <a href={href({ view: 'account', section: 'keys' })}>API keys</a>.
        </p>
      </section>
    );
  }
  if (needs === 'user' && me.admin) {
    return (
      <section class="panel acct-gate" aria-labelledby="gate-title">
        <h1 id="gate-title">{title}</h1>
        <p>{what}</p>
        <p>
          <strong>These belong to users, and the administrator is not one.</strong> Create a user under <a href={href({ view: 'account', section: 'users' })}>Users</a>, then sign in with the key it is given.
        </p>
      </section>
    );
  }
  return <>{children(me)}</>;
}

/** A key just created: shown once, with a copy button, focused so a screen reader reads it. */
export function NewKeyNotice({ created, onDone }: { created: NewApiKey; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => box.current?.focus(), [created.api_key]);
  return (
    <div class="notice acct-newkey" role="region" aria-labelledby="newkey-title" tabIndex={-1} ref={box}>
      <h2 id="newkey-title">New API key for {created.owner}</h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> The server keeps only a hash of it.
      </p>
      <label for="new-api-key">The new API key</label>
      <div class="copy-row">
        <input id="new-api-key" class="mono" type="text" readOnly value={created.api_key} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <CopyButton text={created.api_key} label="Copy the new API key" />
      </div>
      <div class="form-actions">
        <button
          class="btn"
          type="button"
          onClick={() => {
            settings.setApiKey(created.api_key);
            announce(`Signed in with the new key of ${created.owner}`);
          }}
        >
          Sign in with it in this browser
        </button>
        <button class="btn" type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}

/** The message of a failed action, next to the button that did it. */
export function InlineError({ error, id }: { error: string | null; id?: string }) {
  if (!error) return null;
  return (
    <p class="field-error" role="alert" id={id}>
      {error}
    </p>
  );
}
