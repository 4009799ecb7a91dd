// One generated form field per parameter of an action type (see schema.ts for which control a
// parameter gets). Errors arrive keyed by parameter path (`status`, `conditions.0.operator`).
import { useEffect, useState } from 'preact/hooks';
import { InlineMarkdown } from '../inline-markdown';
import { VariableInput } from './VariableInput';
import { useDatabaseTables, useHostedDatabases } from './databases';
import { sqlSuggestions } from './sql-words';
import { SECRET_MARKER, explain, fits, type FieldSpec } from './schema';
import type { Provider } from './api';
import type { Suggestion } from './variables';

export interface FieldContext {
  /** Prefix of element IDs, unique per step. */
  idBase: string;
  errors: Record<string, string[]>;
  variables: () => Suggestion[];
  providers: Provider[] | null;
}

/** The element ID of the control of the parameter at `path`. */
export const fieldId = (idBase: string, path: string) => `${idBase}-p-${path.replace(/[^\w-]/g, '-')}`;

type Obj = Record<string, unknown>;

function without(obj: Obj, key: string, value: unknown): Obj {
  const next = { ...obj };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next;
}

export function ParamFields({ fields, value, onChange, ctx, path = '' }: { fields: FieldSpec[]; value: Obj; onChange: (v: Obj) => void; ctx: FieldContext; path?: string }) {
  // A form with a hosted database picker (the Database action): its statement completes that database's names.
  const database = fields.some((f) => f.kind === 'database') && typeof value.database_id === 'string' ? value.database_id : undefined;
  return (
    <>
      {fields.map((f) => (
        <Field
          key={f.name}
          field={f}
          value={value[f.name]}
          onChange={(v) => onChange(without(value, f.name, v))}
          ctx={ctx}
          path={path ? `${path}.${f.name}` : f.name}
          sqlDatabase={f.name === 'statement' ? database : undefined}
        />
      ))}
    </>
  );
}

function Messages({ id, field, msgs }: { id: string; field: FieldSpec; msgs: string[] | undefined }) {
  if (!msgs?.length) return null;
  return (
    <p class="field-error" id={id}>
      {msgs.map((m) => `${field.label}: ${explain(field, m)}`).join(' ')}
    </p>
  );
}

