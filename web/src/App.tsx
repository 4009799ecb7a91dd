// The page: a header with navigation and the API key, then the view the hash names.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Account, AccountLayout } from './account/Account';
import { onOpenApiKeyPanel, useSession } from './account/api';
import { FirstRun } from './account/FirstRun';
import { Invite } from './account/Invite';
import { Home } from './Home';
import { href, navigate, useRoute } from './route';
import { Schedules } from './Schedules';
import { settings, useApiKey } from './settings';
import { TokenPage } from './TokenPage';
import { SharePage } from './SharePage';
import { useUnreadErrors } from './account/ErrorLog';
import { Announcer, announce, docsUrl } from './ui';

function ApiKeyPanel({ onClose, focusInput }: { onClose: () => void; focusInput: number }) {
  const key = useApiKey();
  const [value, setValue] = useState(key ?? '');
  const session = useSession();
  const me = session.state === 'signed-in' ? session.me : null;
  const error = session.state === 'invalid' ? session.message : null;
  const input = useRef<HTMLInputElement>(null);
  // A saved key that signs in closes the panel (the header button then says who); a refused one keeps it open with the reason.
  // (Only once the new key was checked: until then the session is the previous key's.)
  const [saved, setSaved] = useState<'no' | 'sent' | 'checking'>('no');
  useEffect(() => {
    if (saved === 'sent' && session.state === 'checking') setSaved('checking');
    if (saved !== 'checking' || session.state !== 'signed-in') return;
    announce(`Signed in as ${session.me.name}`);
    onClose();
  }, [saved, session.state]);
  // Opened by a screen that needs a key ("Enter an API key"): the field takes the focus.
  useLayoutEffect(() => {
    if (focusInput) input.current?.focus();
  }, [focusInput]);

  return (
    <section class="panel apikey-panel" aria-labelledby="apikey-title">
      <h2 id="apikey-title">API key</h2>
      <p class="hint">
        Needed for tokens that belong to a user, for your token list, and for everything under Account. It is kept in this browser's local storage and sent as the <code>Api-Key</code> header.{' '}
        <a href={href({ view: 'welcome' })}>How do I get one?</a>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim() && value.trim() === key && me) return onClose();
          settings.setApiKey(value);
          setSaved(value.trim() ? 'sent' : 'no');
          announce(value.trim() ? 'API key saved' : 'API key removed');
        }}
      >
        <label for="api-key">API key</label>
        <div class="copy-row">
          <input ref={input} id="api-key" type="password" autocomplete="off" spellcheck={false} value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} aria-describedby="api-key-status" />
          <button class="btn primary" type="submit">
            Save
          </button>
          <button
            class="btn"
            type="button"
            onClick={() => {
              setValue('');
              settings.setApiKey(null);
              announce('API key removed');
            }}
          >
            Clear
          </button>
        </div>
        <p id="api-key-status" class={error ? 'field-error' : 'hint'}>
          {error ?? (me ? `Signed in as ${me.name}${me.admin ? ' (administrator)' : me.premium ? ' (premium)' : ''}.` : key ? 'Checking…' : 'No API key: anonymous.')}
        </p>
      </form>
      <button class="btn link" type="button" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

/** A warning triangle in the text's colour, shown on phones only (the link's name says what it means). */
function WarningIcon() {
  return (
    <svg class="phone-only" viewBox="0 0 16 16" width="11" height="11" aria-hidden="true" focusable="false">
      <path d="M8 1.75 14.75 14H1.25Z" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round" />
      <path d="M8 6.25v3.5M8 11.6v.15" stroke="currentColor" stroke-width="1.7" stroke-linecap="round" />
    </svg>
  );
}

/** The start page opens with the first-run screen for a browser with no key and no tokens yet. */
function useFirstRun(key: string | null): [boolean, () => void] {
  const [dismissed, setDismissed] = useState(settings.firstRunDismissed());
  const show = !key && !dismissed && settings.recent().length === 0;
  return [
    show,
    () => {
      settings.dismissFirstRun();
      setDismissed(true);
    },
  ];
}

