// An HTTP answer shown in full: status, headers and body (pretty when it is JSON or XML, base64
// when it is bytes). Used for the response a capture sent back, a forward target's answer and the
// response a re-run of the actions would send.
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { bodyKind, formatSize, highlightJson, highlightXml } from './format';
import './requests.css';
import { KvTable } from './ui';

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  418: "I'm a teapot",
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** A status code coloured by its class, with its reason phrase. */
export function StatusCode({ status, short = false }: { status: number; short?: boolean }) {
  const reason = REASONS[status];
  return (
    <span class={`status-code s${Math.floor(status / 100)}xx`} title={reason ? `${status} ${reason}` : undefined}>
      {status}
      {!short && reason ? ` ${reason}` : ''}
    </span>
  );
}

interface Props {
  /** Unique prefix for the headings' ids. */
  id: string;
  /** What it is, for screen readers: "Response", "Target's answer". */
  label: string;
  status: number;
  headers: Array<[string, string]>;
  body: string;
  encoding: 'utf8' | 'base64';
  contentType?: string;
  size: number;
  truncated: boolean;
  /** Shown after the status (timing, where it came from). */
  facts?: ComponentChildren;
}

export function HttpMessage({ id, label, status, headers, body, encoding, contentType, size, truncated, facts }: Props) {
  const kind = useMemo(() => (encoding === 'base64' ? 'bytes' : bodyKind(body, contentType)), [body, encoding, contentType]);
  const pretty = useMemo(() => {
    try {
      if (kind === 'json') return highlightJson(body);
      if (kind === 'xml') return highlightXml(body);
    } catch {
      /* shown as sent */
    }
    return null;
  }, [body, kind]);
  return (
    <div class="http-message">
      <p class="http-status">
        <StatusCode status={status} />
        {facts}
      </p>
      <h4 id={`${id}-headers`} class="sub-head">
        Headers <span class="count">{headers.length}</span>
      </h4>
      <KvTable rows={headers} labelledBy={`${id}-headers`} />
      <h4 class="sub-head">
        Body <span class="count">{formatSize(size)}</span>
      </h4>
      {kind === 'empty' ? (
        <p class="hint">No body.</p>
      ) : (
        <>
          {(kind === 'bytes' || truncated) && (
            <p class="hint small body-facts">
              {kind === 'bytes' ? 'Not text: shown as base64.' : ''}
              {truncated ? ` Only the first ${formatSize(keptBytes(body, encoding))} were kept.` : ''}
            </p>
          )}
          <pre class={`code ${pretty ? 'pretty' : 'raw'}`} tabIndex={0} aria-label={`${label} body${kind === 'bytes' ? ' in base64' : ''}`}>
            <code>{pretty ?? body}</code>
          </pre>
        </>
      )}
    </div>
  );
}

function keptBytes(body: string, encoding: 'utf8' | 'base64'): number {
  return encoding === 'base64' ? Math.floor((body.replace(/=+$/, '').length * 3) / 4) : new TextEncoder().encode(body).length;
}

/** Header pairs of a `name -> value(s)` map. */
export function headerPairs(h: Record<string, string | string[]>): Array<[string, string]> {
  return Object.entries(h).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v] as [string, string]]));
}
