// Team members, for Administrators (and the administrator key, who sees every team): invite someone
// by e-mail (the answer carries the one-time link when no relay is configured), change a member's
// user type, limit a member to chosen groups (their tokens and schedules) or lift the limit, remove a
// member (their tokens and schedules to the team or deleted), and page through the list (POST /users/invite,
// GET/PUT/DELETE /users). The administrator key also creates users in new
// teams of their own, with a first key shown once, and manages any user's keys.
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { call, type FieldErrors, type Page } from '../api';
import { formatDateTime, parseApiTime } from '../format';
import { CopyField, FieldError, announce, fieldErrorId, Pager, TableHead } from '../ui';
import { USER_TYPE_NAMES, formErrors, managesUsers, type Group, type Me, type NewApiKey, type User, type UserTypeId } from './api';
import { Gate, InlineError, NewKeyNotice, PageView, useLoad } from './common';
import { KeyList } from './Keys';

const TYPES = [100, 200, 300] as const;
const TYPE_HELP: Record<UserTypeId, string> = {
  100: 'manages the team’s users, and everything a Member does',
  200: 'creates and edits their own and the team’s tokens and schedules',
  300: 'reads the team’s tokens, requests and schedules',
};

function useForm() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function run(f: () => Promise<void>) {
    setBusy(true);
    setErrors({});
    setMessage(null);
    try {
      await f();
    } catch (err) {
      const e = formErrors(err);
      setErrors(e.errors);
      setMessage(Object.keys(e.errors).length ? 'Check the fields marked below.' : e.message);
    } finally {
      setBusy(false);
    }
  }
  return { errors, message, busy, run };
}

function Field(props: { form: string; id: string; field: string; label: string; type: 'text' | 'email'; value: string; onInput: (v: string) => void; errors: FieldErrors }) {
  const bad = props.errors[props.field] ? true : undefined;
  const attrs = {
    id: props.id,
    autocomplete: 'off',
    value: props.value,
    'aria-invalid': bad,
    'aria-describedby': bad ? fieldErrorId(props.form, props.field) : undefined,
    onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.type === 'email' ? <input type="email" {...attrs} /> : <input type="text" {...attrs} />}
      <FieldError form={props.form} field={props.field} errors={props.errors} />
    </div>
  );
}

/** A form's submit button and, after a refusal, what the server said. */
function SubmitRow({ busy, label, busyLabel, message }: { busy: boolean; label: string; busyLabel: string; message: string | null }) {
  return (
    <div class="form-actions">
      <button class="btn primary" type="submit" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
      {message && (
        <p class="field-error" role="alert">
          {message}
        </p>
      )}
    </div>
  );
}

type Invited = User & { invite_sent: boolean; invite_url?: string };

