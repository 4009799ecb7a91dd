// A token's action chain as an editable YAML workflow document (GET/PUT /token/{id}/workflow).
// Syntax errors are found here before sending; the server's validation errors (422, keyed by path
// such as `spec.steps.0.type`) are mapped back to the lines of the document and shown beside them.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node as YamlNode } from 'yaml';
import { ApiError, call, enc, type FieldErrors, type Token } from './api';
import { href } from './route';
import { DocsLink, NotAvailable, Spinner, announce } from './ui';
import { ActionEditor } from './actions/ActionEditor';
import { workflowDrafts } from './actions/drafts';

type Mode = 'visual' | 'yaml';
const MODE_KEY = 'capture.workflowEditor';
function storedMode(): Mode {
  try {
    return localStorage.getItem(MODE_KEY) === 'yaml' ? 'yaml' : 'visual';
  } catch {
    return 'visual';
  }
}

export interface LineError {
  line: number | null;
  path: string;
  message: string;
}

const ACCEPT = 'application/yaml, text/yaml;q=0.9, text/plain;q=0.8, application/json;q=0.5';

export function templateFor(token: string): string {
  return `apiVersion: capture/v1
kind: TokenActions
metadata:
  token: ${token}
spec:
  steps: []
  # - name: parse
  #   type: auto_json
  #   parameters:
  #     source: $request.content$
`;
}

/** The server answered a document (YAML text, or JSON of one): as YAML text. */
function asYaml(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    if (typeof d.yaml === 'string') return d.yaml;
    if (d.data && typeof d.data === 'object' && 'apiVersion' in (d.data as object)) return stringify(d.data, { lineWidth: 0 });
    return stringify(d, { lineWidth: 0 });
  }
  return '';
}

/** `spec.steps.0.type`, `/spec/steps/0/type` or `spec.steps[0].type` as path segments. */
export function pathSegments(path: string): Array<string | number> {
  return path
    .split(/[./[\]]+/)
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** The 1-based line of the deepest part of `path` present in the document, or null. */
export function lineOf(text: string, path: string): number | null {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  let node: unknown = doc.contents;
  let pos: number | null = (doc.contents as YamlNode | null)?.range?.[0] ?? null;
  for (const seg of pathSegments(path)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg));
      if (!pair) break;
      pos = (pair.key as YamlNode | null)?.range?.[0] ?? pos;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as YamlNode | undefined;
      if (!item) break;
      pos = item.range?.[0] ?? pos;
      node = item;
    } else break;
  }
  return pos === null ? null : lc.linePos(pos).line;
}

/** YAML syntax errors, with their lines, before anything is sent. */
export function syntaxErrors(text: string): LineError[] {
  const doc = parseDocument(text, { prettyErrors: true });
  return doc.errors.map((e) => ({ line: e.linePos?.[0]?.line ?? null, path: '', message: e.message.split('\n')[0]! }));
}