function Field({ field, value, onChange, ctx, path, sqlDatabase }: { field: FieldSpec; value: unknown; onChange: (v: unknown) => void; ctx: FieldContext; path: string; sqlDatabase?: string }) {
  const id = fieldId(ctx.idBase, path);
  const sqlTables = useDatabaseTables(sqlDatabase);
  const msgs = ctx.errors[path];
  const helpId = field.help ? `${id}-help` : undefined;
  const errId = msgs?.length ? `${id}-error` : undefined;
  const describedBy = [errId, helpId].filter(Boolean).join(' ') || undefined;
  const kind = fits(field, value) ? field.kind : 'json';
  const label = (
    <label for={id}>
      {field.label}
      {field.required && (
        <span class="ae-req" title="required">
          {' '}
          (required)
        </span>
      )}
    </label>
  );
  const help = field.help && (
    <p class="hint small ae-help" id={helpId}>
      <InlineMarkdown text={field.help} />
    </p>
  );
  const common = { id, 'aria-invalid': msgs?.length ? ('true' as const) : undefined, 'aria-describedby': describedBy };

  if (kind === 'toggle') {
    const on = value === true || value === 'true';
    return (
      <div class="field ae-field ae-toggle-field">
        <label class="ae-switch" for={id}>
          <input {...common} type="checkbox" role="switch" checked={on} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />
          <span class="ae-switch-track" aria-hidden="true" />
          <span>{field.label}</span>
        </label>
        {help}
        <Messages id={`${id}-error`} field={field} msgs={msgs} />
      </div>
    );
  }

  // An optional group of settings (HTTP auth, retry, random…) starts folded unless it holds something.
  if (kind === 'object' && !field.required) {
    const set = value !== undefined && value !== null && Object.keys(value as Obj).length > 0;
    return (
      <details class="ae-group ae-fold" open={set || !!msgs?.length || Object.keys(ctx.errors).some((k) => k.startsWith(`${path}.`))}>
        <summary>
          {field.label}
          {set ? '' : <span class="hint small"> (not set)</span>}
        </summary>
        {help}
        <Messages id={`${id}-error`} field={field} msgs={msgs} />
        <ParamFields fields={field.fields!} value={(value as Obj | undefined) ?? {}} onChange={(v) => onChange(Object.keys(v).length ? v : undefined)} ctx={ctx} path={path} />
      </details>
    );
  }

  if (kind === 'object' || kind === 'list') {
    return (
      <fieldset class="ae-group" aria-describedby={describedBy}>
        <legend>{field.label}</legend>
        {help}
        <Messages id={`${id}-error`} field={field} msgs={msgs} />
        {kind === 'object' ? (
          <ParamFields fields={field.fields!} value={(value as Obj | undefined) ?? {}} onChange={(v) => onChange(Object.keys(v).length ? v : undefined)} ctx={ctx} path={path} />
        ) : (
          <ListField field={field} value={(value as Obj[] | undefined) ?? []} onChange={onChange} ctx={ctx} path={path} />
        )}
      </fieldset>
    );
  }

  let control;
  switch (kind) {
    case 'select':
      control = (
        <select {...common} value={value === undefined || value === null ? '' : String(value)} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value || undefined)}>
          <option value="">{field.required ? 'Choose…' : '(default)'}</option>
          {field.options!.map((o) => (
            <option key={o} value={o}>
              {field.optionLabels?.[o] ?? o}
            </option>
          ))}
        </select>
      );
      if (field.optionHelp) {
        const shown = field.options!.filter((o) => field.optionHelp![o]);
        control = (
          <>
            {control}
            <ul class="hint small ae-option-help" id={`${id}-options`}>
              {shown.map((o) => (
                <li key={o} class={String(value) === o ? 'chosen' : undefined}>
                  <strong>{field.optionLabels?.[o] ?? o}</strong>: {field.optionHelp![o]}
                </li>
              ))}
            </ul>
          </>
        );
      }
      break;
    case 'number':
      control = (
        <input
          {...common}
          type="number"
          min={field.min}
          max={field.max}
          step={field.integer ? 1 : 'any'}
          value={value === undefined || value === null ? '' : String(value)}
          onInput={(e) => {
            const t = (e.currentTarget as HTMLInputElement).value;
            onChange(t === '' ? undefined : Number(t));
          }}
        />
      );
      break;
    case 'provider':
      control = <ProviderSelect common={common} value={value} onChange={onChange} providers={ctx.providers} required={field.required} />;
      break;
    case 'database':
      control = <DatabaseSelect common={common} value={value} onChange={onChange} />;
      break;
    case 'json':
      control = <JsonField common={common} value={value} onChange={onChange} />;
      break;
    default:
      control = (
        <VariableInput
          id={id}
          value={value === undefined || value === null ? '' : String(value)}
          onValue={(v) => onChange(v)}
          variables={ctx.variables}
          multiline={kind === 'textarea'}
          password={kind === 'secret'}
          invalid={!!msgs?.length}
          describedBy={describedBy}
          required={field.required}
          placeholder={kind === 'secret' && value === SECRET_MARKER ? 'stored' : field.placeholder}
          words={sqlTables.length ? (typed, qualifier) => sqlSuggestions(sqlTables, typed, qualifier) : undefined}
          wordsLabel="Tables and columns"
        />
      );
  }
  return (
    <div class={`field ae-field${kind === 'textarea' || kind === 'json' ? ' wide' : ''}`}>
      {label}
      {control}
      {kind === 'secret' && value === SECRET_MARKER && <p class="hint small">A value is stored; it is kept unless you type a new one.</p>}
      {kind === 'number' && (field.min !== undefined || field.max !== undefined) && (
        <p class="hint small">{field.min !== undefined && field.max !== undefined ? `From ${field.min} to ${field.max}` : field.min !== undefined ? `At least ${field.min}` : `At most ${field.max}`}</p>
      )}
      {help}
      <Messages id={`${id}-error`} field={field} msgs={msgs} />
    </div>
  );
}

