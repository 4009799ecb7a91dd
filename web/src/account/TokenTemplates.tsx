// Templates on a token's Actions tab: save the token's chain as a template, and use one, either
// included by a `template` action (it runs the template as it is when the request comes) or copied
// into the chain action by action. Templates belong to users, so this needs a user's API key.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, enc, type Page, type Token } from '../api';
import { href } from '../route';
import { announce } from '../ui';
import { formErrors, useSession, type Template, type TemplateAction } from './api';
import { InlineError, SignInButton, useLoad } from './common';
import { actionLabel } from './Templates';
import './account.css';

/** `actions.2.parameters.url: must be…` as "Action 3 (http_request): parameters.url must be…". */
export function inWords(message: string, actions: Array<{ type: string; name: string | null }>): string {
  return message.replace(/^actions\.(\d+)\.?([^:]*):\s*/, (_m, i: string, rest: string) => {
    const a = actions[Number(i)];
    return `Action ${Number(i) + 1}${a ? ` (${actionLabel(a)})` : ''}: ${rest ? `${rest} ` : ''}`;
  });
}

/**
 * The chain's editor with the templates panel under it. Using a template changes the chain on the
 * server, so the editor is opened anew (`revision`) instead of keeping a stale copy to save over it.
 */
export function ChainWithTemplates({ token, editor }: { token: Token; editor: (revision: number) => ComponentChildren }) {
  const [revision, setRevision] = useState(0);
  return (
    <>
      {editor(revision)}
      <TokenTemplates token={token} onChainChanged={() => setRevision((n) => n + 1)} />
    </>
  );
}

export function TokenTemplates({ token, onChainChanged }: { token: Token; onChainChanged: () => void }) {
  const session = useSession();
  if (session.state === 'checking') return null;
  const user = session.state === 'signed-in' && !session.me.admin ? session.me : null;
  return (
    <section class="panel acct-token-templates" aria-labelledby="token-tpl-title">
      <h2 id="token-tpl-title">Templates</h2>
      {!user ? (
        <>
          <p class="hint">Templates are reusable action lists that belong to a user. Sign in with a user's API key to save this chain as one or to use one here.</p>
          {session.state !== 'signed-in' && <SignInButton />}
        </>
      ) : (
        <TemplateTools token={token} canInclude={token.user_id === user.id} onChainChanged={onChainChanged} />
      )}
    </section>
  );
}

