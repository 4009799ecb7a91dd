// Form Builder (webhook.site's form-builder): fields with labels, types and "required", a live
// preview (a real form in a sandboxed frame that posts to the token), and the HTML to copy. The
// submissions are captured like any request and show as form data. Nothing is stored on the server.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { FIELD_TYPES, enctypeOf, fieldName, formHtml, previewDocument, type FieldType, type FormField } from './form-html';
import { CopyButton } from './ui';
import './replay.css';

let nextKey = 1;
const newField = (over: Partial<FormField> = {}): FormField => ({ key: nextKey++, label: '', name: '', type: 'text', required: false, extra: '', ...over });

const TYPE_LABELS: Record<FieldType, string> = {
  text: 'Text',
  email: 'E-mail',
  number: 'Number',
  tel: 'Phone',
  url: 'URL',
  date: 'Date',
  textarea: 'Long text',
  select: 'Choice list',
  checkbox: 'Checkbox',
  file: 'File upload',
  hidden: 'Hidden value',
};

/** How long the form stays unchanged before the preview shows it. */
const PREVIEW_DELAY_MS = 250;

const EXTRA_LABEL: Partial<Record<FieldType, string>> = { select: 'Options (one a line)', hidden: 'Value', checkbox: '', file: '' };

export function FormBuilder({ captureUrl }: { captureUrl: string }) {
  const [title, setTitle] = useState('Contact us');
  const [submit, setSubmit] = useState('Send');
  const [path, setPath] = useState('/form');
  const [fields, setFields] = useState<FormField[]>(() => [
    newField({ label: 'Name', required: true }),
    newField({ label: 'E-mail', name: 'email', type: 'email', required: true }),
    newField({ label: 'Message', type: 'textarea' }),
  ]);
  const action = `${captureUrl}${path.trim() && !path.trim().startsWith('/') ? '/' : ''}${path.trim()}`;
  const spec = { title, submit, action, fields };
  const html = useMemo(() => formHtml(spec), [title, submit, action, fields]);
  // The preview reloads its whole document on each change: once typing pauses, not per keystroke.
  const [previewHtml, setPreviewHtml] = useState(html);
  useEffect(() => {
    const timer = setTimeout(() => setPreviewHtml(html), PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [html]);

  // The preview frame's next load shows the form (a new document or a new frame); any other is a submission's answer.
  const [frame, setFrame] = useState(0);
  const [sent, setSent] = useState(0);
  const showingForm = useRef(true);
  useLayoutEffect(() => {
    showingForm.current = true;
  }, [previewHtml, frame]);

  const change = (key: number, patch: Partial<FormField>) => setFields((fs) => fs.map((f) => (f.key === key ? { ...f, ...patch } : f)));
  const move = (i: number, by: number) =>
    setFields((fs) => {
      const j = i + by;
      if (j < 0 || j >= fs.length) return fs;
      const copy = [...fs];
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      return copy;
    });

  return (
    <section class="panel form-builder" aria-labelledby="form-builder-title">
      <h2 id="form-builder-title">Form Builder</h2>
      <p class="hint">Build an HTML form that posts to this URL, try it in the preview, and copy its HTML into your web site. Each submission is captured here and shows as form data.</p>
      <div class="form-builder-grid">
        <form class="form-builder-edit" aria-label="Form settings" onSubmit={(e) => e.preventDefault()}>
          <div class="field">
            <label for="fb-title">Title</label>
            <input id="fb-title" value={title} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field">
            <label for="fb-path">Posts to</label>
            <div class="hint small">
              <code class="wrap">{captureUrl}</code>
            </div>
            <input id="fb-path" value={path} aria-describedby="fb-path-hint" onInput={(e) => setPath((e.currentTarget as HTMLInputElement).value)} />
            <p id="fb-path-hint" class="hint small">
              Path after the capture URL (may be empty). Sent as {enctypeOf(spec) === 'multipart/form-data' ? 'multipart/form-data (a field uploads files)' : 'application/x-www-form-urlencoded'}.
            </p>
          </div>
          <div class="field">
            <label for="fb-submit">Button text</label>
            <input id="fb-submit" value={submit} onInput={(e) => setSubmit((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <h3>Fields</h3>
          <ol class="form-builder-fields">
            {fields.map((f, i) => {
              const n = i + 1;
              const extra = EXTRA_LABEL[f.type] ?? 'Placeholder';
              return (
                <li key={f.key} aria-label={`Field ${n}`}>
                  <div class="field">
                    <label for={`fb-label-${f.key}`}>Label of field {n}</label>
                    <input id={`fb-label-${f.key}`} value={f.label} onInput={(e) => change(f.key, { label: (e.currentTarget as HTMLInputElement).value })} />
                  </div>
                  <div class="field">
                    <label for={`fb-name-${f.key}`}>Name of field {n}</label>
                    <input id={`fb-name-${f.key}`} value={f.name} placeholder={fieldName({ ...f, name: '' }, i)} onInput={(e) => change(f.key, { name: (e.currentTarget as HTMLInputElement).value })} />
                  </div>
                  <div class="field">
                    <label for={`fb-type-${f.key}`}>Type of field {n}</label>
                    <select id={`fb-type-${f.key}`} value={f.type} onChange={(e) => change(f.key, { type: (e.currentTarget as HTMLSelectElement).value as FieldType })}>
                      {FIELD_TYPES.map((t) => (
                        <option key={t} value={t}>
                          {TYPE_LABELS[t]}
                        </option>
                      ))}
                    </select>
                  </div>
                  {extra && (
                    <div class="field">
                      <label for={`fb-extra-${f.key}`}>
                        {extra} of field {n}
                      </label>
                      {f.type === 'select' ? (
                        <textarea id={`fb-extra-${f.key}`} rows={3} value={f.extra} onInput={(e) => change(f.key, { extra: (e.currentTarget as HTMLTextAreaElement).value })} />
                      ) : (
                        <input id={`fb-extra-${f.key}`} value={f.extra} onInput={(e) => change(f.key, { extra: (e.currentTarget as HTMLInputElement).value })} />
                      )}
                    </div>
                  )}
                  {f.type !== 'hidden' && (
                    <label class="check">
                      <input type="checkbox" checked={f.required} onChange={(e) => change(f.key, { required: (e.currentTarget as HTMLInputElement).checked })} /> Field {n} is required
                    </label>
                  )}
                  <div class="toggle">
                    <button type="button" class="btn small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move field ${n} up`}>
                      ↑
                    </button>
                    <button type="button" class="btn small" disabled={i === fields.length - 1} onClick={() => move(i, 1)} aria-label={`Move field ${n} down`}>
                      ↓
                    </button>
                    <button type="button" class="btn small danger" onClick={() => setFields((fs) => fs.filter((x) => x.key !== f.key))} aria-label={`Remove field ${n}`}>
                      Remove
                    </button>
                  </div>
                </li>
              );
            })}
          </ol>
          <button type="button" class="btn" onClick={() => setFields((fs) => [...fs, newField()])}>
            Add a field
          </button>
        </form>
        <div class="form-builder-out">
          <h3 id="fb-preview-title">Preview</h3>
          <p class="hint small">A real form: submitting it sends a request to this token.</p>
          <iframe
            key={frame}
            title="Form preview"
            class="form-preview"
            sandbox="allow-forms"
            srcdoc={previewDocument(previewHtml)}
            onLoad={() => {
              if (showingForm.current) return void (showingForm.current = false);
              // Any other load is the answer to a submission: the form comes back, with a word on where the request went.
              setSent((n) => n + 1);
              setFrame((n) => n + 1);
            }}
          />
          {sent > 0 && (
            <p class="ok-text small" role="status">
              Sent{sent > 1 ? ` (${sent} times)` : ''}: the submission is in the Requests tab.
            </p>
          )}
          <div class="section-head">
            <h3 id="fb-html-title">HTML</h3>
            <CopyButton text={html} label="Copy the form's HTML">
              Copy HTML
            </CopyButton>
          </div>
          <textarea id="fb-html" class="code small" aria-labelledby="fb-html-title" readOnly rows={14} value={html} />
        </div>
      </div>
    </section>
  );
}
