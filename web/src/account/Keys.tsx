// API keys: a user's own (GET/POST/DELETE /users/{id}/api-keys), and the same list the
// administrator opens for any user from the Users screen.
import { useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { formatTime, parseApiTime } from '../format';
import { settings } from '../settings';
import { ErrorNotice, Spinner, announce } from '../ui';
import { formErrors, type ApiKeyInfo, type NewApiKey } from './api';
import { Gate, InlineError, NewKeyNotice, useLoad } from './common';

/** The key this browser signs in with has this prefix. */
const isThisBrowsers = (k: ApiKeyInfo) => !!settings.apiKey()?.startsWith(k.prefix);

export function KeyList({ userId, owner, headingLevel = 2 }: { userId: number; owner: string; headingLevel?: 1 | 2 | 3 }) {
  const { data, error, reload } = useLoad(() => call<Pick<Page<ApiKeyInfo>, 'data'>>('GET', `/users/${userId}/api-keys`), [userId]);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const H = `h${headingLevel}` as 'h1';
  const titleId = `keys-${userId}-title`;

  async function create() {
    setBusy(true);
    setActionError(null);
    try {
      const k = await call<{ id: number; api_key: string }>('POST', `/users/${userId}/api-keys`);
      setCreated({ id: k.id, api_key: k.api_key, owner });
      reload();
    } catch (e) {
      setActionError(formErrors(e).message);
    } finally {
      setBusy(false);
    }
  }

  async function revoke(k: ApiKeyInfo) {
    const own = isThisBrowsers(k);
    const question = own ? `Revoke ${k.prefix}…? It is the key this browser signs in with: you will be signed out.` : `Revoke ${k.prefix}…? Anything using it stops working at once.`;
    if (!confirm(question)) return;
    setActionError(null);
    try {
      await call('DELETE', `/users/${userId}/api-keys/${k.id}`);
      announce(`Key ${k.prefix}… revoked`);
      if (own) settings.setApiKey(null);
      else reload();
    } catch (e) {
      setActionError(formErrors(e).message);
    }
  }

  return (
    <section class="acct-keys" aria-labelledby={titleId}>
      <div class="section-head">
        <H id={titleId}>API keys of {owner}</H>
        <button class="btn primary small" type="button" onClick={create} disabled={busy}>
          {busy ? 'Creating…' : 'Create a key'}
        </button>
      </div>
      {created && <NewKeyNotice created={created} onDone={() => setCreated(null)} />}
      <InlineError error={actionError} />
      <ErrorNotice error={error} />
      {!data && !error && <Spinner label="Loading keys" />}
      {data && data.data.length === 0 && <p class="hint">No keys: nobody can sign in as {owner}.</p>}
      {data && data.data.length > 0 && (
        <ul class="acct-list">
          {data.data.map((k) => (
            <li key={k.id}>
              <span>
                <code>{k.prefix}…</code> {isThisBrowsers(k) && <span class="badge">this browser</span>}
                <span class="hint small"> created {formatTime(parseApiTime(k.created_at))}</span>
              </span>
              <button class="btn small danger" type="button" onClick={() => revoke(k)} aria-label={`Revoke key ${k.prefix}`}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Keys() {
  return (
    <Gate title="API keys" what="API keys sign you in, on this page (the API key button) and in the Api-Key header of API calls." needs="any">
      {(me) =>
        me.admin ? (
          <section class="panel" aria-labelledby="adminkey-title">
            <h1 id="adminkey-title">API keys</h1>
            <p>
              You are signed in as the <strong>administrator</strong>. Its key is the server's <code>ADMIN_API_KEY</code> setting: change it in the server's environment and restart. Users' keys are created and revoked
              under <a href="#/account/users">Users</a>.
            </p>
          </section>
        ) : (
          <div class="panel">
            <KeyList userId={me.id!} owner={me.name} headingLevel={1} />
            <p class="hint small">Each key signs in as you. Create one per machine or script, and revoke the ones you no longer use.</p>
          </div>
        )
      }
    </Gate>
  );
}
