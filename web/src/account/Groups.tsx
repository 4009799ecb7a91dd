// Groups: named folders for a user's tokens (the /groups API). A token joins one from its settings
// (TokenGroup.tsx); deleting a group leaves its tokens without one.
import { useState } from 'preact/hooks';
import { call, type FieldErrors, type Page } from '../api';
import { formatTime, parseApiTime } from '../format';
import { FieldError, announce, fieldErrorId } from '../ui';
import { formErrors, formSummary, type Group } from './api';
import { Gate, InlineError, PageView, useLoad } from './common';

export function Groups() {
  return (
    <Gate title="Groups" what="Groups sort your tokens into folders; a token joins one from its Settings tab." needs="user">
      {() => <GroupScreen />}
    </Gate>
  );
}

function GroupScreen() {
  const list = useLoad(() => call<Page<Group>>('GET', '/groups?per_page=100'), []);
  return (
    <>
      <section class="panel" aria-labelledby="groups-title">
        <h1 id="groups-title">Groups</h1>
        <p class="hint">A token joins a group from its Settings tab. Deleting a group keeps its tokens; they just leave the group.</p>
        <PageView list={list} loading="Loading groups" empty="No groups yet.">
          {(items) => (
            <ul class="acct-list">
              {items.map((g) => (
                <GroupItem key={g.id} group={g} onChanged={list.reload} />
              ))}
            </ul>
          )}
        </PageView>
      </section>
      <GroupForm onSaved={list.reload} />
    </>
  );
}

function GroupItem({ group: g, onChanged }: { group: Group; onChanged: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (renaming) {
    return (
      <li class="acct-editing">
        <GroupForm
          group={g}
          onSaved={() => {
            setRenaming(false);
            onChanged();
          }}
          onCancel={() => setRenaming(false)}
        />
      </li>
    );
  }
  return (
    <li>
      <span>
        <strong>{g.name}</strong>{' '}
        <span class="hint small">
          #{g.id} · created {formatTime(parseApiTime(g.created_at))}
        </span>
      </span>
      <div class="row-actions">
        <button class="btn small" type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${g.name}`}>
          Rename
        </button>
        <button
          class="btn small danger"
          type="button"
          aria-label={`Delete ${g.name}`}
          onClick={async () => {
            if (!confirm(`Delete the group ${g.name}? Its tokens stay, outside any group.`)) return;
            try {
              await call('DELETE', `/groups/${g.id}`);
              announce(`Group ${g.name} deleted`);
              onChanged();
            } catch (e) {
              setError(formErrors(e).message);
            }
          }}
        >
          Delete
        </button>
      </div>
      <InlineError error={error} />
    </li>
  );
}

function GroupForm({ group, onSaved, onCancel }: { group?: Group; onSaved: () => void; onCancel?: () => void }) {
  const [name, setName] = useState(group?.name ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const F = group ? `group-${group.id}` : 'group-new';

  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setMessage(null);
    try {
      await call(group ? 'PUT' : 'POST', group ? `/groups/${group.id}` : '/groups', { json: { name } });
      announce(`Group ${name} saved`);
      if (!group) setName('');
      onSaved();
    } catch (err) {
      const f = formErrors(err);
      setErrors(f.errors);
      setMessage(formSummary(f, (k) => k === 'name'));
    }
  }

  return (
    <form class={group ? 'acct-inline-form' : 'panel'} onSubmit={submit} noValidate aria-labelledby={group ? undefined : 'newgroup-title'} aria-label={group ? `Rename ${group.name}` : undefined}>
      {!group && <h2 id="newgroup-title">New group</h2>}
      <div class="field">
        <label for={`${F}-name`}>{group ? 'New name' : 'Name'}</label>
        <div class="copy-row">
          <input
            id={`${F}-name`}
            type="text"
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? fieldErrorId(F, 'name') : undefined}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
          <button class="btn primary" type="submit">
            {group ? 'Save' : 'Create group'}
          </button>
          {onCancel && (
            <button class="btn" type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
        <FieldError form={F} field="name" errors={errors} />
      </div>
      {message && !errors.name && <InlineError error={message} />}
    </form>
  );
}
