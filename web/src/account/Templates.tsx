// Templates: a user's reusable action lists (the /templates API). Saved from a token's Actions tab
// and used there (TokenTemplates.tsx); here they are listed, renamed and deleted.
import { useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { formatTime, parseApiTime } from '../format';
import { announce } from '../ui';
import { formErrors, formSummary, type Template } from './api';
import { Gate, InlineError, PageView, useLoad } from './common';

export function Templates() {
  return (
    <Gate title="Templates" what="Templates are reusable lists of actions: save a token's chain as one, then include it in other chains." needs="user">
      {() => <TemplateScreen />}
    </Gate>
  );
}

function TemplateScreen() {
  const list = useLoad(() => call<Page<Template>>('GET', '/templates?per_page=100'), []);
  return (
    <section class="panel" aria-labelledby="tpl-title">
      <h1 id="tpl-title">Templates</h1>
      <p class="hint">
        Save a chain as a template from a token's <strong>Actions</strong> tab, and use one there: included (it runs the template as it is now) or copied into the chain.
      </p>
      <PageView list={list} loading="Loading templates" empty="No templates yet.">
        {(items) => (
          <ul class="acct-cards">
            {items.map((t) => (
              <TemplateItem key={t.id} template={t} onChanged={list.reload} />
            ))}
          </ul>
        )}
      </PageView>
    </section>
  );
}

/** `http_request "notify"` for a list. */
export const actionLabel = (a: { type: string; name: string | null }) => (a.name ? `${a.name} (${a.type})` : a.type);

function TemplateItem({ template: t, onChanged }: { template: Template; onChanged: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(t.name);
  const [error, setError] = useState<string | null>(null);
  const titleId = `tpl-${t.id}-name`;

  async function rename(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      await call('PUT', `/templates/${t.id}`, { json: { name } });
      announce(`Template renamed to ${name}`);
      setRenaming(false);
      onChanged();
    } catch (err) {
      setError(formSummary(formErrors(err), () => false));
    }
  }

  return (
    <li class="acct-card" aria-labelledby={titleId}>
      <div class="section-head">
        <h2 id={titleId} class="acct-card-title">
          {t.name} <span class="hint small">#{t.id}</span>
        </h2>
        <div class="row-actions">
          <button class="btn small" type="button" aria-expanded={renaming} onClick={() => setRenaming(!renaming)} aria-label={`Rename ${t.name}`}>
            {renaming ? 'Cancel' : 'Rename'}
          </button>
          <button
            class="btn small danger"
            type="button"
            aria-label={`Delete ${t.name}`}
            onClick={async () => {
              if (!confirm(`Delete the template ${t.name}? Chains that include it report it missing when they run.`)) return;
              try {
                await call('DELETE', `/templates/${t.id}`);
                announce(`Template ${t.name} deleted`);
                onChanged();
              } catch (e) {
                setError(formErrors(e).message);
              }
            }}
          >
            Delete
          </button>
        </div>
      </div>
      {renaming && (
        <form class="acct-inline-form" onSubmit={rename} aria-label={`Rename ${t.name}`}>
          <label for={`tpl-${t.id}-rename`}>New name</label>
          <div class="copy-row">
            <input id={`tpl-${t.id}-rename`} type="text" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
            <button class="btn primary" type="submit">
              Save
            </button>
          </div>
        </form>
      )}
      <InlineError error={error} />
      <p class="hint small">
        {t.actions.length} {t.actions.length === 1 ? 'action' : 'actions'} · updated {formatTime(parseApiTime(t.updated_at))}
      </p>
      {t.actions.length > 0 && (
        <ol class="acct-steps">
          {t.actions.map((a) => (
            <li key={a.uuid} class={a.disabled ? 'hint' : undefined}>
              <code>{actionLabel(a)}</code>
              {a.disabled && ' (disabled)'}
            </li>
          ))}
        </ol>
      )}
      {t.variables.length > 0 && (
        <p class="small">
          Variables:{' '}
          {t.variables.map((v, i) => (
            <span key={v.name}>
              {i > 0 && ', '}
              <code>
                {v.name}={v.value}
              </code>
            </span>
          ))}
        </p>
      )}
    </li>
  );
}
