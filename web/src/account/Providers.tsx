// Providers: the user's connected accounts that actions use by `provider_id`. The connect form is
// generated from /provider-types (JSON Schemas of each kind's credentials and settings); credentials
// are never shown back (the API says only which fields are set); an SSH key pair shows its public key.
import { useMemo, useState } from 'preact/hooks';
import { call, enc, type FieldErrors, type Page } from '../api';
import { formatTime, parseApiTime } from '../format';
import { CopyField, ErrorNotice, FieldError, announce, fieldErrorId } from '../ui';
import { formErrors, formSummary, type Provider, type ProviderType } from './api';
import { Gate, InlineError, PageView, useLoad } from './common';
import { SchemaFields, collect, humanize, missing, toValues, type FieldValues } from './SchemaFields';

/** `credentials.token` names a field the schema's form shows. */
const fieldOf = (key: string, schema: ProviderType['credentials'], prefix: string) => key.startsWith(`${prefix}.`) && key.slice(prefix.length + 1) in (schema.properties ?? {});

export function Providers() {
  return (
    <Gate title="Providers" what="Providers are your connected accounts (Slack, AWS, an SSH key pair…). Actions use them by their ID, so no secret is written into a chain." needs="user">
      {() => <ProviderScreen />}
    </Gate>
  );
}

function ProviderScreen() {
  const types = useLoad(() => call<ProviderType[]>('GET', '/provider-types'), []);
  const list = useLoad(() => call<Page<Provider>>('GET', '/providers?per_page=100'), []);
  const byType = useMemo(() => new Map((types.data ?? []).map((t) => [t.type, t])), [types.data]);

  return (
    <>
      <section class="panel" aria-labelledby="prov-title">
        <h1 id="prov-title">Providers</h1>
        <p class="hint">Connected accounts your actions use by ID. Their credentials are stored encrypted and never shown again.</p>
        <PageView list={list} loading="Loading providers" empty="No providers yet: connect one below.">
          {(items) => (
            <ul class="acct-cards">
              {items.map((p) => (
                <ProviderItem key={p.id} provider={p} kind={byType.get(p.type)} onChanged={list.reload} />
              ))}
            </ul>
          )}
        </PageView>
      </section>
      <ErrorNotice error={types.error} />
      {types.data && <ConnectForm types={types.data} onConnected={list.reload} />}
    </>
  );
}

function ProviderItem({ provider: p, kind, onChanged }: { provider: Provider; kind?: ProviderType; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const publicKey = typeof p.settings.public_key === 'string' ? p.settings.public_key : null;

  async function remove() {
    if (!confirm(`Remove the provider "${p.name}"? Actions that use it will fail.`)) return;
    setError(null);
    try {
      await call('DELETE', `/providers/${enc(p.id)}`);
      announce(`Provider ${p.name} removed`);
      onChanged();
    } catch (e) {
      setError(formErrors(e).message);
    }
  }

  return (
    <li class="acct-card" aria-labelledby={`prov-${p.id}-name`}>
      <div class="section-head">
        <h2 id={`prov-${p.id}-name`} class="acct-card-title">
          {p.name} <span class="badge spaced">{kind?.title ?? p.type}</span>
        </h2>
        <div class="row-actions">
          <button class="btn small" type="button" aria-expanded={editing} onClick={() => setEditing(!editing)} aria-label={`Edit or rename ${p.name}`}>
            {editing ? 'Close' : 'Edit'}
          </button>
          <button class="btn small danger" type="button" onClick={remove} aria-label={`Remove ${p.name}`}>
            Remove
          </button>
        </div>
      </div>
      <dl class="acct-facts">
        <dt>ID</dt>
        <dd>
          <code>{p.id}</code>
        </dd>
        <dt>Credentials</dt>
        <dd>{p.credential_fields.length ? p.credential_fields.map(humanize).join(', ') + ' (set, hidden)' : 'none'}</dd>
        <dt>Connected</dt>
        <dd>{formatTime(parseApiTime(p.created_at))}</dd>
      </dl>
      {publicKey && <CopyField id={`pub-${p.id}`} label="Public key (add it to ~/.ssh/authorized_keys)" value={publicKey} />}
      <InlineError error={error} />
      {editing && kind && (
        <EditProvider
          provider={p}
          kind={kind}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      )}
    </li>
  );
}

function EditProvider({ provider: p, kind, onSaved }: { provider: Provider; kind: ProviderType; onSaved: () => void }) {
  const [name, setName] = useState(p.name);
  const [settingsIn, setSettings] = useState<FieldValues>(() => toValues(p.settings));
  const [creds, setCreds] = useState<FieldValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const F = `edit-${p.id}`;

  async function save(e: Event) {
    e.preventDefault();
    setErrors({});
    setMessage(null);
    const credentials = collect(kind.credentials, creds);
    try {
      await call('PUT', `/providers/${enc(p.id)}`, {
        json: { name, settings: collect(kind.settings, settingsIn), ...(Object.keys(credentials).length ? { credentials } : {}) },
      });
      announce(`Provider ${name} saved`);
      onSaved();
    } catch (err) {
      const f = formErrors(err);
      setErrors(f.errors);
      setMessage(formSummary(f, (k) => k === 'name' || fieldOf(k, kind.credentials, 'credentials') || (hasSettings && fieldOf(k, kind.settings, 'settings'))));
    }
  }

  const hasSettings = Object.keys(kind.settings.properties ?? {}).length > 0;
  return (
    <form class="acct-subform" onSubmit={save} noValidate aria-label={`Edit ${p.name}`}>
      <div class="field">
        <label for={`${F}-name`}>Name</label>
        <input
          id={`${F}-name`}
          type="text"
          value={name}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? fieldErrorId(F, 'name') : undefined}
          onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
        />
        <FieldError form={F} field="name" errors={errors} />
      </div>
      {hasSettings && (
        <fieldset>
          <legend>Settings</legend>
          <SchemaFields schema={kind.settings} idPrefix={`${F}-s`} errorPrefix="settings" values={settingsIn} onChange={setSettings} errors={errors} />
        </fieldset>
      )}
      <fieldset>
        <legend>Replace credentials</legend>
        <p class="hint small">Fill in only what changes; empty fields keep their stored value.</p>
        <SchemaFields schema={kind.credentials} idPrefix={`${F}-c`} errorPrefix="credentials" values={creds} onChange={setCreds} errors={errors} secret alreadySet={p.credential_fields} />
      </fieldset>
      <div class="form-actions">
        <button class="btn primary" type="submit">
          Save provider
        </button>
        <InlineError error={message} />
      </div>
    </form>
  );
}

