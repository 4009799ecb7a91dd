// Forwards a stored HTTP request to a URL through the server (POST .../forward): the request's
// headers and body go along, with its method or another; the target's answer is shown.
import { useState } from 'preact/hooks';
import type { ApiError } from './api';
import { HttpMessage, headerPairs } from './HttpMessage';
import { lastForwardUrl, setLastForwardUrl } from './request-prefs';
import { forwardRequest, type ForwardResult } from './requests-api';
import { ErrorNotice } from './ui';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

interface Props {
  tokenId: string;
  requestId: string;
  method: string;
  onClose: () => void;
}

export function RequestForward({ tokenId, requestId, method, onClose }: Props) {
  const [url, setUrl] = useState(lastForwardUrl);
  const [as, setAs] = useState('');
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<ForwardResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const urlError = error?.errors.url?.join(' ') ?? null;

  async function send(e: Event) {
    e.preventDefault();
    setSending(true);
    setError(null);
    setResult(null);
    try {
      setResult(await forwardRequest(tokenId, requestId, url.trim(), as || undefined));
      setLastForwardUrl(url.trim());
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setSending(false);
    }
  }

  return (
    <section class="tool-panel" aria-labelledby="forward-title">
      <div class="section-head">
        <h3 id="forward-title">Forward this request</h3>
        <button type="button" class="btn small" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="hint small">The server sends it with its headers and body to the URL, and shows the answer. Addresses the outbound policy refuses cannot be reached.</p>
      <form class="forward-form" onSubmit={send}>
        <div class="field grow">
          <label for="forward-url">Target URL</label>
          <input
            id="forward-url"
            type="url"
            required
            placeholder="https://example.com/webhook"
            value={url}
            aria-invalid={urlError ? true : undefined}
            aria-describedby={urlError ? 'forward-url-error' : undefined}
            onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="forward-method">Method</label>
          <select id="forward-method" value={as} onChange={(e) => setAs((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">As sent ({method})</option>
            {METHODS.filter((m) => m !== method).map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <button class="btn primary" type="submit" disabled={sending || !url.trim()}>
          {sending ? 'Sending…' : 'Forward'}
        </button>
      </form>
      {urlError ? (
        <p id="forward-url-error" class="field-error" role="alert">
          {urlError}
        </p>
      ) : (
        error && <ErrorNotice error={error} />
      )}
      {result && (
        <div role="status" class="forward-result">
          <h4 class="result-head">
            Answer of <code class="wrap">{result.url}</code>
          </h4>
          <HttpMessage
            id="forward-answer"
            label="Forward answer"
            status={result.status}
            headers={headerPairs(result.headers)}
            body={result.body}
            encoding={result.body_encoding}
            contentType={result.headers['content-type']?.[0]}
            size={result.size}
            truncated={result.truncated}
            facts={
              <span class="hint small">
                {' '}
                {result.method} in {result.time < 1 ? `${Math.round(result.time * 1000)} ms` : `${result.time.toFixed(2)} s`}
              </span>
            }
          />
        </div>
      )}
    </section>
  );
}
