// What "Test until here" found: each step's output and the variables after it, errors in words
// naming the step, and the response the capture would have got. Nothing of it was stored.
import type { ActionType, TestRun } from './api';
import type { Item } from './model';

function VariablesTable({ vars, before }: { vars: Record<string, string>; before: Record<string, string> }) {
  const names = Object.keys(vars).sort();
  if (!names.length) return <p class="hint small">No variables set yet.</p>;
  return (
    <div class="table-wrap">
      <table class="ae-vars">
        <thead>
          <tr>
            <th scope="col">Variable</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {names.map((n) => (
            <tr key={n} class={before[n] !== vars[n] ? 'new' : undefined}>
              <th scope="row">
                <code>${n}$</code>
              </th>
              <td>
                <code>{vars[n]!.length > 300 ? `${vars[n]!.slice(0, 300)}…` : vars[n]}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TestResult({ run, until, items, types, requestLabel }: { run: TestRun; until: number; items: Item[]; types: Map<string, ActionType>; requestLabel: string }) {
  const r = run.result;
  const position = new Map(items.map((it, i) => [String(it.step.id ?? ''), i]));
  const titleOf = (action: string, type?: string) => {
    const i = position.get(action);
    const step = i === undefined ? undefined : items[i]!.step;
    const t = types.get(String(step?.type ?? type))?.title ?? type ?? 'action';
    return i === undefined ? t : `Step ${i + 1} (${t}${typeof step?.name === 'string' && step.name ? ` “${step.name}”` : ''})`;
  };
  const traces = r.steps ?? [];
  const ranIds = new Set(traces.map((t) => t.action));
  // Steps that did not run (off, or skipped by a condition) still show their output lines.
  const silent = Object.keys(r.output).filter((a) => !ranIds.has(a));
  const headers = Object.entries(r.response.headers ?? {});
  return (
    <section class="ae-result" aria-labelledby="ae-result-title">
      <h3 id="ae-result-title" tabIndex={-1}>
        Test result: steps 1 to {until + 1}
      </h3>
      <p class="hint small">
        Ran on {requestLabel}. Nothing was stored: not the request, not its output, not global variables.
        {r.stopped && ' A step stopped the chain.'}
        {r.dont_save && ' A step asked not to save the request.'}
      </p>
      {r.errors.length > 0 ? (
        <div class="notice error" role="alert">
          <p>
            <strong>
              {r.errors.length} error{r.errors.length === 1 ? '' : 's'}:
            </strong>
          </p>
          <ul>
            {r.errors.map((e, i) => (
              <li key={i}>
                {e.action ? `${titleOf(e.action)}: ` : ''}
                {e.message}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p class="ok-text" role="status">
          Every step ran without an error.
        </p>
      )}
      <ol class="ae-trace">
        {traces.map((t, i) => (
          <li key={`${t.action}-${i}`}>
            <h4>{titleOf(t.action, t.type)}</h4>
            {(r.output[t.action] ?? []).length > 0 ? (
              <pre class="ae-output" aria-label={`Output of ${titleOf(t.action, t.type)}`}>
                {(r.output[t.action] ?? []).join('\n')}
              </pre>
            ) : (
              <p class="hint small">No output.</p>
            )}
            <details open={i === traces.length - 1}>
              <summary>Variables after this step</summary>
              <VariablesTable vars={t.variables} before={i ? traces[i - 1]!.variables : {}} />
            </details>
          </li>
        ))}
        {silent.map((a) => (
          <li key={a}>
            <h4>{titleOf(a)}</h4>
            <pre class="ae-output">{r.output[a]!.join('\n')}</pre>
          </li>
        ))}
      </ol>
      <h4>Response that would be sent</h4>
      {r.response.status === null ? (
        <p class="hint small">The token’s default response: no step changed it.</p>
      ) : (
        <div class="ae-response">
          <p>
            Status <strong>{r.response.status}</strong>
          </p>
          {headers.length > 0 && (
            <ul class="plain-list mono">
              {headers.map(([k, v]) => (
                <li key={k}>
                  {k}: {v}
                </li>
              ))}
            </ul>
          )}
          <pre class="ae-output" aria-label="Response body">
            {r.response.content ?? ''}
          </pre>
        </div>
      )}
    </section>
  );
}
