// One captured request in full: summary, note, headers, query, form fields, files, body (pretty and
// raw), the response sent back, action output and errors, "copy as curl", re-running the actions
// and forwarding it.
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { download, enc, saveBlob, type ApiError, type CapturedRequest, type FileMeta } from './api';
import { bodyKind, fileList, formatSize, headerEntries, headerValue, highlightJson, highlightXml, requestDate, linkify, methodLabel, requestPath, showControls, toCurl, toPostman } from './format';
import { bytesOfBase64, hexDump, HEX_VIEW_BYTES } from './hex-dump';
import { HttpMessage } from './HttpMessage';
import { RequestForward } from './RequestForward';
import { RequestNote } from './RequestNote';
import { ActionErrors, RequestRerun } from './RequestRerun';
import { getRequest, tokenActions, type ActionInfo, type ViewedRequest } from './requests-api';
import { href } from './route';
import { searchQuery } from './search-bus';
import { CopyButton, ErrorNotice, KvTable, SearchButton, Spinner } from './ui';
import './requests.css';

interface Props {
  tokenId: string;
  tokenRef: string;
  requestId: string;
  /** The request as the list already has it (the list carries full records). */
  known?: CapturedRequest;
  onDelete: (r: CapturedRequest) => Promise<void>;
}

export function RequestDetail({ tokenId, tokenRef, requestId, known, onDelete }: Props) {
  const [fetched, setFetched] = useState<ViewedRequest | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  // Fetched even when the list has it: a live event does not carry a default response, and a note
  // saved here must stay shown.
  useEffect(() => {
    getRequest(tokenId, requestId).then(setFetched, (e: ApiError) => (known ? undefined : setError(e)));
  }, [tokenId, requestId]);

  const r = fetched ?? (known as ViewedRequest | undefined);
  const back = (
    <a class="back" href={href({ view: 'token', token: tokenRef, tab: 'requests' })}>
      ← All requests
    </a>
  );
  if (error) {
    return (
      <div class="detail">
        {back}
        <ErrorNotice error={error} />
      </div>
    );
  }
  if (!r) return <Spinner label="Loading the request" />;
  return <Detail r={r} tokenId={tokenId} back={back} onDelete={onDelete} onChanged={setFetched} />;
}

type Tool = { kind: 'forward' } | { kind: 'rerun' } | null;