function TemplateTools({ token, canInclude, onChainChanged }: { token: Token; canInclude: boolean; onChainChanged: () => void }) {
  const templates = useLoad(() => call<Page<Template>>('GET', '/templates?per_page=100'), []);
  const [name, setName] = useState('');
  const [saveMsg, setSaveMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [chosen, setChosen] = useState('');
  const [useMsg, setUseMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const list = templates.data?.data ?? [];
  const picked = list.find((t) => String(t.id) === (chosen || String(list[0]?.id ?? '')));

  async function save(e: Event) {
    e.preventDefault();
    setSaveMsg(null);
    setBusy(true);
    let actions: TemplateAction[] = [];
    try {
      actions = (await call<{ data: TemplateAction[] }>('GET', `/token/${enc(token.uuid)}/actions`, { token: token.uuid })).data;
      if (actions.length === 0) throw new Error('This chain has no actions yet: add some above, save, then save it as a template.');
      const t = await call<Template>('POST', '/templates', {
        token: token.uuid,
        json: {
          name: name.trim() || `Actions of ${token.alias ?? token.uuid.slice(0, 8)}`,
          actions: actions.map((a) => ({ uuid: a.uuid, type: a.type, name: a.name, parameters: a.parameters, disabled: a.disabled ?? false, condition: a.condition, condition_action: a.condition_action })),
          // Secrets come back as a marker; this lets the server keep the token's stored ones.
          from_token: token.uuid,
        },
      });
      setSaveMsg({ ok: true, text: `Saved as template “${t.name}” with ${t.actions.length} ${t.actions.length === 1 ? 'action' : 'actions'}.` });
      setName('');
      announce('Template saved');
      templates.reload();
    } catch (err) {
      const f = formErrors(err);
      setSaveMsg({ ok: false, text: inWords(f.errors.name ? `Name: ${f.errors.name.join(' ')}` : f.message, actions) });
    } finally {
      setBusy(false);
    }
  }

  async function include() {
    if (!picked) return;
    setUseMsg(null);
    setBusy(true);
    try {
      await call('POST', `/token/${enc(token.uuid)}/actions`, { json: { type: 'template', name: picked.name, parameters: { template_id: picked.id } }, token: token.uuid });
      setUseMsg({ ok: true, text: `Added an action that includes “${picked.name}” at the end of the chain.` });
      announce('Template included');
      onChainChanged();
    } catch (err) {
      setUseMsg({ ok: false, text: formErrors(err).message });
    } finally {
      setBusy(false);
    }
  }

  /** Each of the template's actions appended to the chain; conditions follow the copies. */
  async function copy() {
    if (!picked) return;
    setUseMsg(null);
    setBusy(true);
    const ids = new Map<string, string>();
    let done = 0;
    try {
      for (const a of picked.actions) {
        const made = await call<{ uuid: string }>('POST', `/token/${enc(token.uuid)}/actions`, {
          token: token.uuid,
          json: {
            type: a.type,
            name: a.name,
            parameters: a.parameters,
            disabled: a.disabled ?? false,
            condition: a.condition ? (ids.get(a.condition) ?? null) : null,
            condition_action: a.condition ? a.condition_action : null,
          },
        });
        ids.set(a.uuid, made.uuid);
        done++;
      }
      setUseMsg({ ok: true, text: `Copied ${done} ${done === 1 ? 'action' : 'actions'} of “${picked.name}” to the end of the chain.` });
      announce('Template copied');
    } catch (err) {
      const a = picked.actions[done];
      const why = formErrors(err).message;
      setUseMsg({ ok: false, text: `Copied ${done} of ${picked.actions.length}; action ${done + 1}${a ? ` (${actionLabel(a)})` : ''} was refused: ${why}` });
    } finally {
      setBusy(false);
      if (done > 0) onChainChanged();
    }
  }

  return (
    <div class="acct-two">
      <form onSubmit={save} aria-labelledby="tpl-save-title" noValidate>
        <h3 id="tpl-save-title">Save this chain as a template</h3>
        <label for="tpl-save-name">Template name</label>
        <div class="copy-row">
          <input id="tpl-save-name" type="text" placeholder={`Actions of ${token.alias ?? token.uuid.slice(0, 8)}`} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          <button class="btn" type="submit" disabled={busy}>
            Save as template
          </button>
        </div>
        {saveMsg && (
          <p class={saveMsg.ok ? 'ok-text' : 'field-error'} role={saveMsg.ok ? 'status' : 'alert'}>
            {saveMsg.text}
          </p>
        )}
      </form>
      <div role="group" aria-labelledby="tpl-use-title">
        <h3 id="tpl-use-title">Use a template</h3>
        <InlineError error={templates.error?.message ?? null} />
        {templates.data && list.length === 0 && <p class="hint">You have no templates yet.</p>}
        {list.length > 0 && (
          <>
            <label for="tpl-use">Template</label>
            <select id="tpl-use" value={picked ? String(picked.id) : ''} onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}>
              {list.map((t) => (
                <option key={t.id} value={String(t.id)}>
                  {t.name} ({t.actions.length} {t.actions.length === 1 ? 'action' : 'actions'})
                </option>
              ))}
            </select>
            <div class="form-actions">
              <button class="btn" type="button" disabled={busy || !canInclude} onClick={include} aria-describedby="tpl-use-hint">
                Include in this chain
              </button>
              <button class="btn" type="button" disabled={busy} onClick={copy}>
                Copy its actions here
              </button>
            </div>
            <p class="hint small" id="tpl-use-hint">
              {canInclude
                ? 'Included, the chain runs the template as it is when a request comes; copied, its actions become this chain’s own.'
                : 'Only a token of yours can include a template (it runs with your account); copying works on any token you can edit.'}{' '}
              <a href={href({ view: 'account', section: 'templates' })}>All templates</a>
            </p>
          </>
        )}
        {useMsg && (
          <p class={useMsg.ok ? 'ok-text' : 'field-error'} role={useMsg.ok ? 'status' : 'alert'}>
            {useMsg.text}
          </p>
        )}
      </div>
    </div>
  );
}