function InviteUser({ onInvited }: { onInvited: (u: Invited) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [type, setType] = useState<UserTypeId>(200);
  const f = useForm();
  const F = 'invite';

  const submit = (e: Event) => {
    e.preventDefault();
    void f.run(async () => {
      const u = await call<Invited>('POST', '/users/invite', { json: { name, email, user_type_id: type } });
      onInvited(u);
      setName('');
      setEmail('');
      announce(u.invite_sent ? `Invite e-mailed to ${u.email}` : `${u.name} invited: pass on the invite link`);
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="invite-title" noValidate>
      <h2 id="invite-title">Invite someone</h2>
      <p class="hint">They get a link that works once, for 7 days, to set up their API key.</p>
      <div class="grid">
        <Field form={F} id="invite-name" field="name" label="Name" type="text" value={name} onInput={setName} errors={f.errors} />
        <Field form={F} id="invite-email" field="email" label="E-mail" type="email" value={email} onInput={setEmail} errors={f.errors} />
      </div>
      <fieldset class="field">
        <legend>User type</legend>
        {TYPES.map((t) => (
          <label class="check" key={t}>
            <input type="radio" name="invite-type" value={t} checked={type === t} onChange={() => setType(t)} /> {USER_TYPE_NAMES[t]} <span class="hint small">({TYPE_HELP[t]})</span>
          </label>
        ))}
        <FieldError form={F} field="user_type_id" errors={f.errors} />
      </fieldset>
      <SubmitRow busy={f.busy} label="Send invite" busyLabel="Inviting…" message={f.message} />
    </form>
  );
}

function InviteNotice({ invited, onDone }: { invited: Invited; onDone: () => void }) {
  return (
    <div class="notice" role="status">
      {invited.invite_sent ? (
        <p>
          Invite e-mailed to <strong>{invited.email}</strong>.
        </p>
      ) : (
        <>
          <p>
            No mail relay is configured (<code>SMTP_RELAY_URL</code>), so nothing was e-mailed: give <strong>{invited.name}</strong> this link. It works once.
          </p>
          <CopyField id="invite-link" label="Invite link" value={invited.invite_url ?? ''} />
        </>
      )}
      <div class="form-actions">
        <button class="btn" type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function CreateUser({ onCreated }: { onCreated: (key: NewApiKey) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [premium, setPremium] = useState(false);
  const f = useForm();
  const F = 'user';

  const submit = (e: Event) => {
    e.preventDefault();
    void f.run(async () => {
      const u = await call<User & { api_key: string; api_key_id: number }>('POST', '/users', { json: { name, email, premium } });
      onCreated({ id: u.api_key_id, api_key: u.api_key, owner: u.name });
      setName('');
      setEmail('');
      setPremium(false);
      announce(`User ${u.name} created`);
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="newuser-title" noValidate>
      <h2 id="newuser-title">New user in a team of their own</h2>
      <div class="grid">
        <Field form={F} id="user-name" field="name" label="Name" type="text" value={name} onInput={setName} errors={f.errors} />
        <Field form={F} id="user-email" field="email" label="E-mail" type="email" value={email} onInput={setEmail} errors={f.errors} />
      </div>
      <label class="check">
        <input type="checkbox" checked={premium} onChange={(e) => setPremium((e.currentTarget as HTMLInputElement).checked)} /> Premium (aliases, passwords, longer limits)
      </label>
      <SubmitRow busy={f.busy} label="Create user" busyLabel="Creating…" message={f.message} />
    </form>
  );
}

/** The groups a user is limited to, by name where the Administrator knows the group. */
function groupNames(ids: number[], groups: Group[] | null): string {
  return ids.map((id) => groups?.find((g) => g.id === id)?.name ?? `#${id}`).join(', ');
}

/** Picks the groups a member is limited to (PUT /users/{id} group_ids), or lifts the limit (null). */
function MemberGroups({ u, groups, onChanged }: { u: User; groups: Group[]; onChanged: () => void }) {
  const [chosen, setChosen] = useState<number[]>(u.group_ids ?? []);
  const f = useForm();
  const legendId = `member-groups-${u.id}`;
  const save = (group_ids: number[] | null) =>
    void f.run(async () => {
      await call('PUT', `/users/${u.id}`, { json: { group_ids } });
      announce(group_ids ? `${u.name} is limited to ${groupNames(group_ids, groups)}` : `${u.name} may open every group`);
      onChanged();
    });
  const toggle = (id: number, on: boolean) => setChosen(on ? [...chosen, id] : chosen.filter((x) => x !== id));
  // Groups set earlier that this Administrator did not make (another member's) stay choosable.
  const shown = [...groups, ...chosen.filter((id) => !groups.some((g) => g.id === id)).map((id) => ({ id, name: `Group #${id}` }))];
  return (
    <fieldset class="acct-groups" aria-describedby={f.errors.group_ids ? fieldErrorId('member-groups', 'group_ids') : undefined}>
      <legend id={legendId}>Groups {u.name} may open</legend>
      <p class="hint small">Limited to groups, {u.name} sees only the tokens and schedules in them, and makes new ones only there.</p>
      {shown.length === 0 && <p class="hint">You have no groups yet: make them under Groups.</p>}
      <div class="acct-group-choices">
        {shown.map((g) => (
          <label class="check" key={g.id}>
            <input type="checkbox" checked={chosen.includes(g.id)} onChange={(e) => toggle(g.id, (e.currentTarget as HTMLInputElement).checked)} /> {g.name}
          </label>
        ))}
      </div>
      <FieldError form="member-groups" field="group_ids" errors={f.errors} />
      <div class="form-actions">
        <button class="btn primary small" type="button" disabled={f.busy || chosen.length === 0} onClick={() => save([...chosen].sort((a, b) => a - b))}>
          Limit to the chosen groups
        </button>
        {u.group_ids && (
          <button class="btn small" type="button" disabled={f.busy} onClick={() => save(null)}>
            Lift the limit
          </button>
        )}
        {f.message && (
          <p class="field-error" role="alert">
            {f.message}
          </p>
        )}
      </div>
    </fieldset>
  );
}

/** One member's row: their type (changeable), their groups, and removal with a choice for their tokens and schedules. */
function MemberRow({ u, me, groups, onChanged, keysOpen, onToggleKeys }: { u: User; me: Me; groups: Group[] | null; onChanged: () => void; keysOpen: boolean; onToggleKeys: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  const [editingGroups, setEditingGroups] = useState(false);
  const [tokens, setTokens] = useState<'team' | 'delete'>('team');
  const self = me.id === u.id;
  const errId = `member-error-${u.id}`;

  async function setType(t: UserTypeId) {
    setError(null);
    try {
      await call('PUT', `/users/${u.id}`, { json: { user_type_id: t } });
      announce(`${u.name} is now ${USER_TYPE_NAMES[t]}`);
      onChanged();
    } catch (e) {
      setError(formErrors(e).message);
    }
  }
  async function remove() {
    setError(null);
    try {
      await call('DELETE', `/users/${u.id}?tokens=${tokens}`);
      announce(`${u.name} removed`);
      onChanged();
    } catch (e) {
      setError(formErrors(e).message);
    }
  }

  return (
    <>
      <tr>
        <td data-label="Name">
          {u.name} <span class="hint small">#{u.id}</span>
          {self && <span class="badge">you</span>}
        </td>
        <td data-label="E-mail" class="wrap">
          {u.email}
        </td>
        <td data-label="User type">
          <select
            aria-label={`User type of ${u.name}`}
            value={u.user_type_id}
            aria-describedby={error ? errId : undefined}
            onChange={(e) => void setType(Number((e.currentTarget as HTMLSelectElement).value) as UserTypeId)}
          >
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {USER_TYPE_NAMES[t]}
              </option>
            ))}
          </select>
        </td>
        {me.admin && <td data-label="Team">#{u.team_id}</td>}
        <td data-label="Groups">{u.group_ids ? <span>Only {u.group_ids.length ? groupNames(u.group_ids, groups) : 'no group'}</span> : <span class="hint">All groups</span>}</td>
        <td data-label="Status">{u.invite_pending ? <span class="badge">invited</span> : formatDateTime(parseApiTime(u.created_at))}</td>
        <td>
          {me.admin && (
            <button class="btn small" type="button" aria-expanded={keysOpen} aria-controls={`user-keys-${u.id}`} onClick={onToggleKeys}>
              {keysOpen ? 'Hide keys' : `Keys of ${u.name}`}
            </button>
          )}{' '}
          {!self && groups && (
            <button class="btn small" type="button" aria-expanded={editingGroups} aria-controls={`member-groups-row-${u.id}`} onClick={() => setEditingGroups(!editingGroups)}>
              {editingGroups ? 'Close groups' : `Groups of ${u.name}`}
            </button>
          )}{' '}
          {!self && (
            <button class="btn small" type="button" aria-expanded={removing} onClick={() => setRemoving(!removing)}>
              {removing ? 'Keep' : `Remove ${u.name}`}
            </button>
          )}
          <InlineError id={errId} error={error} />
        </td>
      </tr>
      {editingGroups && groups && (
        <tr class="acct-subrow">
          <td colSpan={me.admin ? 7 : 6} id={`member-groups-row-${u.id}`}>
            <MemberGroups
              u={u}
              groups={groups}
              onChanged={() => {
                setEditingGroups(false);
                onChanged();
              }}
            />
          </td>
        </tr>
      )}
      {removing && (
        <tr class="acct-subrow">
          <td colSpan={me.admin ? 7 : 6}>
            <fieldset>
              <legend>Remove {u.name}: their tokens and schedules…</legend>
              <label class="check">
                <input type="radio" name={`tokens-${u.id}`} checked={tokens === 'team'} onChange={() => setTokens('team')} /> go to the team ({me.admin ? 'an Administrator of it' : 'you'})
              </label>
              <label class="check">
                <input type="radio" name={`tokens-${u.id}`} checked={tokens === 'delete'} onChange={() => setTokens('delete')} /> are deleted (the tokens with their requests)
              </label>
            </fieldset>
            <button class="btn danger small" type="button" onClick={() => void remove()}>
              Remove {u.name} now
            </button>
          </td>
        </tr>
      )}
      {keysOpen && (
        <tr class="acct-subrow">
          <td colSpan={me.admin ? 7 : 6} id={`user-keys-${u.id}`}>
            <KeyList userId={u.id} owner={u.name} headingLevel={3} />
          </td>
        </tr>
      )}
    </>
  );
}

export function Users() {
  return (
    <Gate title="Team members" what="Administrators invite people into their team and choose what each may do." needs="any">
      {(me) =>
        managesUsers(me) ? (
          <TeamAdmin me={me} />
        ) : (
          <section class="panel acct-gate" aria-labelledby="gate-title">
            <h1 id="gate-title">Team members</h1>
            <p>
              <strong>Administrators only.</strong> You are a {me.user_type ?? 'member'} of team #{me.team_id}; an Administrator of your team manages its users.
            </p>
          </section>
        )
      }
    </Gate>
  );
}

function TeamAdmin({ me }: { me: Me }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => call<Page<User>>('GET', `/users?page=${page}`), [page]);
  // The Administrator's groups, to limit members to (the administrator key has none: no choice then).
  const groups = useLoad(() => (me.admin ? Promise.resolve(null) : call<Page<Group>>('GET', '/groups?per_page=100').then((p) => p.data)), []);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [invited, setInvited] = useState<Invited | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const data = list.data;

  return (
    <>
      <section class="panel" aria-labelledby="users-title">
        <h1 id="users-title">Team members</h1>
        <p class="hint">
          {me.admin
            ? 'You are the administrator: every team’s users are listed.'
            : `Your team (#${me.team_id}). Viewers read the team’s tokens and schedules; Members also create and edit them; Administrators also manage users and limit members to groups.`}
        </p>
        {created && <NewKeyNotice created={created} onDone={() => setCreated(null)} />}
        {invited && <InviteNotice invited={invited} onDone={() => setInvited(null)} />}
        <PageView list={list} loading="Loading team members" empty="No users yet: invite the first one below.">
          {(users) => (
            <div class="table-wrap">
              <table class="acct-table cards-on-phone">
                <TableHead columns={['Name', 'E-mail', 'User type', me.admin && 'Team', 'Groups', 'Joined']} hidden="Actions" />
                <tbody>
                  {users.map((u) => (
                    <Fragment key={u.id}>
                      <MemberRow u={u} me={me} groups={groups.data} onChanged={list.reload} keysOpen={open === u.id} onToggleKeys={() => setOpen(open === u.id ? null : u.id)} />
                    </Fragment>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </PageView>
        {data && data.last_page > 1 && (
          <Pager page={page} last={data.last_page} onPage={setPage} label="Pages of team members" labels={['Previous page', 'Next page']} class="form-actions">
            Page {data.current_page} of {data.last_page} ({data.total} users)
          </Pager>
        )}
      </section>
      {/* The administrator key starts new teams here (its invites, with team_id, go through the API). */}
      {!me.admin && (
        <InviteUser
          onInvited={(u) => {
            setInvited(u);
            list.reload();
          }}
        />
      )}
      {me.admin && (
        <CreateUser
          onCreated={(key) => {
            setCreated(key);
            list.reload();
          }}
        />
      )}
    </>
  );
}