function Detail({ r, tokenId, back, onDelete, onChanged }: { r: ViewedRequest; tokenId: string; back: ComponentChildren; onDelete: Props['onDelete']; onChanged: (r: ViewedRequest) => void }) {
  const [tool, setTool] = useState<Tool>(null);
  const [actions, setActions] = useState<ActionInfo[] | null>(null);
  const date = requestDate(r);
  const files = fileList(r);
  // A repeated key (`?tags[]=a&tags[]=b`) gets a row per value: `query` keeps only the last.
  const query = r.query_all ? Object.entries(r.query_all).flatMap(([k, values]) => values.map((v): [string, unknown] => [k, v])) : Object.entries(r.query ?? {});
  // Form fields by name, as webhook.site lists them.
  const form = Object.entries(r.request ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const headers = headerEntries(r.headers);
  const contentType = headerValue(r, 'content-type');
  const outputs = Array.isArray(r.custom_action_output) ? r.custom_action_output : [];
  const errors = Array.isArray(r.custom_action_errors) ? r.custom_action_errors : [];
  const isHttp = r.type !== 'email' && r.type !== 'dns';
  // The token's actions name the failing ones (errors hold their IDs).
  const needActions = errors.length > 0 || tool?.kind === 'rerun';
  useEffect(() => {
    if (needActions && actions === null) tokenActions(tokenId).then(setActions, () => setActions([]));
  }, [needActions, tokenId]);

  return (
    <article class="detail" aria-labelledby="detail-title">
      {back}
      <header class="detail-head">
        <h2 id="detail-title">
          <span class={`method m-${r.method.toLowerCase()}`}>{methodLabel(r)}</span>{' '}
          {r.http_version && (
            <>
              <span class="http-version" title="HTTP version">
                HTTP/{r.http_version}
              </span>{' '}
            </>
          )}
          <span class="path">{requestPath(r)}</span>
        </h2>
        <div class="detail-actions">
          {isHttp && (
            <CopyButton text={toCurl(r)} label="Copy as curl">
              Copy as curl
            </CopyButton>
          )}
          <CopyButton text={`${location.origin}/token/${tokenId}/request/${r.uuid}`} label="Copy as API URL">
            Copy as API URL
          </CopyButton>
          {isHttp && (
            <button
              type="button"
              class="btn small"
              title="A Postman collection holding this request"
              onClick={() => {
                const url = URL.createObjectURL(new Blob([toPostman(r)], { type: 'application/json' }));
                const a = Object.assign(document.createElement('a'), { href: url, download: `request-${r.uuid}.postman_collection.json` });
                document.body.append(a);
                a.click();
                a.remove();
                setTimeout(() => URL.revokeObjectURL(url), 10_000);
              }}
            >
              Open in Postman
            </button>
          )}
          <button type="button" class="btn small" aria-pressed={tool?.kind === 'rerun'} onClick={() => setTool(tool?.kind === 'rerun' ? null : { kind: 'rerun' })}>
            Re-run actions
          </button>
          {isHttp && (
            <button type="button" class="btn small" aria-pressed={tool?.kind === 'forward'} onClick={() => setTool(tool?.kind === 'forward' ? null : { kind: 'forward' })}>
              Forward
            </button>
          )}
          <button
            class="btn small danger"
            type="button"
            onClick={() => {
              if (confirm('Delete this request?')) void onDelete(r);
            }}
          >
            Delete
          </button>
        </div>
      </header>
      <dl class="facts">
        {r.type === 'email' ? (
          <>
            <dt>From</dt>
            <dd>{r.sender || headerValue(r, 'from') || ''}</dd>
            <dt>To</dt>
            <dd>{(r.destinations ?? []).join(', ')}</dd>
            <dt>Subject</dt>
            <dd>{r.subject ?? ''}</dd>
          </>
        ) : r.type === 'dns' && r.dns ? (
          <>
            <dt>Query</dt>
            <dd>
              <code>
                {r.dns.type} {r.dns.name}
              </code>{' '}
              {r.dns.protocol ? `over ${r.dns.protocol.toUpperCase()}` : ''}
            </dd>
          </>
        ) : (
          <>
            <dt>URL</dt>
            <dd>
              <code class="wrap">{r.url}</code>
            </dd>
          </>
        )}
        <dt>Received</dt>
        <dd>
          <time dateTime={date?.toISOString()} title={`${r.created_at} UTC`}>
            {date ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : r.created_at}
          </time>
        </dd>
        <dt>{r.type === 'email' ? 'Sent by' : 'From'}</dt>
        <dd>
          {r.ip}
          {r.hostname && r.type === 'web' ? ` → ${r.hostname}` : ''}
        </dd>
        {r.country && (
          <>
            <dt>Location</dt>
            <dd>{[r.city, r.region, r.country].filter(Boolean).join(', ')}</dd>
          </>
        )}
        <dt>Size</dt>
        <dd>{formatSize(r.size)}</dd>
        {typeof r.time === 'number' && r.time > 0 && (
          <>
            <dt>Answered in</dt>
            <dd>{r.time < 0.001 ? 'under 1 ms' : r.time < 1 ? `${Math.round(r.time * 1000)} ms` : `${r.time.toFixed(2)} s`}</dd>
          </>
        )}
        <dt>ID</dt>
        <dd>
          <code>{r.uuid}</code>
        </dd>
      </dl>

      {tool?.kind === 'rerun' && <RequestRerun tokenId={tokenId} requestId={r.uuid} actions={actions} onClose={() => setTool(null)} />}
      {tool?.kind === 'forward' && <RequestForward tokenId={tokenId} requestId={r.uuid} method={r.method} onClose={() => setTool(null)} />}

      <RequestNote key={r.uuid} tokenId={tokenId} r={r} onSaved={onChanged} />

      {r.type === 'email' && <MailBody r={r} />}
      {r.type !== 'dns' && <Body r={r} tokenId={tokenId} contentType={contentType} title={r.type === 'email' ? 'Message source' : 'Body'} />}

      {r.type !== 'email' && r.type !== 'dns' && <KeyValues title="Query" field="query" rows={query.map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])} empty="No query string." />}
      {form.length > 0 && <KeyValues title="Form fields" field="request" rows={form.map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])} />}
      {files.length > 0 && <Files files={files} r={r} tokenId={tokenId} />}
      {r.type !== 'dns' && <KeyValues title="Headers" field="headers" rows={headers} />}

      {r.response && <SentResponseSection r={r} />}

      {(outputs.length > 0 || errors.length > 0) && (
        <section aria-labelledby="actions-out">
          <h3 id="actions-out">Custom action output</h3>
          {errors.length > 0 && <ActionErrors errors={errors} actions={actions} />}
          {outputs.length > 0 && (
            <pre class="code small action-output-lines">
              <code>
                {outputs.map((o, i) => {
                  const line = typeof o === 'string' ? o : JSON.stringify(o);
                  const q = searchQuery('custom_action_output', line);
                  return (
                    <span class="out-line" key={i}>
                      {showControls(line)}
                      {q && <SearchButton query={q} what={`output line ${i + 1}`} />}
                      {'\n'}
                    </span>
                  );
                })}
              </code>
            </pre>
          )}
        </section>
      )}
    </article>
  );
}

