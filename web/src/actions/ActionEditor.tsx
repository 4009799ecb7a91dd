// The visual action editor: the token's workflow document as a list of step forms. It edits the
// same document as the YAML view (Workflow.tsx): every change is written back as YAML text, and
// what it does not show (unknown fields, comments of an untouched document) is kept.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, type CapturedRequest, type FieldErrors, type Token } from '../api';
import { announce } from '../ui';
import { AddAction } from './AddAction';
import {
  actionTypes,
  globalVariables,
  providerTypes,
  providers as fetchProviders,
  queueProfiles as fetchQueueProfiles,
  recentRequests,
  testWorkflow,
  type ActionType,
  type Provider,
  type ProviderType,
  type QueueProfile,
  type TestRun,
} from './api';
import { duplicate, fromText, move, newItem, remove, stepPath, toDocument, toText, type Item, type Model, type Step } from './model';
import { explain, fieldsOf, humanize } from './schema';
import { StepCard, errorTarget } from './StepCard';
import { TestResult } from './TestResult';
import { availableVariables, requestValues } from './variables';
import './editor.css';

interface Props {
  token: Token;
  text: string;
  onText: (text: string) => void;
  /** The server's 422 errors of the last save, keyed `spec.steps.N.…`. */
  errors: FieldErrors;
}

/** The provider type an action type uses: its plugin's one, or the one its name starts with. */
function providerTypeFor(type: ActionType, kinds: ProviderType[]): string | undefined {
  const mine = kinds.filter((k) => k.plugin === type.plugin);
  if (mine.length === 1) return mine[0]!.type;
  return mine.find((k) => type.type.startsWith(`${k.type}_`))?.type;
}

const requestLabel = (r: CapturedRequest) => `${r.method} ${r.url.replace(/^https?:\/\/[^/]+/, '')} · ${r.created_at}`;