export function serverErrors(text: string, message: string, errors: FieldErrors): LineError[] {
  const out: LineError[] = [];
  for (const [path, msgs] of Object.entries(errors)) {
    const line = path === 'document' ? Number(/line (\d+)/i.exec(msgs.join(' '))?.[1]) || null : path === '_' ? null : lineOf(text, path);
    for (const m of msgs) out.push({ line, path: path === '_' || path === 'document' ? '' : path, message: path === 'document' ? m.split('\n')[0]! : m });
  }
  if (out.length === 0) out.push({ line: Number(/line (\d+)/i.exec(message)?.[1]) || null, path: '', message });
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

interface Props {
  token: Token;
  /** The token changed here (custom actions switched on). */
  onToken?: (t: Token) => void;
  /** Above 0: the chain was changed on the server (a template applied), so an unsaved draft is stale. */
  revision?: number;
}

/** Whether a document has at least one step (a chain worth running). */
function hasSteps(text: string): boolean {
  try {
    const steps = (parseDocument(text).toJS() as { spec?: { steps?: unknown } } | null)?.spec?.steps;
    return Array.isArray(steps) && steps.length > 0;
  } catch {
    return false;
  }
}

export function Workflow({ token, onToken, revision = 0 }: Props) {
  const [draft] = useState(() => {
    if (revision > 0) workflowDrafts.drop(token.uuid);
    return workflowDrafts.get(token.uuid);
  });
  const [text, setTextState] = useState<string | null>(draft ?? null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [errors, setErrors] = useState<LineError[]>([]);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [dirty, setDirtyState] = useState(draft !== undefined);
  const [offerActions, setOfferActions] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // An edit is kept as a draft until saved: a tab switch closes this editor, not the edit.
  const edited = (t: string) => {
    setTextState(t);
    setDirtyState(true);
    workflowDrafts.set(token.uuid, t);
  };
  const setText = (t: string) => setTextState(t);
  const setDirty = (d: boolean) => {
    setDirtyState(d);
    if (!d) workflowDrafts.drop(token.uuid);
  };
  const [mode, setModeState] = useState<Mode>(storedMode);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const setMode = (m: Mode) => {
    setModeState(m);
    try {
      localStorage.setItem(MODE_KEY, m);
    } catch {
      /* remembered for this page only */
    }
  };
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const url = `/token/${enc(token.uuid)}/workflow`;

  // Ctrl+S (Cmd+S) saves, wherever the focus is; Enter in a field never does (see the form's onKeyDown).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        form.current?.requestSubmit();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (draft !== undefined) return;
    call<unknown>('GET', url, { accept: ACCEPT, token: token.uuid })
      .then((d) => setText(asYaml(d)))
      .catch((e: ApiError) => {
        // 404 for the token's document (none yet) starts from a template; 404 for the route means
        // the server has no workflows at all.
        if (e.status === 404 && !e.notAvailable) setText(templateFor(token.uuid));
        else setLoadError(e);
      });
  }, [token.uuid]);

  // Syntax errors while typing (debounced), server errors after a save.
  // (A save of this very text has the last word: its server errors are not replaced.)
  const savedText = useRef<string | null>(null);
  useEffect(() => {
    if (text === null || !dirty || mode !== 'yaml') return;
    const t = setTimeout(() => {
      if (savedText.current !== text) setErrors(syntaxErrors(text));
    }, 300);
    return () => clearTimeout(t);
  }, [text, dirty, mode]);

  const errorLines = useMemo(() => new Set(errors.map((e) => e.line).filter((l): l is number => l !== null)), [errors]);

  if (loadError?.notAvailable) return <NotAvailable what="Editing actions as a workflow" />;
  if (loadError)
    return (
      <div class="notice error" role="alert">
        <p>{loadError.message}</p>
      </div>
    );
  if (text === null) return <Spinner label="Loading the workflow" />;

  const lineCount = text.split('\n').length;

  function goTo(line: number) {
    const el = area.current;
    if (!el) return;
    const lines = el.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
    const lh = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.scrollTop = Math.max(0, (line - 3) * lh);
  }

  async function save(e: Event) {
    e.preventDefault();
    if (text === null) return;
    savedText.current = text;
    const syntax = syntaxErrors(text);
    setErrors(syntax);
    setFieldErrors({});
    setStatus(null);
    if (syntax.length) {
      setStatus({ ok: false, text: 'Fix the YAML syntax first.' });
      return;
    }
    setSaving(true);
    try {
      const d = await call<unknown>('PUT', url, { body: text, contentType: 'application/yaml', accept: ACCEPT, token: token.uuid });
      const saved = asYaml(d);
      if (saved.trim()) setText(saved);
      setDirty(false);
      setErrors([]);
      setStatus({ ok: true, text: 'Workflow saved.' });
      announce('Workflow saved');
      setOfferActions(!token.actions && hasSteps(saved.trim() ? saved : text));
    } catch (err) {
      const ae = err as ApiError;
      if (ae.notAvailable) {
        setStatus({ ok: false, text: 'Workflows are not available on this server.' });
      } else {
        const list = ae.status === 422 || ae.status === 400 ? serverErrors(text, ae.message, ae.errors) : [{ line: null, path: '', message: ae.message }];
        setErrors(list);
        setFieldErrors(ae.errors);
        setStatus({ ok: false, text: `Not saved: ${list.length} problem${list.length === 1 ? '' : 's'} in the document${mode === 'visual' ? ', each shown at its field' : ''}.` });
      }
    } finally {
      setSaving(false);
    }
  }

  async function switchActionsOn() {
    try {
      const t = await call<Token>('PUT', `/token/${enc(token.uuid)}`, { json: { actions: true }, token: token.uuid });
      onToken?.(t);
      setOfferActions(false);
      setStatus({ ok: true, text: 'Workflow saved. Custom actions are on: the chain runs on every capture.' });
      announce('Custom actions switched on');
    } catch (err) {
      setStatus({ ok: false, text: `Custom actions are still off: ${(err as Error).message}` });
    }
  }

  return (
    <form
      ref={form}
      class="panel workflow"
      onSubmit={save}
      aria-labelledby="wf-title"
      noValidate
      onKeyDown={(e) => {
        // Enter in a one-line field would submit the whole document, half-built or not.
        if (e.key === 'Enter' && e.target instanceof HTMLInputElement) e.preventDefault();
      }}
    >
      <h2 id="wf-title">Custom actions</h2>
      <p class="hint">
        The steps that run, in order, on every capture of this token, as a workflow document you can keep in git: <DocsLink page="actions.md">action types</DocsLink>,{' '}
        <DocsLink page="workflows.md">workflow documents</DocsLink>.
      </p>
      {!token.actions && !offerActions && <ActionsOff token={token} turnOn={switchActionsOn} />}
      <div class="ae-mode" role="group" aria-label="Editor">
        <button type="button" class="btn small" aria-pressed={mode === 'visual'} onClick={() => setMode('visual')}>
          Visual
        </button>
        <button type="button" class="btn small" aria-pressed={mode === 'yaml'} onClick={() => setMode('yaml')}>
          YAML
        </button>
      </div>
      {mode === 'visual' ? (
        <ActionEditor token={token} text={text} errors={fieldErrors} onText={edited} />
      ) : (
        <>
          <label for="workflow-yaml">Workflow (YAML)</label>
          <div class="editor">
            <div class="gutter" ref={gutter} aria-hidden="true">
              {Array.from({ length: lineCount }, (_, i) => (
                <div key={i} class={errorLines.has(i + 1) ? 'err' : undefined}>
                  {i + 1}
                </div>
              ))}
            </div>
            <textarea
              id="workflow-yaml"
              ref={area}
              class="mono"
              spellcheck={false}
              wrap="off"
              rows={Math.min(Math.max(lineCount + 2, 12), 40)}
              value={text}
              aria-invalid={errors.length ? true : undefined}
              aria-describedby="workflow-errors"
              onInput={(e) => edited((e.currentTarget as HTMLTextAreaElement).value)}
              onScroll={(e) => {
                if (gutter.current) gutter.current.scrollTop = (e.currentTarget as HTMLTextAreaElement).scrollTop;
              }}
            />
          </div>
          <div id="workflow-errors" aria-live="polite">
            {errors.length > 0 && (
              <ul class="line-errors" aria-label="Problems in the workflow">
                {errors.map((er, i) => (
                  <li key={i}>
                    {er.line !== null ? (
                      <button type="button" class="btn link" onClick={() => goTo(er.line!)}>
                        Line {er.line}
                      </button>
                    ) : (
                      <span>Document</span>
                    )}
                    {er.path && <code>{er.path}</code>}
                    <span>{er.message}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </>
      )}
      <div class="form-actions">
        <button class="btn primary" type="submit" disabled={saving} aria-keyshortcuts="Control+S Meta+S" title="Save (Ctrl+S)">
          {saving ? 'Saving…' : 'Save workflow'}
        </button>
        {dirty && !saving && (
          <span class="badge unsaved" id="wf-unsaved">
            Unsaved changes
          </span>
        )}
        {status && (
          <p class={status.ok ? 'ok-text' : 'field-error'} role={status.ok ? 'status' : 'alert'}>
            {status.text}
          </p>
        )}
      </div>
      {offerActions && !token.actions && <ActionsOff token={token} turnOn={switchActionsOn} justSaved />}
    </form>
  );
}

/** Custom actions are off for the token: a chain never runs until they are on, one click away. */
function ActionsOff({ token, turnOn, justSaved }: { token: Token; turnOn: () => Promise<void>; justSaved?: boolean }) {
  return (
    <div class="notice warn actions-off" role={justSaved ? 'alert' : undefined}>
      <p>
        <strong>Custom actions are off for this token</strong>: {justSaved ? 'the chain you saved does not run' : 'a saved chain does not run'} until they are on (also in{' '}
        <a href={href({ view: 'token', token: token.uuid, tab: 'settings' })}>Settings</a>).
      </p>
      <button type="button" class="btn primary" onClick={() => void turnOn()}>
        Turn custom actions on
      </button>
    </div>
  );
}