/** What the capture URL answered. */
function SentResponseSection({ r }: { r: ViewedRequest }) {
  const sent = r.response!;
  return (
    <section aria-labelledby="sent-title" class="sent-response">
      <h3 id="sent-title">Response sent back</h3>
      <HttpMessage
        id="sent"
        label="Response"
        status={sent.status}
        headers={Object.entries(sent.headers)}
        body={sent.body}
        encoding={sent.body_encoding}
        contentType={sent.content_type}
        size={sent.size}
        truncated={sent.truncated}
        facts={<span class="hint small"> {sent.source === 'default' ? "the token's default response" : 'set by actions or the set-response API'}</span>}
      />
    </section>
  );
}

function KeyValues({ title, rows, empty, field }: { title: string; rows: Array<[string, string]>; empty?: string; field?: string }) {
  const id = `kv-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>
        {title} <span class="count">{rows.length}</span>
      </h3>
      {rows.length === 0 ? <p class="hint">{empty ?? 'None.'}</p> : <KvTable rows={rows} search={field ? (k, v) => searchQuery(`${field}.${field === 'headers' ? k.toLowerCase() : k}`, v) : undefined} />}
    </section>
  );
}

function Files({ files, r, tokenId }: { files: FileMeta[]; r: CapturedRequest; tokenId: string }) {
  return (
    <section aria-labelledby="files-title">
      <h3 id="files-title">
        Files <span class="count">{files.length}</span>
      </h3>
      <ul class="files">
        {files.map((f) => {
          const url = `/token/${enc(tokenId)}/request/${enc(r.uuid)}/download/${enc(f.id)}`;
          return (
            <li key={f.id}>
              <a
                href={url}
                download={f.filename}
                onClick={(e) => {
                  // The API may need the Api-Key header, which a plain link cannot send.
                  e.preventDefault();
                  download(url, f.filename, tokenId).catch((err: Error) => alert(err.message));
                }}
              >
                {f.filename || f.id}
              </a>{' '}
              <span class="hint">
                {f.name} · {f.content_type} · {formatSize(f.size)}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The text and HTML parts of an e-mail; HTML in a sandboxed frame (no scripts, no remote images). */
function MailBody({ r }: { r: CapturedRequest }) {
  const [view, setView] = useState<'text' | 'html'>(r.text_content ? 'text' : 'html');
  if (!r.text_content && !r.html_content) return null;
  return (
    <section aria-labelledby="mail-title">
      <div class="section-head">
        <h3 id="mail-title">Message</h3>
        <div class="toggle" role="group" aria-label="Message view">
          <button type="button" class="btn small" aria-pressed={view === 'text'} disabled={!r.text_content} onClick={() => setView('text')}>
            Text
          </button>
          <button type="button" class="btn small" aria-pressed={view === 'html'} disabled={!r.html_content} onClick={() => setView('html')}>
            HTML
          </button>
        </div>
      </div>
      {view === 'text' ? (
        <pre class="code raw" tabIndex={0} aria-label="Message text">
          <code>{linkify(r.text_content ?? '')}</code>
        </pre>
      ) : (
        <iframe class="mail-html" title="Message HTML" sandbox="" srcdoc={r.html_content ?? ''} />
      )}
    </section>
  );
}

/** What the service did with a body sent with a Content-Encoding. */
function CodingNote({ r }: { r: CapturedRequest }) {
  if (!r.content_encoding) return null;
  if (r.decoded) {
    return (
      <p class="hint small body-coding">
        Sent with Content-Encoding <code>{r.content_encoding}</code> ({formatSize(r.encoded_size ?? 0)}); shown decoded. Open raw gives the bytes as sent.
      </p>
    );
  }
  return (
    <p class="hint small body-coding" role="note">
      Sent with Content-Encoding <code>{r.content_encoding}</code>, kept as sent: {r.decode_error}
    </p>
  );
}

/** A body that is not text: a hex dump of its first HEX_VIEW_BYTES, and the whole of it to download. */
function BinaryBody({ r }: { r: CapturedRequest & { content_base64: string } }) {
  const bytes = useMemo(() => bytesOfBase64(r.content_base64), [r.content_base64]);
  const dump = useMemo(() => hexDump(bytes.subarray(0, HEX_VIEW_BYTES)), [bytes]);
  const save = () => saveBlob(new Blob([bytes], { type: 'application/octet-stream' }), `request-${r.uuid}.bin`);
  return (
    <>
      <p class="hint small">
        Not UTF-8 text: {formatSize(bytes.length)} shown as hex
        {bytes.length > HEX_VIEW_BYTES ? `, the first ${formatSize(HEX_VIEW_BYTES)} of them` : ''}.{' '}
        <button type="button" class="btn small" onClick={save}>
          Download the body
        </button>
      </p>
      <pre class="code body hex" tabIndex={0} aria-label="Body, hex dump">
        <code>{dump}</code>
      </pre>
    </>
  );
}

function Body({ r, tokenId, contentType, title }: { r: CapturedRequest; tokenId: string; contentType?: string; title: string }) {
  const binary = r.content_base64 !== undefined;
  const kind = useMemo(() => (binary ? 'binary' : bodyKind(r.content ?? '', contentType)), [r.content, contentType, binary]);
  const [view, setView] = useState<'pretty' | 'raw'>('pretty');
  const pretty = useMemo(() => {
    try {
      if (kind === 'json') return highlightJson(r.content);
      if (kind === 'xml') return highlightXml(r.content);
    } catch {
      /* shown raw */
    }
    return null;
  }, [r.content, kind]);
  const showPretty = view === 'pretty' && pretty !== null;

  return (
    <section aria-labelledby="body-title">
      <div class="section-head">
        <h3 id="body-title">
          {title} {kind === 'json' || kind === 'xml' ? <span class="badge">{kind.toUpperCase()}</span> : null}
        </h3>
        {kind === 'binary' && (
          <div class="toggle" role="group" aria-label="Body view">
            <a class="btn small" href={`/token/${enc(tokenId)}/request/${enc(r.uuid)}/raw`} target="_blank" rel="noopener noreferrer">
              Open raw
            </a>
          </div>
        )}
        {kind !== 'empty' && kind !== 'binary' && (
          <div class="toggle" role="group" aria-label="Body view">
            <button type="button" class="btn small" aria-pressed={showPretty} disabled={pretty === null} onClick={() => setView('pretty')}>
              Pretty
            </button>
            <button type="button" class="btn small" aria-pressed={!showPretty} onClick={() => setView('raw')}>
              Raw
            </button>
            <CopyButton text={r.content} label="Copy the body" />
            <a class="btn small" href={`/token/${enc(tokenId)}/request/${enc(r.uuid)}/raw`} target="_blank" rel="noopener noreferrer">
              Open raw
            </a>
          </div>
        )}
      </div>
      <CodingNote r={r} />
      {kind === 'empty' ? (
        <p class="hint">No body.</p>
      ) : binary ? (
        <BinaryBody r={r as CapturedRequest & { content_base64: string }} />
      ) : (
        <pre class={`code body ${showPretty ? 'pretty' : 'raw'}`} tabIndex={0} aria-label={showPretty ? `Body, formatted ${kind.toUpperCase()}` : 'Body, raw'}>
          <code>{showPretty ? pretty : r.content}</code>
        </pre>
      )}
    </section>
  );
}
