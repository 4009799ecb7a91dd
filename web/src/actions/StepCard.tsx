// One step of the chain: its form, its place (drag, Alt+Arrow keys, move buttons), on/off, the
// condition it waits for, duplicate, delete and "Test until here".
import { useState } from 'preact/hooks';
import { InlineMarkdown } from '../inline-markdown';
import { formatJson, parseCurl } from './curl-import';
import type { ActionType, Provider, QueueProfile } from './api';
import { ParamFields, fieldId, type FieldContext } from './Fields';
import { isCondition, refOf, type Item, type Step } from './model';
import { explain, fieldsOf } from './schema';
import type { Suggestion } from './variables';

export interface StepActions {
  change: (step: Step) => void;
  move: (to: number) => void;
  duplicate: () => void;
  remove: () => void;
  test: () => void;
}

interface Props {
  item: Item;
  index: number;
  count: number;
  type: ActionType | undefined;
  earlier: Step[];
  errors: Record<string, string[]>;
  variables: () => Suggestion[];
  providers: Provider[] | null;
  /** The account's Queue Profiles, for a queued step. */
  queueProfiles: QueueProfile[];
  testing: boolean;
  dragging: boolean;
  actions: StepActions;
  onDragStart: () => void;
  onDrop: () => void;
}

/** Errors of step-level fields (not parameters): `type`, `name`, `condition`, `id`. */
const STEP_FIELDS = ['type', 'name', 'condition', 'condition_action', 'id', 'disabled', 'queue', 'delay', 'queue_profile'];

