// Users, for the administrator: create one (its first key is shown once), list them, open a user's
// keys to create or revoke them (POST/GET /users, /users/{id}/api-keys).
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { call, type FieldErrors } from '../api';
import { formatTime, parseApiTime } from '../format';
import { FieldError, ErrorNotice, Spinner, announce, fieldErrorId } from '../ui';
import { formErrors, type NewApiKey, type User } from './api';
import { Gate, NewKeyNotice, useLoad } from './common';
import { KeyList } from './Keys';

const F = 'user';

function CreateUser({ onCreated }: { onCreated: (u: User, key: NewApiKey) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [premium, setPremium] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setMessage(null);
    try {
      const u = await call<User & { api_key: string; api_key_id: number }>('POST', '/users', { json: { name, email, premium } });
      onCreated(u, { id: u.api_key_id, api_key: u.api_key, owner: u.name });
      setName('');
      setEmail('');
      setPremium(false);
      announce(`User ${u.name} created`);
    } catch (err) {
      const f = formErrors(err);
      setErrors(f.errors);
      setMessage(Object.keys(f.errors).length ? 'Check the fields marked below.' : f.message);
    } finally {
      setBusy(false);
    }
  }

  const invalid = (k: string) => (errors[k] ? true : undefined);
  const described = (k: string) => (errors[k] ? fieldErrorId(F, k) : undefined);
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="newuser-title" noValidate>
      <h2 id="newuser-title">New user</h2>
      <div class="grid">
        <div class="field">
          <label for="user-name">Name</label>
          <input id="user-name" type="text" autocomplete="off" value={name} aria-invalid={invalid('name')} aria-describedby={described('name')} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          <FieldError form={F} field="name" errors={errors} />
        </div>
        <div class="field">
          <label for="user-email">E-mail</label>
          <input id="user-email" type="email" autocomplete="off" value={email} aria-invalid={invalid('email')} aria-describedby={described('email')} onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)} />
          <FieldError form={F} field="email" errors={errors} />
        </div>
      </div>
      <label class="check">
        <input type="checkbox" checked={premium} onChange={(e) => setPremium((e.currentTarget as HTMLInputElement).checked)} /> Premium (aliases, passwords,
        longer limits)
      </label>
      <div class="form-actions">
        <button class="btn primary" type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create user'}
        </button>
        {message && (
          <p class="field-error" role="alert">
            {message}
          </p>
        )}
      </div>
    </form>
  );
}

export function Users() {
  return (
    <Gate title="Users" what="The administrator creates users; each signs in with API keys of their own." needs="admin">
      {() => <UserAdmin />}
    </Gate>
  );
}

function UserAdmin() {
  const { data, error, reload } = useLoad(() => call<{ data: User[] }>('GET', '/users'), []);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  return (
    <>
      <section class="panel" aria-labelledby="users-title">
        <h1 id="users-title">Users</h1>
        <p class="hint">You are the administrator. A new user gets a first API key, shown here once; give it to them.</p>
        {created && <NewKeyNotice created={created} onDone={() => setCreated(null)} />}
        <ErrorNotice error={error} />
        {!data && !error && <Spinner label="Loading users" />}
        {data && data.data.length === 0 && <p class="hint">No users yet: create the first one below.</p>}
        {data && data.data.length > 0 && (
          <div class="table-wrap">
            <table class="acct-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="sr-only">Keys</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((u) => (
                  <Fragment key={u.id}>
                    <tr>
                      <td data-label="Name">
                        {u.name} <span class="hint small">#{u.id}</span>
                      </td>
                      <td data-label="E-mail" class="wrap">
                        {u.email}
                      </td>
                      <td data-label="Plan">{u.premium ? <span class="badge">premium</span> : 'free'}</td>
                      <td data-label="Created">{formatTime(parseApiTime(u.created_at))}</td>
                      <td>
                        <button class="btn small" type="button" aria-expanded={open === u.id} aria-controls={`user-keys-${u.id}`} onClick={() => setOpen(open === u.id ? null : u.id)}>
                          {open === u.id ? 'Hide keys' : `Keys of ${u.name}`}
                        </button>
                      </td>
                    </tr>
                    {open === u.id && (
                      <tr class="acct-subrow">
                        <td colSpan={5} id={`user-keys-${u.id}`}>
                          <KeyList userId={u.id} owner={u.name} headingLevel={3} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateUser
        onCreated={(_u, key) => {
          setCreated(key);
          reload();
        }}
      />
    </>
  );
}
