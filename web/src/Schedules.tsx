// Schedules (periodic outgoing requests with response checks, and an alert on the target's TLS
// certificate) and their logs. They belong to a user and are shared with their team, so they need
// the API key; a group puts one in a group, and a user limited to groups sees only theirs.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, enc, type FieldErrors, type Page } from './api';
import { useApiKey } from './settings';
import { formatDateTime, formatTime, parseApiTime } from './format';
import { href, navigate } from './route';
import { ErrorNotice, FieldError, NotAvailable, Spinner, announce, fieldErrorId, Pager, TableHead } from './ui';
import { groupName, useGroups, useSession } from './account/api';
import { GroupFilter } from './GroupFilter';

export interface Schedule {
  id: number;
  name: string;
  interval: string;
  cron: string | null;
  request_method: string;
  request_url: string;
  request_headers: string | null;
  request_body: string | null;
  timeout: number | null;
  require_body: string | null;
  require_status_min: number | null;
  require_status_max: number | null;
  tls_expiry_alert_days: number | null;
  group_id: number | null;
  last_run_at: string | null;
  last_status: unknown;
  created_at: string;
  updated_at: string;
}

export interface ScheduleLog {
  id: number;
  schedule_id: number;
  response_status: number | null;
  response_headers: Record<string, string[] | string> | null;
  response_body: string | null;
  time: number | null;
  error: string | null;
  tls_expires_at: string | null;
  tls_days_left: number | null;
  tls_alert: string | null;
  created_at: string;
}