export function StepCard({ item, index, count, type, earlier, errors, variables, providers, queueProfiles, testing, dragging, actions, onDragStart, onDrop }: Props) {
  const { step } = item;
  const idBase = `ae-${item.key}`;
  const title = type?.title ?? String(step.type ?? 'Unknown');
  const fields = type ? fieldsOf(type.schema) : [];
  const params = (step.parameters && typeof step.parameters === 'object' ? step.parameters : {}) as Record<string, unknown>;
  const paramErrors: Record<string, string[]> = {};
  const otherErrors: string[] = [];
  const known = new Set(fields.map((f) => f.name));
  for (const [path, msgs] of Object.entries(errors)) {
    if (path.startsWith('parameters.') && known.has(path.slice(11).split('.')[0]!)) paramErrors[path.slice(11)] = msgs;
    else if (!STEP_FIELDS.includes(path)) otherErrors.push(...msgs.map((m) => (path && path !== '_' ? `${path.replace(/^parameters\./, '')}: ${m}` : m)));
  }
  const ctx: FieldContext = { idBase, errors: paramErrors, variables, providers };
  const conditions = earlier.map((s, i) => ({ s, i })).filter(({ s }) => isCondition(s));
  const condValue = typeof step.condition === 'string' && step.condition ? `${step.condition}|${step.condition_action === 'false' ? 'false' : 'true'}` : '';
  const disabled = step.disabled === true;
  const n = index + 1;
  const stepError = (key: string) =>
    errors[key]?.length ? (
      <p class="field-error" id={`${idBase}-${key}-error`}>
        {errors[key]!.map((m) => `${key === 'condition' ? 'Run only when' : key === 'name' ? 'Name' : 'Type'}: ${explain(undefined, m)}`).join(' ')}
      </p>
    ) : null;

  return (
    <li
      class={`ae-step${disabled ? ' off' : ''}${dragging ? ' dragging' : ''}${Object.keys(errors).length ? ' has-errors' : ''}`}
      id={`${idBase}-card`}
      tabIndex={-1}
      aria-labelledby={`${idBase}-title`}
      onKeyDown={(e) => {
        if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
          e.preventDefault();
          actions.move(index + (e.key === 'ArrowUp' ? -1 : 1));
        }
      }}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        onDrop();
      }}
    >
      <div class="ae-step-head">
        <span
          class="ae-handle"
          draggable
          title="Drag to move (or Alt+Arrow Up/Down)"
          aria-hidden="true"
          onDragStart={(e) => {
            e.dataTransfer?.setData('text/plain', item.key);
            onDragStart();
          }}
        >
          ⠿
        </span>
        <span class="ae-num" aria-hidden="true">
          {n}
        </span>
        <h3 id={`${idBase}-title`}>
          <span class="sr-only">Step {n}: </span>
          {title}
          {typeof step.name === 'string' && step.name && <span class="ae-name"> · {step.name}</span>}
          {disabled && <span class="badge">off</span>}
        </h3>
        <div class="ae-step-tools">
          <label class="ae-switch small" for={`${idBase}-enabled`}>
            <input
              id={`${idBase}-enabled`}
              type="checkbox"
              role="switch"
              checked={!disabled}
              onChange={(e) => {
                const on = (e.currentTarget as HTMLInputElement).checked;
                const { disabled: _d, ...rest } = step;
                actions.change(on ? (rest as Step) : { ...step, disabled: true });
              }}
            />
            <span class="ae-switch-track" aria-hidden="true" />
            <span>
              On<span class="sr-only">: step {n}</span>
            </span>
          </label>
          <button type="button" class="btn small" aria-label={`Move step ${n} up`} title="Move up (Alt+Arrow Up)" disabled={index === 0} onClick={() => actions.move(index - 1)}>
            ↑
          </button>
          <button type="button" class="btn small" aria-label={`Move step ${n} down`} title="Move down (Alt+Arrow Down)" disabled={index === count - 1} onClick={() => actions.move(index + 1)}>
            ↓
          </button>
          <button type="button" class="btn small" aria-label={`Duplicate step ${n}`} onClick={actions.duplicate}>
            Duplicate
          </button>
          <button type="button" class="btn small danger" aria-label={`Delete step ${n}`} onClick={actions.remove}>
            Delete
          </button>
        </div>
      </div>
      {type?.description && (
        <p class="hint small ae-desc">
          <InlineMarkdown text={type.description} />
        </p>
      )}
      {!type && stepError('type')}
      {!type && <p class="field-error">This server has no action type “{String(step.type)}”: its parameters can be edited in YAML.</p>}
      {otherErrors.length > 0 && (
        <ul class="field-error ae-other-errors">
          {otherErrors.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      <div class="ae-fields">
        <div class="field ae-field">
          <label for={`${idBase}-name`}>Name (optional)</label>
          <input
            id={`${idBase}-name`}
            type="text"
            value={typeof step.name === 'string' ? step.name : ''}
            aria-invalid={errors.name ? 'true' : undefined}
            aria-describedby={errors.name ? `${idBase}-name-error` : undefined}
            onInput={(e) => {
              const v = (e.currentTarget as HTMLInputElement).value;
              const { name: _n, ...rest } = step;
              actions.change(v ? { ...step, name: v } : (rest as Step));
            }}
          />
          {stepError('name')}
        </div>
        {(conditions.length > 0 || condValue) && (
          <div class="field ae-field">
            <label for={`${idBase}-condition`}>Run only when</label>
            <select
              id={`${idBase}-condition`}
              value={condValue}
              aria-invalid={errors.condition ? 'true' : undefined}
              aria-describedby={errors.condition ? `${idBase}-condition-error` : undefined}
              onChange={(e) => {
                const v = (e.currentTarget as HTMLSelectElement).value;
                const { condition: _c, condition_action: _a, ...rest } = step;
                if (!v) return actions.change(rest as Step);
                const [ref, when] = [v.slice(0, v.lastIndexOf('|')), v.slice(v.lastIndexOf('|') + 1)];
                actions.change({ ...rest, condition: ref, ...(when === 'false' ? { condition_action: 'false' } : {}) } as Step);
              }}
            >
              <option value="">Always</option>
              {conditions.flatMap(({ s, i }) => {
                const ref = step.condition === s.id || step.condition === s.name ? String(step.condition) : refOf(s);
                const what = `step ${i + 1} (${typeof s.name === 'string' && s.name ? s.name : s.type === 'conditions' ? 'Conditions' : 'Condition'})`;
                return [
                  <option key={`${ref}|true`} value={`${ref}|true`}>
                    {what} passed
                  </option>,
                  <option key={`${ref}|false`} value={`${ref}|false`}>
                    {what} did not pass
                  </option>,
                ];
              })}
              {condValue && !conditions.some(({ s }) => s.id === step.condition || s.name === step.condition) && <option value={condValue}>{String(step.condition)} (not an earlier Conditions step)</option>}
            </select>
            {stepError('condition')}
          </div>
        )}
        {type && ['url', 'method', 'headers', 'content'].every((n) => known.has(n)) && <HttpTools idBase={idBase} params={params} onChange={(p) => actions.change({ ...step, parameters: p })} />}
        {type && <ParamFields fields={fields} value={params} onChange={(p) => actions.change({ ...step, parameters: p })} ctx={ctx} />}
        {(step.queue === true || queueProfiles.length > 0 || errors.queue || errors.queue_profile) && (
          <QueueFields idBase={idBase} step={step} profiles={queueProfiles} errors={errors} queueable={type?.queueable !== false} change={actions.change} />
        )}
      </div>
      <div class="ae-step-foot">
        <button type="button" class="btn small" onClick={actions.test} disabled={testing} aria-label={`Test until here: steps 1 to ${n}`}>
          {testing ? 'Testing…' : 'Test until here'}
        </button>
      </div>
    </li>
  );
}

/** Where an error of this step is shown: the ID of its control (for the problems list's links). */
export function errorTarget(itemKey: string, path: string): string {
  const idBase = `ae-${itemKey}`;
  if (path.startsWith('parameters.')) return fieldId(idBase, path.slice(11));
  if (path === 'name' || path === 'condition') return `${idBase}-${path}`;
  return `${idBase}-card`;
}

/** Queued (after the capture is answered) and, with profiles, the Queue Profile it runs in. */
function QueueFields({ idBase, step, profiles, errors, queueable, change }: { idBase: string; step: Step; profiles: QueueProfile[]; errors: Record<string, string[]>; queueable: boolean; change: (s: Step) => void }) {
  const queued = step.queue === true;
  const profile = typeof step.queue_profile === 'string' ? step.queue_profile : '';
  const problems = [...(errors.queue ?? []), ...(errors.queue_profile ?? [])];
  return (
    <div class="field ae-field">
      <label class="ae-switch small" for={`${idBase}-queue`}>
        <input
          id={`${idBase}-queue`}
          type="checkbox"
          role="switch"
          checked={queued}
          disabled={!queueable && !queued}
          onChange={(e) => {
            const on = (e.currentTarget as HTMLInputElement).checked;
            const { queue: _q, queue_profile: _p, ...rest } = step;
            change(on ? { ...rest, queue: true } : (rest as Step));
          }}
        />
        <span class="ae-switch-track" aria-hidden="true" />
        <span>Queued: run after the capture is answered{queueable ? '' : ' (not for this type)'}</span>
      </label>
      {/* Shown for a profile that is gone too: saving the chain refuses it until another is picked. */}
      {queued && (profiles.length > 0 || profile !== '') && (
        <>
          <label for={`${idBase}-queue-profile`}>Queue profile</label>
          <select
            id={`${idBase}-queue-profile`}
            value={profile}
            aria-invalid={errors.queue_profile ? 'true' : undefined}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              const { queue_profile: _p, ...rest } = step;
              change(v ? { ...rest, queue_profile: v } : (rest as Step));
            }}
          >
            <option value="">None (run as soon as due)</option>
            {profiles.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.rate_limit} per {p.rate_period} s)
              </option>
            ))}
            {profile && !profiles.some((p) => p.id === profile) && <option value={profile}>Deleted, or not yours ({profile})</option>}
          </select>
        </>
      )}
      {problems.length > 0 && (
        <p class="field-error" id={`${idBase}-queue-error`}>
          {problems.join(' ')}
        </p>
      )}
    </div>
  );
}