type Common = { id: string; 'aria-invalid'?: 'true'; 'aria-describedby'?: string };

function ProviderSelect({ common, value, onChange, providers, required }: { common: Common; value: unknown; onChange: (v: unknown) => void; providers: Provider[] | null; required: boolean }) {
  const current = value === undefined || value === null ? '' : String(value);
  const list = providers ?? [];
  return (
    <div class="ae-provider">
      <select
        {...common}
        value={current}
        onChange={(e) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          const p = list.find((x) => String(x.id) === v);
          onChange(v === '' ? undefined : p && typeof p.id === 'number' ? p.id : v);
        }}
      >
        <option value="">{providers === null ? 'Loading accounts…' : list.length ? (required ? 'Choose an account…' : '(none)') : 'No connected account yet'}</option>
        {current && !list.some((p) => String(p.id) === current) && <option value={current}>Account {current}</option>}
        {list.map((p) => (
          <option key={p.id} value={String(p.id)}>
            {p.name} ({p.type})
          </option>
        ))}
      </select>
      <a class="btn small" href="#/account/providers">
        Connect an account
      </a>
    </div>
  );
}

/** One of the account's hosted databases, or none (the action then connects to the server given below). */
function DatabaseSelect({ common, value, onChange }: { common: Common; value: unknown; onChange: (v: unknown) => void }) {
  const dbs = useHostedDatabases();
  const current = value === undefined || value === null ? '' : String(value);
  const list = dbs ?? [];
  return (
    <div class="ae-provider">
      <select {...common} value={current} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value || undefined)}>
        <option value="">{dbs === null ? 'Loading databases…' : '(none: a server given below)'}</option>
        {current && !list.some((d) => d.id === current || d.name === current) && <option value={current}>{current}</option>}
        {list.map((d) => (
          <option key={d.id} value={d.id}>
            {d.name}
          </option>
        ))}
      </select>
      <a class="btn small" href="#/account/databases">
        Databases
      </a>
    </div>
  );
}

/** A value the form has no control for, edited as JSON; kept as typed until it parses. */
function JsonField({ common, value, onChange }: { common: Common; value: unknown; onChange: (v: unknown) => void }) {
  const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v, null, 2));
  const [text, setText] = useState(show(value));
  const [bad, setBad] = useState(false);
  useEffect(() => {
    try {
      if (JSON.stringify(JSON.parse(text || 'null')) !== JSON.stringify(value ?? null)) setText(show(value));
    } catch {
      /* keep what is being typed */
    }
  }, [value]);
  return (
    <>
      <textarea
        {...common}
        class="mono"
        rows={Math.min(10, Math.max(3, text.split('\n').length))}
        value={text}
        aria-invalid={bad || common['aria-invalid'] ? 'true' : undefined}
        onInput={(e) => {
          const t = (e.currentTarget as HTMLTextAreaElement).value;
          setText(t);
          try {
            onChange(t.trim() === '' ? undefined : JSON.parse(t));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      <p class={bad ? 'field-error' : 'hint small'}>{bad ? 'Not valid JSON yet: the last valid value is kept.' : 'As JSON.'}</p>
    </>
  );
}

function ListField({ field, value, onChange, ctx, path }: { field: FieldSpec; value: Obj[]; onChange: (v: unknown) => void; ctx: FieldContext; path: string }) {
  const one = field.label.replace(/s$/, '').toLowerCase();
  return (
    <div class="ae-list">
      {value.map((item, i) => (
        <div class="ae-list-item" key={i} role="group" aria-label={`${field.label} ${i + 1}`}>
          <div class="ae-fields">
            <ParamFields fields={field.fields!} value={item} onChange={(v) => onChange(value.map((x, j) => (j === i ? v : x)))} ctx={ctx} path={`${path}.${i}`} />
          </div>
          <button type="button" class="btn small danger" aria-label={`Remove ${one} ${i + 1}`} onClick={() => onChange(value.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="btn small" onClick={() => onChange([...value, {}])}>
        Add {one}
      </button>
    </div>
  );
}