export function App() {
  const route = useRoute();
  const key = useApiKey();
  const [keyOpen, setKeyOpen] = useState(false);
  const [focusKey, setFocusKey] = useState(0);
  const session = useSession();
  const signedInAs = session.state === 'signed-in' ? `Signed in as ${session.me.name}${session.me.admin ? ' (administrator)' : session.me.premium ? ' (premium)' : ''}` : null;
  const [firstRun, dismissFirstRun] = useFirstRun(key);
  const unreadErrors = useUnreadErrors();

  useEffect(
    () =>
      onOpenApiKeyPanel(() => {
        setKeyOpen(true);
        setFocusKey((n) => n + 1);
      }),
    [],
  );

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={href({ view: 'home' })}>
          <img src="/app/favicon.svg" alt="" width="22" height="22" />
          <span>Request capture</span>
        </a>
        <nav aria-label="Main">
          <a href={href({ view: 'home' })} aria-current={route.view === 'home' ? 'page' : undefined}>
            Tokens
          </a>
          <a class="nav-schedules" href={href({ view: 'schedules' })} aria-current={route.view === 'schedules' ? 'page' : undefined}>
            Schedules
          </a>
          {unreadErrors !== null && (
            <a
              class={`nav-errors${unreadErrors > 0 ? ' has-unread' : ''}`}
              href={href({ view: 'account', section: 'errors' })}
              aria-label={unreadErrors > 0 ? `Errors, ${unreadErrors} unread` : 'Errors'}
              aria-current={route.view === 'account' && route.section === 'errors' ? 'page' : undefined}
            >
              {/* The word at desktop width; on a phone the count's pill carries a warning sign instead. */}
              <span class="label sr-only-phone">Errors</span>
              {unreadErrors > 0 && (
                <span class="count" aria-hidden="true">
                  <WarningIcon />
                  {/* 9+ on a phone, whose one-row header has room for two characters; the name has the number. */}
                  {unreadErrors > 9 ? (
                    <>
                      <span class="wide-only">{unreadErrors > 99 ? '99+' : unreadErrors}</span>
                      <span class="phone-only">9+</span>
                    </>
                  ) : (
                    unreadErrors
                  )}
                </span>
              )}
            </a>
          )}
          <a href={href({ view: 'account', section: 'overview' })} aria-current={route.view === 'account' ? 'page' : undefined}>
            Account
          </a>
          <a class="nav-docs" href={docsUrl()}>
            Docs
          </a>
          <button type="button" class={`btn small${key ? ' ok' : ''}`} title={signedInAs ?? undefined} aria-expanded={keyOpen} aria-controls="apikey" onClick={() => setKeyOpen(!keyOpen)}>
            {/* "Key" on a phone, where the header has one row to share; the name stays "API key". */}
            <span class="sr-only-phone">API key</span>
            <span class="phone-only" aria-hidden="true">
              Key
            </span>
            {key ? ' ✓' : ''}
          </button>
        </nav>
      </header>
      {keyOpen && (
        <div id="apikey">
          <ApiKeyPanel onClose={() => setKeyOpen(false)} focusInput={focusKey} />
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {route.view === 'home' && (
          <>
            {firstRun && (
              <div class="home">
                <FirstRun onDismiss={dismissFirstRun} />
              </div>
            )}
            <Home />
          </>
        )}
        {route.view === 'welcome' && (
          <div class="home">
            <FirstRun
              focus
              onDismiss={() => {
                dismissFirstRun();
                navigate({ view: 'home' });
              }}
            />
          </div>
        )}
        {route.view === 'invite' && <Invite secret={route.secret} />}
        {route.view === 'account' && <Account key={String(key)} route={route} />}
        {route.view === 'schedules' && (
          <AccountLayout current="schedules">
            <Schedules key={String(key)} schedule={route.schedule} logs={route.logs} />
          </AccountLayout>
        )}
        {route.view === 'share' && <SharePage key={`${route.token}:${route.secret}`} route={route} />}
        {route.view === 'token' && <TokenPage key={`${route.token}:${key ?? ''}`} route={route} />}
      </main>
      <Announcer />
    </>
  );
}
