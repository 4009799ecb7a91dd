// The token's share link (Settings tab): make one, copy it (shown once: the server keeps only a
// hash), make a new one (the old stops working) or revoke it.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, enc, type Token } from './api';
import { CopyField, ErrorNotice, announce } from './ui';

interface ShareStatus {
  active: boolean;
  created_at: string | null;
}

export function TokenShare({ token }: { token: Token }) {
  const path = `/token/${enc(token.uuid)}/share`;
  const [status, setStatus] = useState<ShareStatus | null>(null);
  const [made, setMade] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    call<ShareStatus>('GET', path, { token: token.uuid }).then(setStatus, setError);
  }, [token.uuid]);

  async function make() {
    if (status?.active && !confirm('Make a new share link? The current one stops working.')) return;
    setBusy(true);
    try {
      const r = await call<{ url: string; created_at: string }>('POST', path, { token: token.uuid });
      setMade(r.url);
      setStatus({ active: true, created_at: r.created_at });
      setError(null);
      announce('Share link made: copy it now');
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    if (!confirm('Revoke the share link? Whoever has it can no longer see the requests.')) return;
    setBusy(true);
    try {
      await call('DELETE', path, { token: token.uuid });
      setMade(null);
      setStatus({ active: false, created_at: null });
      setError(null);
      announce('Share link revoked');
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="panel token-share" aria-labelledby="share-link-title">
      <h2 id="share-link-title">Share link</h2>
      <p class="hint">A view-only link to this token's requests and their live stream, for someone without an API key. It shows nothing else: no settings, no actions, and nothing can be changed through it.</p>
      <ErrorNotice error={error} />
      {made && (
        <div class="notice" role="region" aria-labelledby="share-made-title">
          <h3 id="share-made-title">Copy the link now: it is shown only once</h3>
          <CopyField id="share-url" label="Share link" value={made} />
        </div>
      )}
      <p id="share-state">{status === null ? 'Checking…' : status.active ? `Shared since ${status.created_at} UTC.` : 'Not shared.'}</p>
      <div class="form-actions">
        <button class="btn primary" type="button" disabled={busy} onClick={() => void make()}>
          {status?.active ? 'Make a new link' : 'Make a share link'}
        </button>
        {status?.active && (
          <button class="btn danger" type="button" disabled={busy} onClick={() => void revoke()}>
            Revoke the link
          </button>
        )}
      </div>
    </section>
  );
}
