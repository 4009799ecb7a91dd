// Databases: the user's hosted SQL databases (the /databases API). Listed with their tables and
// size, created, deleted, and opened: the Database Manager (DatabaseManager.tsx) for its tables and
// rows, next to a box to run a query. A server without
// DATABASES_POSTGRES_URL answers 403: the screen says Databases are off and who can turn them on.
import { useRef, useState } from 'preact/hooks';
import { ApiError, call, enc, serverConfig, type FieldErrors, type Page } from '../api';
import { formatTime, parseApiTime } from '../format';
import { href, navigate } from '../route';
import { ErrorNotice, FieldError, Spinner, announce, fieldErrorId, TableHead } from '../ui';
import { formErrors, formSummary, formatBytes, type Database, type QueryAnswer } from './api';
import { Gate, InlineError, PageView, useLoad } from './common';
import { DatabaseManager } from './DatabaseManager';

const isOff = (e: ApiError | null) => e?.status === 403 && /DATABASES_POSTGRES_URL/.test(e.message);

/** Calls the Databases API only where databases are configured: elsewhere it would answer 403 (an error in the console). */
async function whenConfigured<T>(load: () => Promise<T>): Promise<T> {
  if ((await serverConfig()).databases === false) throw new ApiError(403, 'Databases are not configured on this server (DATABASES_POSTGRES_URL is not set)');
  return load();
}