/** The HTTP Request action's "Import from cURL" (a pasted command fills the form) and "JSON Format" (indents the body). */
function HttpTools({ idBase, params, onChange }: { idBase: string; params: Record<string, unknown>; onChange: (p: Record<string, unknown>) => void }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const id = `${idBase}-curl`;
  return (
    <div class="ae-field wide ae-http-tools">
      <div class="row-actions">
        <button type="button" class="btn small" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          Import from cURL
        </button>
        <button
          type="button"
          class="btn small"
          onClick={() => {
            const formatted = formatJson(String(params.content ?? ''));
            if (formatted === null) return setMessage({ ok: false, text: 'The content is not JSON (yet): nothing to format.' });
            onChange({ ...params, content: formatted });
            setMessage({ ok: true, text: 'Content formatted as JSON.' });
          }}
        >
          JSON Format
        </button>
      </div>
      {open && (
        <div id={id} class="ae-curl">
          <label for={`${id}-text`}>curl command</label>
          <textarea
            id={`${id}-text`}
            class="mono"
            rows={4}
            value={text}
            placeholder="curl -X POST https://example.com -H 'Content-Type: application/json' -d '{}'"
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          />
          <button
            type="button"
            class="btn small primary"
            onClick={() => {
              try {
                const r = parseCurl(text);
                const { auth, ...rest } = r;
                onChange({ ...params, ...rest, ...(auth ? { auth: { ...((params.auth as object) ?? {}), ...auth } } : {}) });
                setOpen(false);
                setText('');
                setMessage({ ok: true, text: `Imported ${r.method ?? 'GET'} ${r.url}.` });
              } catch (e) {
                setMessage({ ok: false, text: (e as Error).message });
              }
            }}
          >
            Import
          </button>
        </div>
      )}
      {message && (
        <p class={message.ok ? 'ok-text small' : 'field-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </div>
  );
}
