// The page: a header with navigation and the API key, then the view the hash names.
import { useEffect, useState } from 'preact/hooks';
import { call, ApiError } from './api';
import { Home } from './Home';
import { href, useRoute } from './route';
import { Schedules } from './Schedules';
import { settings } from './settings';
import { TokenPage } from './TokenPage';
import { Announcer, announce } from './ui';

interface Me {
  id: number | null;
  name: string;
  admin: boolean;
  premium: boolean;
}

export function useApiKey(): string | null {
  const [key, setKey] = useState(settings.apiKey());
  useEffect(() => settings.subscribe(() => setKey(settings.apiKey())), []);
  return key;
}

function ApiKeyPanel({ onClose }: { onClose: () => void }) {
  const key = useApiKey();
  const [value, setValue] = useState(key ?? '');
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setMe(null);
    setError(null);
    if (!key) return;
    call<Me>('GET', '/users/me')
      .then(setMe)
      .catch((e: ApiError) => setError(e.status === 401 ? 'This API key is not valid on this server.' : e.message));
  }, [key]);

  return (
    <section class="panel apikey-panel" aria-labelledby="apikey-title">
      <h2 id="apikey-title">API key</h2>
      <p class="hint">
        Needed for tokens that belong to a user, for your token list and for schedules. It is kept in this browser's local storage and sent
        as the <code>Api-Key</code> header.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          settings.setApiKey(value);
          announce(value.trim() ? 'API key saved' : 'API key removed');
        }}
      >
        <label for="api-key">API key</label>
        <div class="copy-row">
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={value}
            onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
            aria-describedby="api-key-status"
          />
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

export function App() {
  const route = useRoute();
  const key = useApiKey();
  const [keyOpen, setKeyOpen] = useState(false);

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
          <a href={href({ view: 'schedules' })} aria-current={route.view === 'schedules' ? 'page' : undefined}>
            Schedules
          </a>
          <button type="button" class={`btn small${key ? ' ok' : ''}`} aria-expanded={keyOpen} aria-controls="apikey" onClick={() => setKeyOpen(!keyOpen)}>
            {key ? 'API key ✓' : 'API key'}
          </button>
        </nav>
      </header>
      {keyOpen && (
        <div id="apikey">
          <ApiKeyPanel onClose={() => setKeyOpen(false)} />
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {route.view === 'home' && <Home />}
        {route.view === 'schedules' && <Schedules key={String(key)} schedule={route.schedule} logs={route.logs} />}
        {route.view === 'token' && <TokenPage key={`${route.token}:${key ?? ''}`} route={route} />}
      </main>
      <Announcer />
    </>
  );
}
