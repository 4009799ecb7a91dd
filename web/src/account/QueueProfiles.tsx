// Queue Profiles: throttling and ordering shared by a user's queued actions (the /queue-profiles
// API): listed, created, edited and deleted here. A queued step picks one in the action editor;
// deleting one leaves its steps plain queued.
import { useLayoutEffect, useState } from 'preact/hooks';
import { call, type FieldErrors } from '../api';
import { FieldError, announce, fieldErrorId } from '../ui';
import { formErrors, formSummary } from './api';
import { Gate, InlineError, useLoad } from './common';

interface QueueProfile {
  id: string;
  name: string;
  initial_delay: number;
  rate_limit: number;
  rate_period: number;
  job_lifetime: number;
}

const FIELDS = [
  ['name', 'Name', 'text'],
  ['rate_limit', 'Jobs per period', 'number'],
  ['rate_period', 'Period (seconds)', 'number'],
  ['initial_delay', 'Initial delay (seconds)', 'number'],
  ['job_lifetime', 'Job lifetime (seconds)', 'number'],
] as const;

export function QueueProfiles() {
  return (
    <Gate title="Queue profiles" what="Queue profiles throttle queued actions and run them in order." needs="user">
      {() => <ProfileScreen />}
    </Gate>
  );
}

function ProfileScreen() {
  const list = useLoad(() => call<{ data: QueueProfile[] }>('GET', '/queue-profiles'), []);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<QueueProfile | null>(null);
  const items = list.data?.data ?? [];
  return (
    <>
      <section class="panel" aria-labelledby="qp-title">
        <h1 id="qp-title">Queue profiles</h1>
        <p class="hint">A queued step that names a profile runs one at a time in order, at most the profile’s jobs per period. Pick one in a step’s “Queue profile”.</p>
        {list.error && <InlineError error={list.error.message} />}
        {!list.data && !list.error && <p class="hint">Loading queue profiles…</p>}
        {list.data && items.length === 0 && <p class="hint">No queue profiles yet.</p>}
        {items.length > 0 && (
          <ul class="acct-list">
            {items.map((p) => (
              <li key={p.id}>
                <span>
                  <strong>{p.name}</strong>{' '}
                  <span class="hint small">
                    {p.rate_limit} per {p.rate_period} s · delay {p.initial_delay} s · lifetime {p.job_lifetime} s · <code>{p.id}</code>
                  </span>
                </span>
                <div class="row-actions">
                  <button class="btn small" type="button" aria-label={`Edit ${p.name}`} aria-pressed={editing?.id === p.id} onClick={() => setEditing(p)}>
                    Edit
                  </button>
                  <button
                    class="btn small danger"
                    type="button"
                    aria-label={`Delete ${p.name}`}
                    onClick={async () => {
                      if (!confirm(`Delete the queue profile ${p.name}? Steps that name it run as plain queued steps.`)) return;
                      try {
                        await call('DELETE', `/queue-profiles/${p.id}`);
                        announce(`Queue profile ${p.name} deleted`);
                        if (editing?.id === p.id) setEditing(null);
                        list.reload();
                      } catch (e) {
                        setError(formErrors(e).message);
                      }
                    }}
                  >
                    Delete
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
        <InlineError error={error} />
      </section>
      <ProfileForm
        key={editing?.id ?? 'new'}
        editing={editing}
        onSaved={() => {
          setEditing(null);
          list.reload();
        }}
        onCancel={() => setEditing(null)}
      />
    </>
  );
}

const EMPTY = { name: '', rate_limit: '100', rate_period: '60', initial_delay: '0', job_lifetime: '86400' };

/** The form's text of a profile's fields. */
function valuesOf(p: QueueProfile | null): Record<string, string> {
  return p ? Object.fromEntries(FIELDS.map(([name]) => [name, String(p[name])])) : EMPTY;
}

/** Creates a profile, or saves the one being edited. */
function ProfileForm({ editing, onSaved, onCancel }: { editing: QueueProfile | null; onSaved: () => void; onCancel: () => void }) {
  const [values, setValues] = useState<Record<string, string>>(() => valuesOf(editing));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const F = 'qp-new';
  // Keyed by the profile edited (ProfileScreen): a new one starts a fresh form. The focus moves
  // as the form is drawn, never after: typing that has begun cannot be sent to another field.
  useLayoutEffect(() => {
    if (editing) document.getElementById(`${F}-name`)?.focus();
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setMessage(null);
    try {
      if (editing) await call('PUT', `/queue-profiles/${editing.id}`, { json: values });
      else await call('POST', '/queue-profiles', { json: values });
      announce(`Queue profile ${values.name} saved`);
      setValues(EMPTY);
      onSaved();
    } catch (err) {
      const f = formErrors(err);
      setErrors(f.errors);
      setMessage(formSummary(f, (k) => FIELDS.some(([name]) => name === k)));
    }
  }

  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="qp-new-title">
      <h2 id="qp-new-title">{editing ? `Edit queue profile ${editing.name}` : 'New queue profile'}</h2>
      {FIELDS.map(([name, label, kind]) => (
        <div class="field" key={name}>
          <label for={`${F}-${name}`}>{label}</label>
          {kind === 'number' ? (
            <input
              id={`${F}-${name}`}
              type="number"
              min={0}
              value={values[name]}
              aria-invalid={errors[name] ? true : undefined}
              aria-describedby={errors[name] ? fieldErrorId(F, name) : undefined}
              onInput={(e) => setValues({ ...values, [name]: (e.currentTarget as HTMLInputElement).value })}
            />
          ) : (
            <input
              id={`${F}-${name}`}
              type="text"
              value={values[name]}
              aria-invalid={errors[name] ? true : undefined}
              aria-describedby={errors[name] ? fieldErrorId(F, name) : undefined}
              onInput={(e) => setValues({ ...values, [name]: (e.currentTarget as HTMLInputElement).value })}
            />
          )}
          <FieldError form={F} field={name} errors={errors} />
        </div>
      ))}
      <div class="row-actions">
        <button class="btn primary" type="submit">
          {editing ? 'Save queue profile' : 'Create queue profile'}
        </button>
        {editing && (
          <button class="btn" type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {message && <InlineError error={message} />}
    </form>
  );
}