const INTERVALS = ['1-minute', '5-minute', '10-minute', 'hourly', 'daily', 'weekly', 'monthly', 'cron'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export function Schedules({ schedule, logs }: { schedule?: string; logs?: boolean }) {
  const key = useApiKey();
  if (!key) {
    return (
      <section class="panel narrow" aria-labelledby="sched-title">
        <h1 id="sched-title">Schedules</h1>
        <p>
          Schedules send a request on a timetable (every minute to monthly, or cron) and check the answer. They belong to a user: enter an API key with the <strong>API key</strong> button at the top to see and manage
          yours.
        </p>
      </section>
    );
  }
  if (schedule === 'new') return <ScheduleEditor />;
  if (schedule && logs) return <ScheduleLogs id={schedule} />;
  if (schedule) return <ScheduleEditor id={schedule} />;
  return <ScheduleList />;
}

function ScheduleList() {
  const [page, setPage] = useState(1);
  const [group, setGroup] = useState('');
  const [data, setData] = useState<Page<Schedule> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [reload, setReload] = useState(0);
  const groups = useGroups();
  const session = useSession();
  const limited = session.state === 'signed-in' && Boolean(session.me.group_ids);

  useEffect(() => {
    call<Page<Schedule>>('GET', `/schedules?page=${page}&per_page=25${group ? `&group_id=${enc(group)}` : ''}`).then(setData, setError);
  }, [page, group, reload]);

  if (error?.notAvailable) return <NotAvailable what="Schedules" />;
  return (
    <section class="panel" aria-labelledby="sched-title">
      <div class="section-head">
        <h1 id="sched-title">Schedules</h1>
        <a class="btn primary" href={href({ view: 'schedules', schedule: 'new' })}>
          New schedule
        </a>
      </div>
      <p class="hint">
        {limited ? 'The schedules in the groups you are limited to' : 'Your team’s schedules'}
        {groups.length ? '; choose a group to see only its schedules' : ''}.
      </p>
      <GroupFilter
        id="sched-group-filter"
        groups={groups}
        value={group}
        onChange={(g) => {
          setGroup(g);
          setPage(1);
        }}
      />
      <ErrorNotice error={error} />
      {!data && !error && <Spinner label="Loading schedules" />}
      {data && data.data.length === 0 && <p class="hint">{group ? 'No schedules in this group.' : 'No schedules yet.'}</p>}
      {data && data.data.length > 0 && (
        <div class="table-wrap">
          <table class="cards-on-phone">
            <TableHead columns={['Name', 'Interval', 'Group', 'Request', 'Last run', 'Actions']} />
            <tbody>
              {data.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={href({ view: 'schedules', schedule: String(s.id) })}>{s.name || `Schedule ${s.id}`}</a>
                  </td>
                  <td data-label="Interval">{s.interval === 'cron' ? <code>{s.cron}</code> : s.interval}</td>
                  <td data-label="Group">{s.group_id == null ? <span class="hint">none</span> : groupName(groups, s.group_id)}</td>
                  <td class="wrap url-cell" data-label="Request">
                    <code>
                      {s.request_method} {s.request_url}
                    </code>
                  </td>
                  <td data-label="Last run">
                    {s.last_run_at ? formatDateTime(parseApiTime(s.last_run_at)) : 'never'}
                    {s.last_status !== null && s.last_status !== undefined && <span class="badge spaced">{String(s.last_status)}</span>}
                  </td>
                  <td>
                    <div class="row-actions">
                      <a class="btn small" href={href({ view: 'schedules', schedule: String(s.id), logs: true })} aria-label={`Logs of ${s.name || s.id}`}>
                        Logs
                      </a>
                      <RunNow id={s.id} name={s.name} onDone={() => setReload((n) => n + 1)} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.last_page > 1 && <Pager page={page} last={data.last_page} onPage={setPage} label="Schedule pages" />}
    </section>
  );
}

function RunNow({ id, name, onDone }: { id: number | string; name?: string; onDone?: () => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      class="btn small"
      type="button"
      disabled={busy}
      aria-label={`Run ${name || `schedule ${id}`} now`}
      onClick={async () => {
        setBusy(true);
        try {
          await call('POST', `/schedules/${enc(String(id))}/run-now`);
          announce('Schedule ran');
          onDone?.();
        } catch (e) {
          alert((e as Error).message);
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? 'Running…' : 'Run now'}
    </button>
  );
}

interface ScheduleForm {
  name: string;
  interval: string;
  cron: string;
  request_method: string;
  request_url: string;
  request_headers: string;
  request_body: string;
  timeout: string;
  require_body: string;
  require_status_min: string;
  require_status_max: string;
  tls_expiry_alert_days: string;
  group_id: string;
}

const EMPTY: ScheduleForm = {
  name: '',
  interval: 'hourly',
  cron: '',
  request_method: 'GET',
  request_url: '',
  request_headers: '',
  request_body: '',
  timeout: '10',
  require_body: '',
  require_status_min: '',
  require_status_max: '',
  tls_expiry_alert_days: '',
  group_id: '',
};

const toForm = (s: Schedule): ScheduleForm => ({
  name: s.name ?? '',
  interval: s.interval,
  cron: s.cron ?? '',
  request_method: s.request_method,
  request_url: s.request_url,
  request_headers: s.request_headers ?? '',
  request_body: s.request_body ?? '',
  timeout: s.timeout === null || s.timeout === undefined ? '' : String(s.timeout),
  require_body: s.require_body ?? '',
  require_status_min: s.require_status_min === null || s.require_status_min === undefined ? '' : String(s.require_status_min),
  require_status_max: s.require_status_max === null || s.require_status_max === undefined ? '' : String(s.require_status_max),
  tls_expiry_alert_days: s.tls_expiry_alert_days === null || s.tls_expiry_alert_days === undefined ? '' : String(s.tls_expiry_alert_days),
  group_id: s.group_id === null || s.group_id === undefined ? '' : String(s.group_id),
});

const F = 'schedule';

function ScheduleEditor({ id }: { id?: string }) {
  const [form, setForm] = useState<ScheduleForm | null>(id ? null : EMPTY);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const groups = useGroups();
  const session = useSession();
  const limitedTo = session.state === 'signed-in' ? (session.me.group_ids ?? null) : null;
  // A user limited to groups makes new schedules only in one of them: the first is chosen for them.
  useEffect(() => {
    if (!id && limitedTo?.length && form && form.group_id === '') setForm({ ...form, group_id: String(limitedTo[0]) });
  }, [id, limitedTo?.[0]]);

  useEffect(() => {
    if (!id) return;
    call<Schedule>('GET', `/schedules/${enc(id)}`).then((s) => setForm(toForm(s)), setLoadError);
  }, [id]);

  if (loadError?.notAvailable) return <NotAvailable what="Schedules" />;
  if (loadError) return <ErrorNotice error={loadError} />;
  if (!form) return <Spinner label="Loading the schedule" />;

  const set = (k: keyof ScheduleForm, v: string) => setForm({ ...form, [k]: v });
  const optNum = (s: string) => (s.trim() === '' ? null : Number(s));
  const input = (k: keyof ScheduleForm, label: string, props: Record<string, unknown> = {}) => (
    <div class={`field${props.wide ? ' wide' : ''}`}>
      <label for={`s-${k}`}>{label}</label>
      <input
        id={`s-${k}`}
        value={form[k]}
        aria-invalid={errors[k] ? true : undefined}
        aria-describedby={errors[k] ? fieldErrorId(F, k) : undefined}
        onInput={(e) => set(k, (e.currentTarget as HTMLInputElement).value)}
        {...{ ...props, wide: undefined }}
      />
      <FieldError form={F} field={k} errors={errors} />
    </div>
  );

  async function save(e: Event) {
    e.preventDefault();
    if (!form) return;
    setSaving(true);
    setErrors({});
    setMessage(null);
    const body = {
      name: form.name,
      interval: form.interval,
      cron: form.interval === 'cron' ? form.cron : null,
      request_method: form.request_method,
      request_url: form.request_url,
      request_headers: form.request_headers,
      request_body: form.request_body,
      timeout: optNum(form.timeout) ?? undefined,
      require_body: form.require_body || null,
      require_status_min: optNum(form.require_status_min),
      require_status_max: optNum(form.require_status_max),
      tls_expiry_alert_days: optNum(form.tls_expiry_alert_days),
      group_id: optNum(form.group_id),
    };
    try {
      const s = await call<Schedule>(id ? 'PUT' : 'POST', id ? `/schedules/${enc(id)}` : '/schedules', { json: body });
      announce('Schedule saved');
      if (!id) navigate({ view: 'schedules', schedule: String(s.id) }, true);
      else setMessage('Saved.');
    } catch (err) {
      const ae = err as ApiError;
      if (ae.notAvailable) setMessage('Schedules are not available on this server.');
      else {
        setErrors(ae.errors);
        setMessage(ae.message);
      }
    } finally {
      setSaving(false);
    }
  }

  return (
    <form class="panel" onSubmit={save} aria-labelledby="sched-edit-title" noValidate>
      <a class="back" href={href({ view: 'schedules' })}>
        ← All schedules
      </a>
      <div class="section-head">
        <h1 id="sched-edit-title">{id ? `Schedule ${form.name || id}` : 'New schedule'}</h1>
        {id && (
          <div class="row-actions">
            <a class="btn small" href={href({ view: 'schedules', schedule: id, logs: true })}>
              Logs
            </a>
            <RunNow id={id} name={form.name} />
          </div>
        )}
      </div>
      <div class="grid">
        {input('name', 'Name', { type: 'text', wide: true })}
        <div class="field">
          <label for="s-interval">Interval</label>
          <select id="s-interval" value={form.interval} onChange={(e) => set('interval', (e.currentTarget as HTMLSelectElement).value)}>
            {INTERVALS.map((i) => (
              <option key={i} value={i}>
                {i}
              </option>
            ))}
          </select>
          <FieldError form={F} field="interval" errors={errors} />
        </div>
        {form.interval === 'cron' && input('cron', 'Cron expression', { type: 'text', placeholder: '*/5 * * * *', spellcheck: false })}
        <div class="field">
          <label for="s-group_id">Group</label>
          <select
            id="s-group_id"
            value={form.group_id}
            aria-invalid={errors.group_id ? true : undefined}
            aria-describedby={errors.group_id ? fieldErrorId(F, 'group_id') : undefined}
            onChange={(e) => set('group_id', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">No group</option>
            {form.group_id && !groups.some((g) => String(g.id) === form.group_id) && <option value={form.group_id}>{groupName(groups, Number(form.group_id))}</option>}
            {groups.map((g) => (
              <option key={g.id} value={String(g.id)}>
                {g.name}
              </option>
            ))}
          </select>
          <FieldError form={F} field="group_id" errors={errors} />
        </div>
      </div>
      <div class="grid">
        <div class="field">
          <label for="s-request_method">Method</label>
          <select id="s-request_method" value={form.request_method} onChange={(e) => set('request_method', (e.currentTarget as HTMLSelectElement).value)}>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        {input('request_url', 'URL', { type: 'url', wide: true, placeholder: 'https://example.com/health', spellcheck: false })}
        {input('timeout', 'Timeout (seconds, 1–30)', { type: 'number', min: 1, max: 30 })}
      </div>
      <div class="field">
        <label for="s-request_headers">Headers (one per line, Name: value)</label>
        <textarea
          id="s-request_headers"
          class="mono"
          rows={3}
          spellcheck={false}
          value={form.request_headers}
          aria-describedby={errors.request_headers ? fieldErrorId(F, 'request_headers') : undefined}
          onInput={(e) => set('request_headers', (e.currentTarget as HTMLTextAreaElement).value)}
        />
        <FieldError form={F} field="request_headers" errors={errors} />
      </div>
      <div class="field">
        <label for="s-request_body">Body</label>
        <textarea
          id="s-request_body"
          class="mono"
          rows={4}
          spellcheck={false}
          value={form.request_body}
          aria-describedby={errors.request_body ? fieldErrorId(F, 'request_body') : undefined}
          onInput={(e) => set('request_body', (e.currentTarget as HTMLTextAreaElement).value)}
        />
        <FieldError form={F} field="request_body" errors={errors} />
      </div>
      <h2>Checks</h2>
      <div class="grid">
        {input('require_body', 'Response body must contain', { type: 'text', wide: true })}
        {input('require_status_min', 'Lowest accepted status', { type: 'number', min: 100, max: 599 })}
        {input('require_status_max', 'Highest accepted status', { type: 'number', min: 100, max: 599 })}
        {input('tls_expiry_alert_days', 'Alert when the TLS certificate expires within (days; https)', { type: 'number', min: 1, max: 365, placeholder: 'off', wide: true })}
      </div>
      <div class="form-actions">
        <button class="btn primary" type="submit" disabled={saving}>
          {saving ? 'Saving…' : id ? 'Save schedule' : 'Create schedule'}
        </button>
        {id && (
          <button
            class="btn danger"
            type="button"
            onClick={async () => {
              if (!confirm('Delete this schedule and its logs?')) return;
              try {
                await call('DELETE', `/schedules/${enc(id)}`);
                announce('Schedule deleted');
                navigate({ view: 'schedules' });
              } catch (err) {
                setMessage((err as Error).message);
              }
            }}
          >
            Delete schedule
          </button>
        )}
        {message && (
          <p class={Object.keys(errors).length || message !== 'Saved.' ? 'field-error' : 'ok-text'} role="status">
            {message}
          </p>
        )}
      </div>
    </form>
  );
}

function ScheduleLogs({ id }: { id: string }) {
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page<ScheduleLog> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    call<Page<ScheduleLog>>('GET', `/schedules/${enc(id)}/logs?sorting=newest&page=${page}`).then((d) => {
      setData(d);
      setError(null);
    }, setError);
  }, [id, page, reload]);

  if (error?.notAvailable) return <NotAvailable what="Schedule logs" />;
  return (
    <section class="panel" aria-labelledby="logs-title">
      <a class="back" href={href({ view: 'schedules', schedule: id })}>
        ← Schedule {id}
      </a>
      <div class="section-head">
        <h1 id="logs-title">Runs of schedule {id}</h1>
        <div class="row-actions">
          <RunNow id={id} onDone={() => setReload((n) => n + 1)} />
          <button class="btn small" type="button" onClick={() => setReload((n) => n + 1)}>
            Refresh
          </button>
        </div>
      </div>
      <ErrorNotice error={error} />
      {!data && !error && <Spinner label="Loading logs" />}
      {data && data.data.length === 0 && <p class="hint">This schedule has not run yet.</p>}
      {data && data.data.length > 0 && (
        <ol class="logs">
          {data.data.map((l) => {
            const ok = l.error === null && l.response_status !== null && l.response_status < 400;
            return (
              <li key={l.id}>
                <details>
                  <summary>
                    <span class={`badge ${ok ? 'ok' : 'bad'}`}>{l.response_status ?? 'error'}</span> <time>{formatTime(parseApiTime(l.created_at))}</time>
                    {typeof l.time === 'number' && <span class="hint"> {Math.round(l.time * 1000)} ms</span>}
                    {l.error && <span class="field-error inline"> {l.error}</span>}
                    {l.tls_alert && <span class="field-error inline"> {l.tls_alert}</span>}
                    {!l.tls_alert && l.tls_days_left != null && <span class="hint"> TLS certificate: {l.tls_days_left} days left</span>}
                  </summary>
                  {l.response_headers && (
                    <pre class="code small">
                      <code>
                        {Object.entries(l.response_headers)
                          .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`)
                          .join('\n')}
                      </code>
                    </pre>
                  )}
                  {l.response_body && (
                    <pre class="code small">
                      <code>{l.response_body}</code>
                    </pre>
                  )}
                </details>
              </li>
            );
          })}
        </ol>
      )}
      {data && data.last_page > 1 && <Pager page={page} last={data.last_page} onPage={setPage} label="Log pages" labels={['Newer', 'Older']} />}
    </section>
  );
}