function DatabasesOff({ error }: { error: ApiError }) {
  return (
    <section class="panel acct-gate" aria-labelledby="db-off-title" data-testid="databases-off">
      <h1 id="db-off-title">Databases are off on this server</h1>
      <p>{error.message}.</p>
      <p class="hint">
        They need a PostgreSQL server: the administrator sets <code>DATABASES_POSTGRES_URL</code> (for example <code>postgres://postgres@127.0.0.1:5432/capture</code>, a role that may create roles and schemas) and
        restarts the service. Each database then gets a schema and a login of its own there.
      </p>
    </section>
  );
}

export function Databases({ id }: { id?: string }) {
  return (
    <Gate title="Databases" what="Databases are SQL databases hosted for you: query them here, from the API, or from a JavaScript action with db(id)." needs="user">
      {() => (id ? <DatabaseDetail id={id} /> : <DatabaseList />)}
    </Gate>
  );
}

function DatabaseList() {
  const list = useLoad(() => whenConfigured(() => call<Page<Database>>('GET', '/databases?per_page=100')), []);
  if (isOff(list.error)) return <DatabasesOff error={list.error!} />;
  return (
    <>
      <section class="panel" aria-labelledby="db-title">
        <h1 id="db-title">Databases</h1>
        <p class="hint">
          Query one here, with <code>POST /databases/&lt;id&gt;/query</code>, or from a JavaScript action with <code>db(&apos;&lt;id&gt;&apos;)</code>.
        </p>
        <PageView list={list} loading="Loading databases" empty="No databases yet: create one below.">
          {(items) => (
            <div class="table-wrap">
              <table class="acct-table cards-on-phone">
                <TableHead columns={['Name', 'Tables', 'Size', 'Created']} hidden="Actions" />
                <tbody>
                  {items.map((d) => (
                    <tr key={d.id}>
                      <td data-label="Name">
                        <a href={href({ view: 'account', section: 'databases', id: d.id })}>{d.name}</a>
                        <div class="hint small mono">{d.id}</div>
                      </td>
                      <td data-label="Tables">{d.tables_used ?? 'unknown'}</td>
                      <td data-label="Size">{formatBytes(d.bytes_used)}</td>
                      <td data-label="Created">{formatTime(parseApiTime(d.created_at))}</td>
                      <td>
                        <DeleteDatabase db={d} onDeleted={list.reload} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </PageView>
      </section>
      <CreateDatabase />
    </>
  );
}

function DeleteDatabase({ db, onDeleted }: { db: Database; onDeleted: () => void }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        class="btn small danger"
        type="button"
        aria-label={`Delete ${db.name}`}
        onClick={async () => {
          if (!confirm(`Delete the database ${db.name} with all its tables and rows? This cannot be undone.`)) return;
          try {
            await call('DELETE', `/databases/${enc(db.id)}`);
            announce(`Database ${db.name} deleted`);
            onDeleted();
          } catch (e) {
            setError(formErrors(e).message);
          }
        }}
      >
        Delete
      </button>
      <InlineError error={error} />
    </>
  );
}

function CreateDatabase() {
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const F = 'db-new';
  return (
    <form
      class="panel"
      noValidate
      aria-labelledby="db-new-title"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setErrors({});
        setMessage(null);
        try {
          const d = await call<Database>('POST', '/databases', { json: { name } });
          announce(`Database ${d.name} created`);
          navigate({ view: 'account', section: 'databases', id: d.id });
        } catch (err) {
          const f = formErrors(err);
          setErrors(f.errors);
          setMessage(formSummary(f, (k) => k === 'name'));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 id="db-new-title">New database</h2>
      <div class="field">
        <label for="db-new-name">Name</label>
        <div class="copy-row">
          <input
            id="db-new-name"
            type="text"
            value={name}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? fieldErrorId(F, 'name') : undefined}
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
          <button class="btn primary" type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create database'}
          </button>
        </div>
        <FieldError form={F} field="name" errors={errors} />
      </div>
      {message && !errors.name && <InlineError error={message} />}
    </form>
  );
}

function DatabaseDetail({ id }: { id: string }) {
  const db = useLoad(() => whenConfigured(() => call<Database>('GET', `/databases/${enc(id)}`)), [id]);
  const [sql, setSql] = useState('');
  const [answer, setAnswer] = useState<QueryAnswer | null>(null);
  const [runError, setRunError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [refresh, setRefresh] = useState(0);
  const resultRef = useRef<HTMLDivElement>(null);

  if (isOff(db.error)) return <DatabasesOff error={db.error!} />;
  if (db.error) {
    return (
      <section class="panel">
        <a class="back" href={href({ view: 'account', section: 'databases' })}>
          ← All databases
        </a>
        <ErrorNotice error={db.error} />
      </section>
    );
  }
  if (!db.data) return <Spinner label="Opening the database" />;

  async function run(e?: Event) {
    e?.preventDefault();
    setRunning(true);
    setRunError(null);
    setAnswer(null);
    try {
      const a = await call<QueryAnswer>('POST', `/databases/${enc(id)}/query`, { json: { query: sql } });
      setAnswer(a);
      setRefresh((n) => n + 1);
      db.reload();
    } catch (err) {
      const f = formErrors(err);
      setRunError(f.errors.query ? `Query ${f.errors.query.join(' ')}.` : f.message);
    } finally {
      setRunning(false);
      resultRef.current?.focus();
    }
  }

  const d = db.data;
  return (
    <>
      <section class="panel" aria-labelledby="db-detail-title">
        <a class="back" href={href({ view: 'account', section: 'databases' })}>
          ← All databases
        </a>
        <h1 id="db-detail-title">{d.name}</h1>
        <dl class="acct-facts">
          <dt>ID</dt>
          <dd>
            <code>{d.id}</code>
          </dd>
          <dt>Size</dt>
          <dd>{formatBytes(d.bytes_used)}</dd>
          <dt>Tables</dt>
          <dd>{d.tables_used ?? 'unknown'}</dd>
        </dl>
      </section>
      <DatabaseManager id={id} refresh={refresh} onChanged={db.reload} />
      <form class="panel" onSubmit={run} aria-labelledby="db-query-title" noValidate>
        <h2 id="db-query-title">Query</h2>
        <label for="db-sql">SQL (one statement; PostgreSQL)</label>
        <textarea
          id="db-sql"
          class="mono"
          rows={6}
          spellcheck={false}
          value={sql}
          placeholder="create table orders (id serial primary key, total numeric)"
          aria-describedby="db-sql-hint"
          onInput={(e) => setSql((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void run(e);
          }}
        />
        <p class="hint small" id="db-sql-hint">
          Ctrl+Enter runs it. At most 1000 rows come back.
        </p>
        <div class="form-actions">
          <button class="btn primary" type="submit" disabled={running || !sql.trim()}>
            {running ? 'Running…' : 'Run query'}
          </button>
        </div>
      </form>
      <div class="panel acct-result" ref={resultRef} tabIndex={-1} aria-labelledby="db-result-title" role="region">
        <h2 id="db-result-title">Result</h2>
        {!answer && !runError && <p class="hint">Run a query to see its rows here.</p>}
        <InlineError error={runError} />
        {answer && <QueryResult answer={answer} />}
      </div>
    </>
  );
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function QueryResult({ answer }: { answer: QueryAnswer }) {
  // `time` is in milliseconds.
  const ms = `${answer.time < 10 ? answer.time.toFixed(1) : Math.round(answer.time)} ms`;
  if (answer.error) {
    return (
      <div class="notice error" role="alert">
        <p>
          <strong>The database refused the query:</strong> {answer.error}
        </p>
      </div>
    );
  }
  const rows = answer.result ?? [];
  if (rows.length === 0) {
    return (
      <p class="ok-text" role="status">
        Done in {ms}; no rows returned.
      </p>
    );
  }
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <>
      <p class="hint small" role="status">
        {rows.length} {rows.length === 1 ? 'row' : 'rows'} in {ms}
      </p>
      <div class="table-wrap">
        <table class="acct-rows">
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c} class={r[c] === null ? 'hint' : undefined}>
                    {cell(r[c])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
