// Global variables: values every token of the user can use in actions as `$global.<name>$`.
// List with a server-side search, create, edit in place, delete (the /global-variables API).
import { useEffect, useState } from 'preact/hooks';
import { call, type FieldErrors, type Page } from '../api';
import { formatTime, parseApiTime } from '../format';
import { FieldError, announce, fieldErrorId } from '../ui';
import { formErrors, formSummary, type GlobalVariable } from './api';
import { Gate, InlineError, PageView, useLoad } from './common';

export function Variables() {
  return (
    <Gate title="Global variables" what="Global variables hold values all your tokens' actions can use, written $global.name$." needs="user">
      {() => <VariableScreen />}
    </Gate>
  );
}

function VariableScreen() {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  // Ask the server once typing pauses.
  useEffect(() => {
    const t = setTimeout(() => setQuery(search.trim()), 250);
    return () => clearTimeout(t);
  }, [search]);
  const list = useLoad(() => call<Page<GlobalVariable>>('GET', `/global-variables?per_page=100${query ? `&search=${encodeURIComponent(query)}` : ''}`), [query]);

  return (
    <>
      <section class="panel" aria-labelledby="vars-title">
        <div class="section-head">
          <h1 id="vars-title">Global variables</h1>
          {list.data && (
            <span class="count" aria-live="polite">
              {list.data.total} {query ? 'matching' : list.data.total === 1 ? 'variable' : 'variables'}
            </span>
          )}
        </div>
        <p class="hint">
          Use one in any action parameter as <code>$global.name$</code>. Every token you own sees the same values.
        </p>
        <div class="field acct-search">
          <label for="vars-search">Search by name</label>
          <input id="vars-search" type="search" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <PageView list={list} loading="Loading variables" empty={query ? `No variable name contains “${query}”.` : 'No global variables yet: create one below.'}>
          {(items) => (
            <ul class="acct-list">
              {items.map((v) => (
                <VariableItem key={v.id} variable={v} onChanged={list.reload} />
              ))}
            </ul>
          )}
        </PageView>
      </section>
      <VariableForm onSaved={list.reload} />
    </>
  );
}

function VariableItem({ variable: v, onChanged }: { variable: GlobalVariable; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (editing) {
    return (
      <li class="acct-editing">
        <VariableForm
          variable={v}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      </li>
    );
  }
  return (
    <li>
      <div class="acct-var">
        <code class="acct-var-name">{v.name}</code>
        <code class="acct-var-value">{v.value === '' ? <span class="hint">(empty)</span> : v.value}</code>
        <span class="hint small">updated {formatTime(parseApiTime(v.updated_at))}</span>
      </div>
      <div class="row-actions">
        <button class="btn small" type="button" onClick={() => setEditing(true)} aria-label={`Edit ${v.name}`}>
          Edit
        </button>
        <button
          class="btn small danger"
          type="button"
          aria-label={`Delete ${v.name}`}
          onClick={async () => {
            if (!confirm(`Delete the global variable ${v.name}? Actions that use $global.${v.name}$ get an empty value.`)) return;
            try {
              await call('DELETE', `/global-variables/${v.id}`);
              announce(`${v.name} deleted`);
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

/** Creates a variable, or edits `variable`. */
function VariableForm({ variable, onSaved, onCancel }: { variable?: GlobalVariable; onSaved: () => void; onCancel?: () => void }) {
  const [name, setName] = useState(variable?.name ?? '');
  const [value, setValue] = useState(variable?.value ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const F = variable ? `var-${variable.id}` : 'var-new';

  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setMessage(null);
    try {
      await call(variable ? 'PUT' : 'POST', variable ? `/global-variables/${variable.id}` : '/global-variables', { json: { name, value } });
      announce(`${name} saved`);
      if (!variable) {
        setName('');
        setValue('');
      }
      onSaved();
    } catch (err) {
      const f = formErrors(err);
      setErrors(f.errors);
      setMessage(formSummary(f, (k) => k === 'name' || k === 'value'));
    }
  }

  const inner = (
    <>
      <div class="grid">
        <div class="field">
          <label for={`${F}-name`}>Name</label>
          <input
            id={`${F}-name`}
            class="mono"
            type="text"
            spellcheck={false}
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? fieldErrorId(F, 'name') : undefined}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
          <FieldError form={F} field="name" errors={errors} />
        </div>
      </div>
      <div class="field">
        <label for={`${F}-value`}>Value</label>
        <textarea
          id={`${F}-value`}
          class="mono"
          rows={2}
          spellcheck={false}
          value={value}
          aria-invalid={errors.value ? true : undefined}
          aria-describedby={errors.value ? fieldErrorId(F, 'value') : undefined}
          onInput={(e) => setValue((e.currentTarget as HTMLTextAreaElement).value)}
        />
        <FieldError form={F} field="value" errors={errors} />
      </div>
      <div class="form-actions">
        <button class="btn primary" type="submit">
          {variable ? 'Save variable' : 'Create variable'}
        </button>
        {onCancel && (
          <button class="btn" type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <InlineError error={message} />
      </div>
    </>
  );
  if (variable) {
    return (
      <form onSubmit={submit} noValidate aria-label={`Edit ${variable.name}`}>
        {inner}
      </form>
    );
  }
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="newvar-title">
      <h2 id="newvar-title">New global variable</h2>
      {inner}
    </form>
  );
}
