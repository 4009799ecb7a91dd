// A token's settings: the default response, timeout, listen, CORS, request limit, custom actions.
import { useEffect, useRef, useState } from 'preact/hooks';
import { TokenGroup } from './account/TokenGroup';
import { ApiError, call, enc, type FieldErrors, type Token } from './api';
import { navigate } from './route';
import { settings } from './settings';
import { FieldError, announce, fieldErrorId } from './ui';

interface Form {
  default_status: string;
  default_content_type: string;
  default_content: string;
  timeout: string;
  listen: string;
  request_limit: string;
  cors: boolean;
  actions: boolean;
  description: string;
}

const fromToken = (t: Token): Form => ({
  default_status: String(t.default_status),
  default_content_type: t.default_content_type,
  default_content: t.default_content,
  timeout: String(t.timeout),
  listen: String(t.listen),
  request_limit: t.request_limit === null ? '' : String(t.request_limit),
  cors: t.cors,
  actions: t.actions,
  description: t.description ?? '',
});

const FORM = 'settings';

export function TokenSettings({ token, onSaved }: { token: Token; onSaved: (t: Token) => void }) {
  const [form, setForm] = useState<Form>(() => fromToken(token));
  const [dirty, setDirtyState] = useState(false);
  // Also kept in a ref for the effect below: it may run after an edit, from an older render whose
  // `dirty` was still false, and would wipe the edit.
  const dirtyNow = useRef(false);
  const setDirty = (v: boolean) => {
    dirtyNow.current = v;
    setDirtyState(v);
  };
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [saving, setSaving] = useState(false);

  // Someone else changed the token (live event) while this form is untouched: show their values.
  useEffect(() => {
    if (!dirtyNow.current) setForm(fromToken(token));
  }, [token]);

  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    setDirty(true);
    setForm((f) => ({ ...f, [k]: v }));
  };
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));

  async function save(e: Event) {
    e.preventDefault();
    setSaving(true);
    setErrors({});
    setMessage(null);
    const body: Record<string, unknown> = {
      default_status: num(form.default_status),
      default_content_type: form.default_content_type,
      default_content: form.default_content,
      timeout: num(form.timeout),
      listen: num(form.listen),
      request_limit: num(form.request_limit),
      cors: form.cors,
      actions: form.actions,
      description: form.description.trim() ? form.description : null,
    };
    try {
      const t = await call<Token>('PUT', `/token/${enc(token.uuid)}`, { json: body, token: token.uuid });
      onSaved(t);
      setForm(fromToken(t));
      setDirty(false);
      setMessage({ ok: true, text: 'Saved. New captures get this response.' });
      announce('Settings saved');
    } catch (err) {
      const ae = err as ApiError;
      setErrors(ae.errors ?? {});
      setMessage({ ok: false, text: ae.message });
    } finally {
      setSaving(false);
    }
  }

  const describedBy = (field: string, hint?: string) => [hint, errors[field] ? fieldErrorId(FORM, field) : undefined].filter(Boolean).join(' ') || undefined;
  const invalid = (field: string) => (errors[field] ? true : undefined);

  return (
    <div class="settings">
      <form class="panel" onSubmit={save} aria-labelledby="settings-title" noValidate>
        <h2 id="settings-title">Default response</h2>
        <div class="grid">
          <div class="field">
            <label for="default_status">Status code</label>
            <input
              id="default_status"
              type="number"
              inputMode="numeric"
              min={200}
              max={599}
              value={form.default_status}
              aria-invalid={invalid('default_status')}
              aria-describedby={describedBy('default_status')}
              onInput={(e) => set('default_status', (e.currentTarget as HTMLInputElement).value)}
            />
            <FieldError form={FORM} field="default_status" errors={errors} />
          </div>
          <div class="field wide">
            <label for="default_content_type">Content type</label>
            <input
              id="default_content_type"
              type="text"
              list="content-types"
              value={form.default_content_type}
              aria-invalid={invalid('default_content_type')}
              aria-describedby={describedBy('default_content_type')}
              onInput={(e) => set('default_content_type', (e.currentTarget as HTMLInputElement).value)}
            />
            <datalist id="content-types">
              <option value="text/html" />
              <option value="text/plain" />
              <option value="application/json" />
              <option value="application/xml" />
            </datalist>
            <FieldError form={FORM} field="default_content_type" errors={errors} />
          </div>
        </div>
        <div class="field">
          <label for="default_content">Body</label>
          <textarea
            id="default_content"
            rows={6}
            spellcheck={false}
            class="mono"
            value={form.default_content}
            aria-invalid={invalid('default_content')}
            aria-describedby={describedBy('default_content')}
            onInput={(e) => set('default_content', (e.currentTarget as HTMLTextAreaElement).value)}
          />
          <FieldError form={FORM} field="default_content" errors={errors} />
        </div>

        <h2>Behaviour</h2>
        <div class="grid">
          <div class="field">
            <label for="timeout">Timeout (s)</label>
            <input
              id="timeout"
              type="number"
              min={0}
              max={30}
              value={form.timeout}
              aria-invalid={invalid('timeout')}
              aria-describedby={describedBy('timeout', 'timeout-hint')}
              onInput={(e) => set('timeout', (e.currentTarget as HTMLInputElement).value)}
            />
            <p class="hint small" id="timeout-hint">
              Seconds to wait before answering, 0 to 30.
            </p>
            <FieldError form={FORM} field="timeout" errors={errors} />
          </div>
          <div class="field">
            <label for="listen">Listen (s)</label>
            <input
              id="listen"
              type="number"
              min={0}
              max={10}
              value={form.listen}
              aria-invalid={invalid('listen')}
              aria-describedby={describedBy('listen', 'listen-hint')}
              onInput={(e) => set('listen', (e.currentTarget as HTMLInputElement).value)}
            />
            <p class="hint small" id="listen-hint">
              Seconds a capture waits for a response set through the API, 0 to 10.
            </p>
            <FieldError form={FORM} field="listen" errors={errors} />
          </div>
          <div class="field">
            <label for="request_limit">Request limit</label>
            <input
              id="request_limit"
              type="number"
              min={0}
              value={form.request_limit}
              aria-invalid={invalid('request_limit')}
              aria-describedby={describedBy('request_limit', 'request_limit-hint')}
              onInput={(e) => set('request_limit', (e.currentTarget as HTMLInputElement).value)}
            />
            <p class="hint small" id="request_limit-hint">
              Requests kept, from 0 to 10000 (more where the service's MAX_REQUEST_LIMIT allows it); the oldest go first.
            </p>
            <FieldError form={FORM} field="request_limit" errors={errors} />
          </div>
        </div>
        <div class="checks">
          <label class="check">
            <input type="checkbox" checked={form.cors} onChange={(e) => set('cors', (e.currentTarget as HTMLInputElement).checked)} /> Add CORS headers to capture responses
          </label>
          <label class="check">
            <input type="checkbox" checked={form.actions} onChange={(e) => set('actions', (e.currentTarget as HTMLInputElement).checked)} /> Run custom actions on every capture
          </label>
        </div>
        <div class="field">
          <label for="description">Description</label>
          <input
            id="description"
            type="text"
            value={form.description}
            aria-invalid={invalid('description')}
            aria-describedby={describedBy('description')}
            onInput={(e) => set('description', (e.currentTarget as HTMLInputElement).value)}
          />
          <FieldError form={FORM} field="description" errors={errors} />
        </div>
        <div class="form-actions">
          <button class="btn primary" type="submit" disabled={saving}>
            {saving ? 'Saving…' : 'Save settings'}
          </button>
          {dirty && (
            <button
              class="btn"
              type="button"
              onClick={() => {
                setForm(fromToken(token));
                setDirty(false);
                setErrors({});
              }}
            >
              Discard changes
            </button>
          )}
          {message && (
            <p class={message.ok ? 'ok-text' : 'field-error'} role={message.ok ? 'status' : 'alert'}>
              {message.text}
            </p>
          )}
        </div>
      </form>

      <TokenGroup token={token} onSaved={onSaved} />

      {token.user_id !== null && (
        <section class="panel" aria-labelledby="disassociate-title">
          <h2 id="disassociate-title">Remove from your account</h2>
          <p class="hint">The token keeps its requests and actions but belongs to no account: whoever knows its URL can open and change it.</p>
          <button
            class="btn"
            type="button"
            onClick={async () => {
              if (!confirm('Take this token out of your account? Anyone who knows its URL can then open it.')) return;
              try {
                onSaved(await call<Token>('POST', `/token/${enc(token.uuid)}/disassociate`, { token: token.uuid }));
                announce('Token removed from your account');
              } catch (err) {
                alert((err as Error).message);
              }
            }}
          >
            Remove from account
          </button>
        </section>
      )}

      <section class="panel danger-zone" aria-labelledby="danger-title">
        <h2 id="danger-title">Delete this token</h2>
        <p class="hint">Deletes the token with all its requests. Its URL and e-mail address stop capturing.</p>
        <button
          class="btn danger"
          type="button"
          onClick={async () => {
            if (!confirm('Delete this token and all its requests?')) return;
            try {
              await call('DELETE', `/token/${enc(token.uuid)}`, { token: token.uuid });
              settings.forget(token.uuid);
              announce('Token deleted');
              navigate({ view: 'home' });
            } catch (err) {
              alert((err as Error).message);
            }
          }}
        >
          Delete token
        </button>
      </section>
    </div>
  );
}