export function ActionEditor({ token, text, onText, errors }: Props) {
  const parsed = useMemo(() => fromText(text), []);
  const [model, setModel] = useState<Model | null>('model' in parsed ? parsed.model : null);
  const emitted = useRef(text);
  const [types, setTypes] = useState<ActionType[] | null>(null);
  const [typesError, setTypesError] = useState<string | null>(null);
  const [kinds, setKinds] = useState<ProviderType[]>([]);
  const [accounts, setAccounts] = useState<Record<string, Provider[]>>({});
  const [globals, setGlobals] = useState<Array<{ name: string; value?: string }>>([]);
  const [profiles, setProfiles] = useState<QueueProfile[]>([]);
  const [requests, setRequests] = useState<CapturedRequest[] | null>(null);
  const [requestId, setRequestId] = useState('');
  const [test, setTest] = useState<{ until: number; running: boolean; run?: TestRun; error?: string } | null>(null);
  const [testErrors, setTestErrors] = useState<FieldErrors>({});
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const focusKey = useRef<string | null>(null);

  // The document changed outside (a save answered with the stored document): read it again. Texts
  // this editor wrote lately are not news: a render may lag a keystroke behind.
  const recent = useRef<string[]>([text]);
  useLayoutEffect(() => {
    if (recent.current.includes(text)) return;
    recent.current = [text];
    emitted.current = text;
    const r = fromText(text);
    if ('model' in r) setModel(r.model);
  }, [text]);

  useEffect(() => {
    actionTypes().then(setTypes, (e: ApiError) => setTypesError(e.message));
    providerTypes().then(setKinds);
    globalVariables().then(setGlobals);
    fetchQueueProfiles().then(setProfiles);
    recentRequests(token.uuid).then(setRequests, () => setRequests([]));
  }, [token.uuid]);

  const typeMap = useMemo(() => new Map((types ?? []).map((t) => [t.type, t])), [types]);

  // The accounts of each provider type the chain uses, once.
  const providerKinds = useMemo(() => {
    const need = new Set<string>();
    for (const it of model?.items ?? []) {
      const t = typeMap.get(String(it.step.type));
      if (t && fieldsOf(t.schema).some((f) => f.kind === 'provider')) need.add(providerTypeFor(t, kinds) ?? '');
    }
    return [...need];
  }, [model, typeMap, kinds]);
  useEffect(() => {
    for (const k of providerKinds) if (!(k in accounts)) fetchProviders(k || undefined).then((list) => setAccounts((a) => ({ ...a, [k]: list })));
  }, [providerKinds.join(',')]);

  // After a move, add or duplicate: focus stays with the step that moved (before anything is typed).
  useLayoutEffect(() => {
    if (!focusKey.current) return;
    document.getElementById(`ae-${focusKey.current}-card`)?.focus();
    focusKey.current = null;
  });

  // Errors by step key, so they stay with their step when steps move.
  const errorsByKey = useMemo(() => {
    const out: Record<string, Record<string, string[]>> = {};
    const general: string[] = [];
    for (const [path, msgs] of Object.entries({ ...errors, ...testErrors })) {
      const at = stepPath(path);
      const item = at ? model?.items[at.step] : undefined;
      if (item && at) (out[item.key] ??= {})[at.field] = msgs;
      else general.push(...msgs.map((m) => (path === '_' || path === 'document' ? m : `${path}: ${m}`)));
    }
    return { out, general };
  }, [errors, testErrors, model === null]);

  if ('error' in parsed && !model) {
    return (
      <div class="notice error" role="alert">
        <p>{parsed.error}</p>
        <p>Fix it in the YAML view to use the visual editor.</p>
      </div>
    );
  }
  if (!model) return null;

  function update(next: Model) {
    setModel(next);
    const t = toText(next, emitted.current);
    emitted.current = t;
    recent.current = [...recent.current.slice(-19), t];
    onText(t);
  }
  const setItems = (items: Item[]) => update({ ...model!, items });
  const items = model.items;

  function moveTo(from: number, to: number) {
    if (to < 0 || to >= items.length || to === from) return;
    focusKey.current = items[from]!.key;
    setItems(move(items, from, to));
    announce(`Moved to position ${to + 1} of ${items.length}`);
  }

  async function runTest(until: number) {
    setTest({ until, running: true });
    setTestErrors({});
    try {
      const run = await testWorkflow(token.uuid, toDocument(model!), until, requestId || undefined);
      setTest({ until, running: false, run });
      announce(run.result.errors.length ? `Test finished with ${run.result.errors.length} error(s)` : 'Test finished');
      requestAnimationFrame(() => document.getElementById('ae-result-title')?.focus());
    } catch (e) {
      const ae = e as ApiError;
      if (ae.status === 422) setTestErrors(ae.errors);
      setTest({ until, running: false, error: ae.status === 422 ? 'The steps to test have problems: each is shown at its field.' : ae.message });
    }
  }

  const chosen = requests?.find((r) => r.uuid === requestId) ?? requests?.[0];
  // What the last test run set, by the position of each step it ran: the typeahead's names and values.
  const tested: Array<Record<string, string> | undefined> = [];
  for (const t of test?.run?.result.steps ?? []) {
    const at = items.findIndex((it) => it.step.id === t.action);
    if (at !== -1) tested[at] = t.variables;
  }
  const variableContext = { steps: items.map((x) => x.step), types: typeMap, globals, tested, request: requestValues(chosen) };
  // One line per field with a problem, worded as at the field itself.
  const problems = items.flatMap((it, i) => {
    const type = typeMap.get(String(it.step.type));
    const fields = type ? fieldsOf(type.schema) : [];
    return Object.entries(errorsByKey.out[it.key] ?? {}).map(([path, msgs]) => {
      const name = path.replace(/^parameters\./, '');
      const field = path.startsWith('parameters.') ? fields.find((f) => f.name === name) : undefined;
      const label = field?.label ?? (path === 'condition' ? 'Run only when' : humanize(name.split('.').pop() ?? name));
      return { key: it.key, i, path, title: type?.title ?? String(it.step.type), text: `${label}: ${msgs.map((m) => explain(field, m)).join('; ')}` };
    });
  });

  return (
    <div class="ae">
      {typesError && (
        <div class="notice error" role="alert">
          <p>The action types could not be loaded: {typesError}</p>
        </div>
      )}
      <div class="ae-toolbar">
        <div class="field ae-request">
          <label for="ae-request">Test on request</label>
          <select id="ae-request" value={requestId} onChange={(e) => setRequestId((e.currentTarget as HTMLSelectElement).value)} disabled={!requests?.length}>
            {requests === null && <option value="">Loading requests…</option>}
            {requests?.length === 0 && <option value="">No request yet: a sample POST</option>}
            {requests?.map((r, i) => (
              <option key={r.uuid} value={i === 0 ? '' : r.uuid}>
                {i === 0 ? 'Latest: ' : ''}
                {requestLabel(r)}
              </option>
            ))}
          </select>
        </div>
        <p class="hint small ae-keys">
          Type <code>$</code> in a field for variables. Move a focused step with Alt+↑ / Alt+↓.
        </p>
      </div>
      {(problems.length > 0 || errorsByKey.general.length > 0) && (
        <div class="notice error ae-problems" role="alert">
          <p>
            <strong>
              {problems.length + errorsByKey.general.length} field{problems.length + errorsByKey.general.length === 1 ? '' : 's'} to fix
            </strong>
            , each shown at its field:
          </p>
          <ul>
            {errorsByKey.general.map((m, i) => (
              <li key={`g${i}`}>{m}</li>
            ))}
            {problems.map((p, i) => (
              <li key={i}>
                <button type="button" class="btn link" onClick={() => document.getElementById(errorTarget(p.key, p.path))?.focus()}>
                  Step {p.i + 1} ({p.title})
                </button>
                {' · '}
                {p.text}
              </li>
            ))}
          </ul>
        </div>
      )}
      {items.length === 0 ? (
        <p class="ae-empty hint">No actions yet: captures get the token’s default response. Add one to start a chain.</p>
      ) : (
        <ol class="ae-steps" aria-label="Actions, in the order they run">
          {items.map((it, i) => (
            <StepCard
              key={it.key}
              item={it}
              index={i}
              count={items.length}
              type={typeMap.get(String(it.step.type))}
              earlier={items.slice(0, i).map((x) => x.step)}
              errors={errorsByKey.out[it.key] ?? {}}
              variables={() => availableVariables(variableContext, i)}
              providers={(() => {
                const t = typeMap.get(String(it.step.type));
                const k = t ? (providerTypeFor(t, kinds) ?? '') : '';
                return accounts[k] ?? null;
              })()}
              queueProfiles={profiles}
              testing={!!test?.running}
              dragging={dragFrom === i}
              onDragStart={() => setDragFrom(i)}
              onDrop={() => {
                if (dragFrom !== null) moveTo(dragFrom, i);
                setDragFrom(null);
              }}
              actions={{
                change: (step: Step) => setItems(items.map((x, j) => (j === i ? { ...x, step } : x))),
                move: (to) => moveTo(i, to),
                duplicate: () => {
                  const next = duplicate(items, i);
                  focusKey.current = next[i + 1]!.key;
                  setItems(next);
                  announce(`Step ${i + 1} duplicated`);
                },
                remove: () => {
                  setItems(remove(items, i));
                  announce(`Step ${i + 1} deleted`);
                },
                test: () => void runTest(i),
              }}
            />
          ))}
        </ol>
      )}
      {types && (
        <AddAction
          types={types}
          onAdd={(type) => {
            const it = newItem(type);
            focusKey.current = it.key;
            setItems([...items, it]);
            announce(`${typeMap.get(type)?.title ?? type} added as step ${items.length + 1}`);
          }}
        />
      )}
      {test && !test.running && test.error && (
        <div class="notice error" role="alert">
          <p>Test not run: {test.error}</p>
        </div>
      )}
      {test?.run && <TestResult run={test.run} until={test.until} items={items} types={typeMap} requestLabel={chosen ? requestLabel(chosen) : 'a sample POST request'} />}
    </div>
  );
}
