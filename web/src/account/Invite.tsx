// The invite link's page (#/invite/<secret>): who the invite is for, and a button that uses it (once)
// and shows the person's first API key, with a way to sign in with it in this browser.
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorNotice, Spinner, announce } from '../ui';
import { formErrors, type NewApiKey } from './api';
import { NewKeyNotice, useLoad } from './common';

interface InviteInfo {
  name: string;
  email: string;
  team_id: number;
  user_type: string;
  expires_at: string;
}

export function Invite({ secret }: { secret: string }) {
  const info = useLoad(() => call<InviteInfo>('GET', `/users/invite/${encodeURIComponent(secret)}`), [secret]);
  const [key, setKey] = useState<NewApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function accept() {
    setBusy(true);
    setError(null);
    try {
      const u = await call<{ name: string; api_key: string; api_key_id: number }>('POST', `/users/invite/${encodeURIComponent(secret)}/accept`);
      setKey({ id: u.api_key_id, api_key: u.api_key, owner: u.name });
      announce('Your API key is ready');
    } catch (e) {
      setError(formErrors(e).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="panel" aria-labelledby="invite-page-title">
      <h1 id="invite-page-title">Your invite</h1>
      {key ? (
        <NewKeyNotice created={key} onDone={() => (location.hash = '#/account')} />
      ) : (
        <>
          <ErrorNotice error={info.error} />
          {!info.data && !info.error && <Spinner label="Loading the invite" />}
          {info.data && (
            <>
              <p>
                <strong>{info.data.name}</strong> ({info.data.email}), you are invited to team #{info.data.team_id} as <strong>{info.data.user_type}</strong>.
              </p>
              <p class="hint">Setting up your API key uses this link: it works once.</p>
              <div class="form-actions">
                <button class="btn primary" type="button" disabled={busy} onClick={() => void accept()}>
                  {busy ? 'Setting up…' : 'Set up my API key'}
                </button>
              </div>
              {error && (
                <p class="field-error" role="alert">
                  {error}
                </p>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}