function ConnectForm({ types, onConnected }: { types: ProviderType[]; onConnected: () => void }) {
  const [type, setType] = useState(types[0]?.type ?? '');
  const [name, setName] = useState('');
  const [generate, setGenerate] = useState(true);
  const [creds, setCreds] = useState<FieldValues>({});
  const [settingsIn, setSettings] = useState<FieldValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const kind = types.find((t) => t.type === type);
  const F = 'connect';

  if (types.length === 0) {
    return (
      <section class="panel" aria-labelledby="connect-title">
        <h2 id="connect-title">Connect a provider</h2>
        <p class="hint">No plugin on this server defines a provider kind.</p>
      </section>
    );
  }

  const generating = !!kind?.generates_credentials && generate;
  async function submit(e: Event) {
    e.preventDefault();
    if (!kind) return;
    setBusy(true);
    setErrors({});
    setMessage(null);
    const body: Record<string, unknown> = { type, ...(name.trim() ? { name } : {}) };
    const empty = generating ? {} : { ...missing(kind.credentials, creds, 'credentials'), ...missing(kind.settings, settingsIn, 'settings') };
    if (Object.keys(empty).length) {
      setErrors(empty);
      setMessage(Object.keys(empty).length === 1 ? 'Fill in the field marked above.' : 'Fill in the fields marked above.');
      setBusy(false);
      return;
    }
    if (!generating) {
      body.credentials = collect(kind.credentials, creds);
      body.settings = collect(kind.settings, settingsIn);
    }
    try {
      const p = await call<Provider>('POST', '/providers', { json: body });
      announce(`Provider ${p.name} connected`);
      setName('');
      setCreds({});
      setSettings({});
      onConnected();
    } catch (err) {
      const f = formErrors(err);
      setErrors(f.errors);
      setMessage(formSummary(f, (k) => k === 'name' || k === 'type' || (!generating && (fieldOf(k, kind.credentials, 'credentials') || fieldOf(k, kind.settings, 'settings')))));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="connect-title">
      <h2 id="connect-title">Connect a provider</h2>
      <div class="grid">
        <div class="field">
          <label for="connect-type">Kind</label>
          <select
            id="connect-type"
            value={type}
            aria-describedby="connect-type-help"
            onChange={(e) => {
              setType((e.currentTarget as HTMLSelectElement).value);
              setCreds({});
              setSettings({});
              setErrors({});
            }}
          >
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.title}
              </option>
            ))}
          </select>
          <FieldError form={F} field="type" errors={errors} />
        </div>
        <div class="field">
          <label for="connect-name">
            Name <span class="hint small">(optional)</span>
          </label>
          <input
            id="connect-name"
            type="text"
            placeholder={kind?.title}
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? fieldErrorId(F, 'name') : undefined}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
          <FieldError form={F} field="name" errors={errors} />
        </div>
      </div>
      <p class="hint" id="connect-type-help">
        {kind?.description}
      </p>
      {kind?.generates_credentials && (
        <fieldset>
          <legend>Credentials</legend>
          <label class="check">
            <input type="radio" name="connect-generate" checked={generate} onChange={() => setGenerate(true)} /> Generate them here (the private part never leaves the server)
          </label>
          <label class="check">
            <input type="radio" name="connect-generate" checked={!generate} onChange={() => setGenerate(false)} /> Enter my own
          </label>
        </fieldset>
      )}
      {kind && !generating && (
        <>
          <fieldset>
            <legend>Credentials</legend>
            <SchemaFields schema={kind.credentials} idPrefix={`${F}-c-${kind.type}`} errorPrefix="credentials" values={creds} onChange={setCreds} errors={errors} secret />
          </fieldset>
          {Object.keys(kind.settings.properties ?? {}).length > 0 && (
            <fieldset>
              <legend>Settings</legend>
              <SchemaFields schema={kind.settings} idPrefix={`${F}-s-${kind.type}`} errorPrefix="settings" values={settingsIn} onChange={setSettings} errors={errors} />
            </fieldset>
          )}
        </>
      )}
      <div class="form-actions">
        <button class="btn primary" type="submit" disabled={busy || !kind}>
          {busy ? 'Connecting…' : 'Connect'}
        </button>
        <InlineError error={message} />
      </div>
    </form>
  );
}
