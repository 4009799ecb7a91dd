// Runs the token's actions again on a stored request (POST .../execute) and shows what they did:
// output per action, errors in words, and the response they would send. Nothing is stored.
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api';
import { showControls } from './format';
import { HttpMessage, headerPairs } from './HttpMessage';
import { actionErrorText, actionLabel, rerunActions, type ActionInfo, type RerunResult } from './requests-api';
import { ErrorNotice, Spinner } from './ui';

interface Props {
  tokenId: string;
  requestId: string;
  actions: ActionInfo[] | null;
  onClose: () => void;
}

export function RequestRerun({ tokenId, requestId, actions, onClose }: Props) {
  const [run, setRun] = useState(0);
  const [result, setResult] = useState<RerunResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    let stop = false;
    setResult(null);
    setError(null);
    rerunActions(tokenId, requestId).then(
      (r) => !stop && setResult(r),
      (e: ApiError) => !stop && setError(e),
    );
    return () => {
      stop = true;
    };
  }, [tokenId, requestId, run]);

  const output = result ? Object.entries(result.result.output) : [];
  const response = result?.result.response;
  return (
    <section class="tool-panel" aria-labelledby="rerun-title" aria-busy={!result && !error}>
      <div class="section-head">
        <h3 id="rerun-title">Actions run again</h3>
        <div class="toggle">
          <button type="button" class="btn small" disabled={!result && !error} onClick={() => setRun((n) => n + 1)}>
            Run again
          </button>
          <button type="button" class="btn small" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <p class="hint small">A trial on this request with the token's current actions: nothing is stored or changed.</p>
      {error && <ErrorNotice error={error} />}
      {!result && !error && <Spinner label="Running the actions" />}
      {result && (
        <div role="status" class="rerun-result">
          <p>
            {result.success ? <span class="badge">No errors</span> : <span class="badge bad">{result.result.errors.length === 1 ? '1 error' : `${result.result.errors.length} errors`}</span>}
            {result.result.stopped && <span class="badge spaced">Stopped the chain</span>}
            {result.result.dont_save && <span class="badge spaced">Would not be saved</span>}
          </p>
          {result.result.errors.length > 0 && <ActionErrors errors={result.result.errors} actions={actions} />}
          {output.length === 0 ? (
            <p class="hint">{actions && actions.length === 0 ? 'The token has no actions.' : 'The actions wrote no output.'}</p>
          ) : (
            <dl class="action-output">
              {output.map(([id, lines]) => (
                <Fragment key={id}>
                  <dt>{actionLabel(id, actions)}</dt>
                  <dd>
                    <pre class="code small raw">
                      <code>{lines.join('\n')}</code>
                    </pre>
                  </dd>
                </Fragment>
              ))}
            </dl>
          )}
          {(!response || response.status === null) && <p class="hint">They leave the token's default response as it is.</p>}
          {response && response.status !== null && (
            <>
              <h4 class="result-head">Response they would send</h4>
              <HttpMessage
                id="rerun-response"
                label="Re-run response"
                status={response.status}
                headers={headerPairs(response.headers ?? {})}
                body={response.content ?? ''}
                encoding="utf8"
                contentType={response.headers?.['Content-Type']}
                size={new TextEncoder().encode(response.content ?? '').length}
                truncated={false}
              />
            </>
          )}
        </div>
      )}
    </section>
  );
}

/** `custom_action_errors` as sentences naming the failing action. */
export function ActionErrors({ errors, actions }: { errors: unknown[]; actions: ActionInfo[] | null }) {
  return (
    <ul class="errors-list action-errors">
      {errors.map((e, i) => {
        const t = actionErrorText(e, actions);
        return (
          <li key={i}>
            <strong>{t.action}</strong> failed{t.message ? `: ${showControls(t.message)}` : '.'}
          </li>
        );
      })}
    </ul>
  );
}
