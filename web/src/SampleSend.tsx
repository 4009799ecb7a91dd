// "Send a sample delivery" on the token page: a dialog to pick a provider, one of its events and the
// signing secret; the server builds the delivery, signs it as the provider does and captures it in
// this token (POST /samples/send, docs/samples.md). The new request then arrives in the list live.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, type Token } from './api';
import { href } from './route';
import { ErrorNotice, FieldError, announce, fieldErrorId } from './ui';
import './samples.css';

interface Provider {
  provider: string;
  name: string;
  source: string;
  licence: string;
  verify_preset: string;
  secret_required: boolean;
  events: Array<{ event: string; description: string; formats: Array<'json' | 'form'> }>;
}

interface Sent {
  event: string;
  provider: string;
  verify_preset: string;
  response: { status: number };
  request_id: string | null;
}

const FORM = 'sample';

/** The catalogue, fetched once per page load. */
let catalogue: Promise<Provider[]> | null = null;
const loadCatalogue = () =>
  (catalogue ??= call<{ data: Provider[] }>('GET', '/samples').then(
    (r) => r.data,
    (e: unknown) => ((catalogue = null), Promise.reject(e)),
  ));

export function SampleSend({ token, tokenRef }: { token: Token; tokenRef: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [provider, setProvider] = useState('github');
  const [event, setEvent] = useState('push');
  const [format, setFormat] = useState<'json' | 'form'>('json');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [sent, setSent] = useState<Sent | null>(null);

  useEffect(() => {
    if (!open) return;
    dialog.current?.showModal();
    loadCatalogue().then(setProviders, setError);
  }, [open]);

  const chosen = providers?.find((p) => p.provider === provider);
  const chosenEvent = chosen?.events.find((e) => e.event === event);

  function pickProvider(id: string) {
    setProvider(id);
    const first = providers?.find((p) => p.provider === id)?.events[0];
    setEvent(first?.event ?? '');
    setFormat(first?.formats[0] ?? 'json');
    // A secret is one provider's: another provider's would only fail its check.
    setSecret('');
    setSent(null);
    setError(null);
  }

  function pickEvent(name: string) {
    setEvent(name);
    setFormat(chosen?.events.find((e) => e.event === name)?.formats[0] ?? 'json');
    setSent(null);
  }

  async function send(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      const body = { provider, event, token: token.uuid, format, ...(secret ? { secret } : {}) };
      const r = await call<Sent>('POST', '/samples/send', { json: body, token: token.uuid });
      setSent(r);
      announce(`Sent ${r.provider} ${r.event}: answered ${r.response.status}`);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  }

  function close() {
    dialog.current?.close();
  }

  const fieldErrors = error?.errors ?? {};
  const otherError = error && !fieldErrors.secret && !fieldErrors.event ? error : null;

  return (
    <>
      <button type="button" class="btn small" onClick={() => setOpen(true)}>
        Send a sample delivery
      </button>
      {open && (
        <dialog ref={dialog} class="sample-dialog" aria-labelledby="sample-title" onClose={() => setOpen(false)}>
          <form onSubmit={send}>
            <h2 id="sample-title">Send a sample delivery</h2>
            <p class="hint small">
              A real example webhook, signed exactly as the provider signs it, captured in this token: build your actions against it, and check it with <code>verify_signature</code>.
            </p>
            <div class="sample-fields">
              <div class="field">
                <label for="sample-provider">Provider</label>
                <select id="sample-provider" value={provider} disabled={!providers} onChange={(e) => pickProvider((e.currentTarget as HTMLSelectElement).value)}>
                  {(providers ?? [{ provider: 'github', name: 'GitHub' } as Provider]).map((p) => (
                    <option key={p.provider} value={p.provider}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="sample-event">Event</label>
                <select
                  id="sample-event"
                  value={event}
                  disabled={!chosen}
                  aria-describedby={fieldErrors.event ? fieldErrorId(FORM, 'event') : 'sample-event-hint'}
                  onChange={(e) => pickEvent((e.currentTarget as HTMLSelectElement).value)}
                >
                  {(chosen?.events ?? [{ event, description: '', formats: ['json'] }]).map((e) => (
                    <option key={e.event} value={e.event}>
                      {e.event}
                    </option>
                  ))}
                </select>
                <FieldError form={FORM} field="event" errors={fieldErrors} />
              </div>
              {chosenEvent && chosenEvent.formats.length > 1 && (
                <div class="field">
                  <label for="sample-format">Body</label>
                  <select id="sample-format" value={format} onChange={(e) => setFormat((e.currentTarget as HTMLSelectElement).value as 'json' | 'form')}>
                    <option value="json">JSON</option>
                    <option value="form">Form (payload=)</option>
                  </select>
                </div>
              )}
              <div class="field">
                <label for="sample-secret">Signing secret{chosen && !chosen.secret_required ? ' (optional)' : ''}</label>
                <input
                  id="sample-secret"
                  type="text"
                  autocomplete="off"
                  spellcheck={false}
                  placeholder={provider === 'standard_webhooks' || provider === 'svix' ? 'whsec_…' : provider === 'twilio' ? 'Auth token' : 'The webhook secret'}
                  value={secret}
                  aria-invalid={fieldErrors.secret ? true : undefined}
                  aria-describedby={fieldErrors.secret ? fieldErrorId(FORM, 'secret') : undefined}
                  onInput={(e) => setSecret((e.currentTarget as HTMLInputElement).value)}
                />
                <FieldError form={FORM} field="secret" errors={fieldErrors} />
              </div>
            </div>
            <p id="sample-event-hint" class="hint small sample-about">
              {chosenEvent?.description ?? ''}
              {chosen && (
                <>
                  {' '}
                  <span class="sample-source">
                    Source: {chosen.source} ({chosen.licence}).
                  </span>
                </>
              )}
            </p>
            <ErrorNotice error={otherError} />
            {sent && (
              <p role="status" class="notice sample-sent">
                Sent <code>{sent.event}</code>: this token answered <strong>{sent.response.status}</strong>.{' '}
                {sent.request_id ? (
                  <a href={href({ view: 'token', token: tokenRef, tab: 'requests', request: sent.request_id })} onClick={close}>
                    Open the request
                  </a>
                ) : (
                  'It was not stored (an action dropped it, or the token keeps no requests).'
                )}
              </p>
            )}
            <div class="form-actions">
              <button class="btn primary" type="submit" disabled={busy || !providers || !event}>
                {busy ? 'Sending…' : 'Send'}
              </button>
              <button class="btn" type="button" onClick={close}>
                Close
              </button>
            </div>
          </form>
        </dialog>
      )}
    </>
  );
}
