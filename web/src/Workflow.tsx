// A token's action chain as an editable YAML workflow document (GET/PUT /token/{id}/workflow).
// Syntax errors are found here before sending; the server's validation errors (422, keyed by path
// such as `spec.steps.0.type`) are mapped back to the lines of the document and shown beside them.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node as YamlNode } from 'yaml';
import { ApiError, call, enc, type FieldErrors, type Token } from './api';
import { href } from './route';
import { DocsLink, NotAvailable, Spinner, announce } from './ui';
import { ActionEditor } from './actions/ActionEditor';

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
    const line = path === 'document' ? (Number(/line (\d+)/i.exec(msgs.join(' '))?.[1]) || null) : path === '_' ? null : lineOf(text, path);
    for (const m of msgs) out.push({ line, path: path === '_' || path === 'document' ? '' : path, message: path === 'document' ? m.split('\n')[0]! : m });
  }
  if (out.length === 0) out.push({ line: Number(/line (\d+)/i.exec(message)?.[1]) || null, path: '', message });
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

export function Workflow({ token }: { token: Token }) {
  const [text, setText] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [errors, setErrors] = useState<LineError[]>([]);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [dirty, setDirty] = useState(false);
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

  useEffect(() => {
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

  return (
    <form class="panel workflow" onSubmit={save} aria-labelledby="wf-title" noValidate>
      <h2 id="wf-title">Custom actions</h2>
      <p class="hint">
        The steps that run, in order, on every capture of this token, as a workflow document you can keep in git:{' '}
        <DocsLink page="actions.md">action types</DocsLink>, <DocsLink page="workflows.md">workflow documents</DocsLink>.
        {!token.actions && (
          <>
            {' '}
            <strong>Custom actions are off for this token:</strong> turn them on in <a href={href({ view: 'token', token: token.uuid, tab: 'settings' })}>Settings</a>.
          </>
        )}
      </p>
      <div class="ae-mode" role="group" aria-label="Editor">
        <button type="button" class="btn small" aria-pressed={mode === 'visual'} onClick={() => setMode('visual')}>
          Visual
        </button>
        <button type="button" class="btn small" aria-pressed={mode === 'yaml'} onClick={() => setMode('yaml')}>
          YAML
        </button>
      </div>
      {mode === 'visual' ? (
        <ActionEditor
          token={token}
          text={text}
          errors={fieldErrors}
          onText={(t) => {
            setText(t);
            setDirty(true);
          }}
        />
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
          onInput={(e) => {
            setText((e.currentTarget as HTMLTextAreaElement).value);
            setDirty(true);
          }}
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
        <button class="btn primary" type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save workflow'}
        </button>
        {status && (
          <p class={status.ok ? 'ok-text' : 'field-error'} role={status.ok ? 'status' : 'alert'}>
            {status.text}
          </p>
        )}
      </div>
    </form>
  );
}
