// The Database Manager of one hosted database (the /databases/{id}/tables API): its tables with
// their row estimates, a table's structure (columns, types, nullability, defaults, primary key;
// rename, drop) and its rows (paged, sorted, filtered by one column; added, edited and deleted by
// primary key). A table without a primary key is browsed read-only, as the API allows.
import { useEffect, useState } from 'preact/hooks';
import { call, enc, type Page } from '../api';
import { announce, Pager, Spinner, TableHead } from '../ui';
import { formErrors, formSummary, type DbColumn, type DbRow, type DbTable, type DbTableList } from './api';
import { InlineError } from './common';

/** An API failure as one line: the message, or each field's errors. */
function failure(e: unknown): string {
  const f = formErrors(e);
  return formSummary(f, () => false);
}

const tablePath = (db: string, table: string) => `/databases/${enc(db)}/tables/${enc(table)}`;

/** A cell as text: NULL, JSON for objects and arrays, the value otherwise. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** What an input holds for a value (empty for NULL). */
const inputText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** A typed value back: empty is NULL except for text columns (where it is an empty string). */
function typedValue(text: string, column: DbColumn): unknown {
  if (text !== '') return text;
  return /^(text|character|char|varchar)/.test(column.type) ? '' : null;
}

/** `refresh` changes when something else (the SQL box) may have changed the tables. */
export function DatabaseManager({ id, refresh, onChanged }: { id: string; refresh: number; onChanged: () => void }) {
  const [list, setList] = useState<DbTableList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  async function load(select?: string | null) {
    try {
      const l = await call<DbTableList>('GET', `/databases/${enc(id)}/tables`);
      setList(l);
      setError(null);
      if (select !== undefined) setSelected(select);
      else setSelected((s) => (s && l.data.some((t) => t.name === s) ? s : null));
    } catch (e) {
      setError(failure(e));
    }
  }
  useEffect(() => void load(), [id, refresh]);

  const changed = (select?: string | null) => {
    void load(select);
    onChanged();
  };
  const table = list?.data.find((t) => t.name === selected) ?? null;

  return (
    <>
      <section class="panel" aria-labelledby="dbm-title" data-testid="db-manager">
        <div class="section-head">
          <h2 id="dbm-title">Tables</h2>
          <button class="btn small" type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
            {creating ? 'Cancel new table' : 'New table'}
          </button>
        </div>
        <InlineError error={error} />
        {!list && !error && <Spinner label="Loading tables" />}
        {list && list.data.length === 0 && !creating && <p class="hint">No tables yet: create one here, or with a query below.</p>}
        {list && list.data.length > 0 && (
          <ul class="dbm-tables" aria-label="Tables">
            {list.data.map((t) => (
              <li key={t.name}>
                <button class={`btn dbm-table${t.name === selected ? ' active' : ''}`} type="button" aria-pressed={t.name === selected} onClick={() => setSelected(t.name === selected ? null : t.name)}>
                  <strong class="mono">{t.name}</strong>
                  <span class="hint small">
                    {t.columns.length} {t.columns.length === 1 ? 'column' : 'columns'} · {t.rows_estimate >= 10_000 ? '~' : ''}
                    {t.rows_estimate} {t.rows_estimate === 1 ? 'row' : 'rows'}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {creating && list && (
          <CreateTable
            db={id}
            types={list.column_types}
            expressions={list.default_expressions}
            onCreated={(t) => {
              setCreating(false);
              announce(`Table ${t.name} created`);
              changed(t.name);
            }}
          />
        )}
      </section>
      {table && list && <TableStructure key={`s-${table.name}`} db={id} table={table} types={list.column_types} expressions={list.default_expressions} onChanged={changed} />}
      {table && <RowBrowser key={`r-${table.name}-${table.columns.map((c) => c.name + c.type).join()}-${table.primary_key.join()}`} db={id} table={table} onChanged={() => void load()} />}
    </>
  );
}

interface ColumnDraft {
  name: string;
  type: string;
  nullable: boolean;
  defaultMode: string; // '' none, 'value', or a named expression
  defaultValue: string;
  primary_key: boolean;
}

const blankColumn = (): ColumnDraft => ({ name: '', type: 'text', nullable: true, defaultMode: '', defaultValue: '', primary_key: false });

/** The default fields of the API from a draft. */
function defaultFields(d: Pick<ColumnDraft, 'defaultMode' | 'defaultValue'>): { default?: string; default_expression?: string } {
  if (d.defaultMode === 'value') return { default: d.defaultValue };
  if (d.defaultMode) return { default_expression: d.defaultMode };
  return {};
}

function TypeList({ id, types }: { id: string; types: string[] }) {
  return (
    <datalist id={id}>
      {types.map((t) => (
        <option key={t} value={t} />
      ))}
    </datalist>
  );
}

function DefaultPicker({
  idBase,
  draft,
  expressions,
  onChange,
  keepLabel,
}: {
  idBase: string;
  draft: Pick<ColumnDraft, 'defaultMode' | 'defaultValue'>;
  expressions: string[];
  onChange: (d: Pick<ColumnDraft, 'defaultMode' | 'defaultValue'>) => void;
  keepLabel?: string;
}) {
  return (
    <div class="dbm-default">
      <select id={`${idBase}-mode`} aria-label="Default" value={draft.defaultMode} onChange={(e) => onChange({ ...draft, defaultMode: (e.currentTarget as HTMLSelectElement).value })}>
        {keepLabel && <option value="keep">{keepLabel}</option>}
        <option value="">no default</option>
        <option value="value">a value…</option>
        {expressions.map((x) => (
          <option key={x} value={x}>
            {x}
          </option>
        ))}
      </select>
      {draft.defaultMode === 'value' && (
        <input id={`${idBase}-value`} type="text" aria-label="Default value" value={draft.defaultValue} onInput={(e) => onChange({ ...draft, defaultValue: (e.currentTarget as HTMLInputElement).value })} />
      )}
    </div>
  );
}

function CreateTable({ db, types, expressions, onCreated }: { db: string; types: string[]; expressions: string[]; onCreated: (t: DbTable) => void }) {
  const [name, setName] = useState('');
  const [columns, setColumns] = useState<ColumnDraft[]>([{ ...blankColumn(), name: 'id', type: 'serial', nullable: false, primary_key: true }, blankColumn()]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (i: number, patch: Partial<ColumnDraft>) => setColumns(columns.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <form
      class="acct-subform"
      noValidate
      aria-labelledby="dbm-new-title"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const body = { name, columns: columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable, primary_key: c.primary_key, ...defaultFields(c) })) };
          onCreated(await call<DbTable>('POST', `/databases/${enc(db)}/tables`, { json: body }));
        } catch (err) {
          setError(failure(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h3 id="dbm-new-title">New table</h3>
      <TypeList id="dbm-types" types={types} />
      <div class="field acct-narrow-field">
        <label for="dbm-new-name">Table name</label>
        <input id="dbm-new-name" type="text" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <div class="table-wrap">
        <table class="dbm-grid acct-table cards-on-phone">
          <TableHead columns={['Column', 'Type', 'Nullable', 'Default', 'Primary key']} hidden="Remove" />
          <tbody>
            {columns.map((c, i) => (
              <tr key={i}>
                <td data-label="Column">
                  <input id={`dbm-new-col-${i}-name`} type="text" aria-label={`Column ${i + 1} name`} value={c.name} onInput={(e) => set(i, { name: (e.currentTarget as HTMLInputElement).value })} />
                </td>
                <td data-label="Type">
                  <input id={`dbm-new-col-${i}-type`} type="text" list="dbm-types" aria-label={`Column ${i + 1} type`} value={c.type} onInput={(e) => set(i, { type: (e.currentTarget as HTMLInputElement).value })} />
                </td>
                <td data-label="Nullable">
                  <input
                    type="checkbox"
                    aria-label={`Column ${i + 1} nullable`}
                    checked={c.nullable && !c.primary_key}
                    disabled={c.primary_key}
                    onChange={(e) => set(i, { nullable: (e.currentTarget as HTMLInputElement).checked })}
                  />
                </td>
                <td data-label="Default">
                  <DefaultPicker idBase={`dbm-new-col-${i}-default`} draft={c} expressions={expressions} onChange={(d) => set(i, d)} />
                </td>
                <td data-label="Primary key">
                  <input type="checkbox" aria-label={`Column ${i + 1} in the primary key`} checked={c.primary_key} onChange={(e) => set(i, { primary_key: (e.currentTarget as HTMLInputElement).checked })} />
                </td>
                <td>
                  <button class="btn small" type="button" aria-label={`Remove column ${i + 1}`} disabled={columns.length === 1} onClick={() => setColumns(columns.filter((_, j) => j !== i))}>
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="form-actions">
        <button class="btn" type="button" onClick={() => setColumns([...columns, blankColumn()])}>
          Add a column
        </button>
        <button class="btn primary" type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create table'}
        </button>
      </div>
      <InlineError error={error} />
    </form>
  );
}

function TableStructure({ db, table, types, expressions, onChanged }: { db: string; table: DbTable; types: string[]; expressions: string[]; onChanged: (select?: string | null) => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [newName, setNewName] = useState(table.name);
  const [key, setKey] = useState<string[]>(table.primary_key);
  const path = tablePath(db, table.name);

  async function act(what: () => Promise<unknown>, done: string, select?: string | null) {
    setError(null);
    try {
      await what();
      announce(done);
      onChanged(select);
      return true;
    } catch (e) {
      setError(failure(e));
      return false;
    }
  }
  const keyChanged = key.join('\u0000') !== table.primary_key.join('\u0000');

  return (
    <section class="panel" aria-labelledby="dbm-structure-title" data-testid="db-structure">
      <div class="section-head">
        <h2 id="dbm-structure-title">
          Structure of <span class="mono">{table.name}</span>
        </h2>
        <div class="row-actions">
          <button
            class="btn small danger"
            type="button"
            onClick={() => {
              if (confirm(`Drop the table ${table.name} with all its rows? This cannot be undone.`)) void act(() => call('DELETE', path), `Table ${table.name} dropped`, null);
            }}
          >
            Drop table
          </button>
        </div>
      </div>
      <TypeList id="dbm-types-edit" types={types.filter((t) => !t.endsWith('serial'))} />
      <div class="table-wrap">
        <table class="dbm-grid acct-table cards-on-phone" aria-label={`Columns of ${table.name}`}>
          <TableHead columns={['Column', 'Type', 'Nullable', 'Default', 'Key']} hidden="Actions" />
          <tbody>
            {table.columns.map((c) =>
              editing === c.name ? (
                <EditColumn
                  key={c.name}
                  column={c}
                  expressions={expressions}
                  onCancel={() => setEditing(null)}
                  onSave={(body) => act(() => call('PUT', `${path}/columns/${enc(c.name)}`, { json: body }), `Column ${c.name} changed`).then((ok) => ok && setEditing(null))}
                />
              ) : (
                <tr key={c.name}>
                  <td class="mono" data-label="Column">
                    <strong>{c.name}</strong>
                  </td>
                  <td class="mono" data-label="Type">
                    {c.type}
                  </td>
                  <td data-label="Nullable">{c.nullable ? 'yes' : 'no'}</td>
                  <td class="mono" data-label="Default">
                    {c.default ?? <span class="hint">none</span>}
                  </td>
                  <td data-label="Key">
                    <label class="check dbm-key">
                      <input type="checkbox" checked={key.includes(c.name)} onChange={(e) => setKey((e.currentTarget as HTMLInputElement).checked ? [...key, c.name] : key.filter((k) => k !== c.name))} />
                      <span class="sr-only">{c.name} in the primary key</span>
                      {key.includes(c.name) && <span class="hint small">{key.indexOf(c.name) + 1}</span>}
                    </label>
                  </td>
                  <td>
                    <div class="row-actions">
                      <button class="btn small" type="button" aria-label={`Change column ${c.name}`} onClick={() => setEditing(c.name)}>
                        Change
                      </button>
                      <button
                        class="btn small danger"
                        type="button"
                        aria-label={`Drop column ${c.name}`}
                        onClick={() => {
                          if (confirm(`Drop the column ${c.name} and its values?`)) void act(() => call('DELETE', `${path}/columns/${enc(c.name)}`), `Column ${c.name} dropped`);
                        }}
                      >
                        Drop
                      </button>
                    </div>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
      <div class="form-actions dbm-actions">
        <button class="btn" type="button" aria-expanded={adding} onClick={() => setAdding(!adding)}>
          {adding ? 'Cancel new column' : 'Add a column'}
        </button>
        <button
          class="btn"
          type="button"
          disabled={!keyChanged}
          onClick={() => void act(() => call('PUT', `${path}/primary-key`, { json: { columns: key } }), key.length ? `Primary key set to ${key.join(', ')}` : 'Primary key dropped')}
        >
          {key.length ? `Save primary key (${key.join(', ')})` : 'Drop primary key'}
        </button>
        <form
          class="copy-row dbm-rename"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => call('PUT', path, { json: { name: newName } }), `Table renamed to ${newName}`, newName.trim());
          }}
        >
          <label class="sr-only" for="dbm-rename">
            New table name
          </label>
          <input id="dbm-rename" type="text" value={newName} onInput={(e) => setNewName((e.currentTarget as HTMLInputElement).value)} />
          <button class="btn" type="submit" disabled={newName.trim() === table.name || !newName.trim()}>
            Rename
          </button>
        </form>
      </div>
      {adding && (
        <AddColumn
          path={path}
          expressions={expressions}
          onAdded={(name) => {
            announce(`Column ${name} added`);
            setAdding(false);
            onChanged();
          }}
        />
      )}
      <InlineError error={error} />
    </section>
  );
}

function EditColumn({ column, expressions, onCancel, onSave }: { column: DbColumn; expressions: string[]; onCancel: () => void; onSave: (body: Record<string, unknown>) => void }) {
  const [d, setD] = useState({ name: column.name, type: column.type, nullable: column.nullable, defaultMode: 'keep', defaultValue: '' });
  const body = () => {
    const b: Record<string, unknown> = {};
    if (d.name !== column.name) b.name = d.name;
    if (d.type !== column.type) b.type = d.type;
    if (d.nullable !== column.nullable) b.nullable = d.nullable;
    if (d.defaultMode === '') b.default = null;
    else if (d.defaultMode !== 'keep') Object.assign(b, defaultFields(d));
    return b;
  };
  const idBase = `dbm-edit-${column.name.replace(/[^\w-]/g, '_')}`;
  return (
    <tr class="dbm-editing">
      <td data-label="Column">
        <input id={`${idBase}-name`} type="text" aria-label="Column name" value={d.name} onInput={(e) => setD({ ...d, name: (e.currentTarget as HTMLInputElement).value })} />
      </td>
      <td data-label="Type">
        <input id={`${idBase}-type`} type="text" list="dbm-types-edit" aria-label="Column type" value={d.type} onInput={(e) => setD({ ...d, type: (e.currentTarget as HTMLInputElement).value })} />
      </td>
      <td data-label="Nullable">
        <input type="checkbox" aria-label="Nullable" checked={d.nullable} onChange={(e) => setD({ ...d, nullable: (e.currentTarget as HTMLInputElement).checked })} />
      </td>
      <td data-label="Default">
        <DefaultPicker idBase={`${idBase}-default`} draft={d} expressions={expressions} keepLabel={column.default ? `keep ${column.default}` : 'keep (none)'} onChange={(x) => setD({ ...d, ...x })} />
      </td>
      <td />
      <td>
        <div class="row-actions">
          <button class="btn small primary" type="button" disabled={Object.keys(body()).length === 0} onClick={() => onSave(body())}>
            Save
          </button>
          <button class="btn small" type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </td>
    </tr>
  );
}

function AddColumn({ path, expressions, onAdded }: { path: string; expressions: string[]; onAdded: (name: string) => void }) {
  const [d, setD] = useState<ColumnDraft>(blankColumn());
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="acct-subform dbm-add-column"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          await call('POST', `${path}/columns`, { json: { name: d.name, type: d.type, nullable: d.nullable, ...defaultFields(d) } });
          onAdded(d.name);
        } catch (err) {
          setError(failure(err));
        }
      }}
    >
      <div class="dbm-inline">
        <label>
          Name
          <input id="dbm-add-name" type="text" value={d.name} onInput={(e) => setD({ ...d, name: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <label>
          Type
          <input id="dbm-add-type" type="text" list="dbm-types-edit" value={d.type} onInput={(e) => setD({ ...d, type: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <label class="check">
          <input type="checkbox" checked={d.nullable} onChange={(e) => setD({ ...d, nullable: (e.currentTarget as HTMLInputElement).checked })} /> Nullable
        </label>
        <DefaultPicker idBase="dbm-add-default" draft={d} expressions={expressions} onChange={(x) => setD({ ...d, ...x })} />
        <button class="btn primary" type="submit">
          Add column
        </button>
      </div>
      <InlineError error={error} />
    </form>
  );
}

type RowsPage = Page<DbRow> & { primary_key: string[] };

function RowBrowser({ db, table, onChanged }: { db: string; table: DbTable; onChanged: () => void }) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<{ column: string; order: 'asc' | 'desc' } | null>(null);
  const [filter, setFilter] = useState({ column: '', value: '' });
  const [applied, setApplied] = useState<{ column: string; value: string } | null>(null);
  const [rows, setRows] = useState<RowsPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [checked, setChecked] = useState<Set<number>>(new Set());
  const path = tablePath(db, table.name);
  const keyed = table.primary_key.length > 0;

  async function load() {
    const q = new URLSearchParams({ page: String(page), per_page: '25' });
    if (sort) {
      q.set('sort', sort.column);
      q.set('order', sort.order);
    }
    if (applied) {
      q.set('filter_column', applied.column);
      q.set('filter_value', applied.value);
    }
    try {
      setRows(await call<RowsPage>('GET', `${path}/rows?${q.toString()}`));
      setError(null);
      setChecked(new Set());
    } catch (e) {
      setError(failure(e));
    }
  }
  useEffect(() => void load(), [page, sort?.column, sort?.order, applied?.column, applied?.value]);

  const keyOf = (r: DbRow) => Object.fromEntries(table.primary_key.map((k) => [k, r[k]]));
  const reload = () => {
    void load();
    onChanged();
  };

  return (
    <section class="panel" aria-labelledby="dbm-rows-title" data-testid="db-rows">
      <div class="section-head">
        <h2 id="dbm-rows-title">
          Rows of <span class="mono">{table.name}</span>
        </h2>
        <div class="row-actions">
          {keyed && (
            <button class="btn small" type="button" aria-expanded={adding} onClick={() => setAdding(!adding)}>
              {adding ? 'Cancel new row' : 'Add a row'}
            </button>
          )}
          {keyed && (
            <button
              class="btn small danger"
              type="button"
              disabled={checked.size === 0}
              onClick={async () => {
                if (!rows || !confirm(`Delete ${checked.size} ${checked.size === 1 ? 'row' : 'rows'}?`)) return;
                try {
                  const r = await call<{ deleted: number }>('POST', `${path}/rows/delete`, { json: { keys: [...checked].map((i) => keyOf(rows.data[i]!)) } });
                  announce(`${r.deleted} ${r.deleted === 1 ? 'row' : 'rows'} deleted`);
                  reload();
                } catch (e) {
                  setError(failure(e));
                }
              }}
            >
              Delete selected{checked.size ? ` (${checked.size})` : ''}
            </button>
          )}
        </div>
      </div>
      {!keyed && <p class="hint small">This table has no primary key, so its rows are shown read-only: give it a key above to edit rows here, or change them with a query.</p>}
      <form
        class="dbm-inline dbm-filter"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied(filter.column ? { ...filter } : null);
        }}
      >
        <label>
          Where
          <select value={filter.column} onChange={(e) => setFilter({ ...filter, column: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">(all rows)</option>
            {table.columns.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          equals
          <input type="text" value={filter.value} disabled={!filter.column} onInput={(e) => setFilter({ ...filter, value: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <button class="btn" type="submit">
          Filter
        </button>
      </form>
      {adding && (
        <RowForm
          table={table}
          title="New row"
          submit="Add row"
          onSubmit={async (values) => {
            await call('POST', `${path}/rows`, { json: { values } });
            announce('Row added');
            setAdding(false);
            reload();
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      <InlineError error={error} />
      {!rows && !error && <Spinner label="Loading rows" />}
      {rows && (
        <>
          <div class="table-wrap">
            <table class="acct-rows dbm-rows" aria-label={`Rows of ${table.name}`}>
              <thead>
                <tr>
                  {keyed && (
                    <th scope="col">
                      <span class="sr-only">Select</span>
                    </th>
                  )}
                  {table.columns.map((c) => {
                    const current = sort?.column === c.name ? sort.order : null;
                    return (
                      <th scope="col" key={c.name} aria-sort={current === 'asc' ? 'ascending' : current === 'desc' ? 'descending' : undefined}>
                        <button class="btn link dbm-sort" type="button" onClick={() => setSort({ column: c.name, order: current === 'asc' ? 'desc' : 'asc' })}>
                          {c.name}
                          {current === 'asc' ? ' ▲' : current === 'desc' ? ' ▼' : ''}
                        </button>
                      </th>
                    );
                  })}
                  {keyed && (
                    <th scope="col">
                      <span class="sr-only">Edit</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {rows.data.map((r, i) =>
                  editing === i ? (
                    <tr key={`e${i}`} class="dbm-editing">
                      <td colSpan={table.columns.length + 2}>
                        <RowForm
                          table={table}
                          row={r}
                          title="Edit row"
                          submit="Save row"
                          onSubmit={async (values) => {
                            await call('PUT', `${path}/rows`, { json: { key: keyOf(r), values } });
                            announce('Row saved');
                            setEditing(null);
                            reload();
                          }}
                          onCancel={() => setEditing(null)}
                        />
                      </td>
                    </tr>
                  ) : (
                    <tr key={i}>
                      {keyed && (
                        <td>
                          <input
                            type="checkbox"
                            aria-label={`Select row ${table.primary_key.map((k) => cellText(r[k])).join(', ')}`}
                            checked={checked.has(i)}
                            onChange={(e) => {
                              const next = new Set(checked);
                              if ((e.currentTarget as HTMLInputElement).checked) next.add(i);
                              else next.delete(i);
                              setChecked(next);
                            }}
                          />
                        </td>
                      )}
                      {table.columns.map((c) => (
                        <td key={c.name} class={r[c.name] === null ? 'hint' : undefined}>
                          {cellText(r[c.name])}
                        </td>
                      ))}
                      {keyed && (
                        <td>
                          <button class="btn small" type="button" aria-label={`Edit row ${table.primary_key.map((k) => cellText(r[k])).join(', ')}`} onClick={() => setEditing(i)}>
                            Edit
                          </button>
                        </td>
                      )}
                    </tr>
                  ),
                )}
              </tbody>
            </table>
          </div>
          {rows.data.length === 0 && <p class="hint">{applied ? 'No row matches the filter.' : 'No rows yet.'}</p>}
          <Pager page={page} last={rows.last_page} onPage={setPage} label={`Pages of ${table.name}`} labels={['← Previous', 'Next →']} class="dbm-pager" statusClass="hint small" announce>
            Page {rows.current_page} of {rows.last_page} · {rows.total} {rows.total === 1 ? 'row' : 'rows'}
          </Pager>
        </>
      )}
    </section>
  );
}

/** A row's values: new (empty fields get the column default) or edited (only changed fields are sent). */
function RowForm({ table, row, title, submit, onSubmit, onCancel }: { table: DbTable; row?: DbRow; title: string; submit: string; onSubmit: (values: DbRow) => Promise<void>; onCancel: () => void }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(table.columns.map((c) => [c.name, row ? inputText(row[c.name]) : ''])));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const idBase = row ? 'dbm-row-edit' : 'dbm-row-new';
  return (
    <form
      class="acct-subform dbm-row-form"
      noValidate
      aria-label={title}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        const out: DbRow = {};
        for (const c of table.columns) {
          const text = values[c.name] ?? '';
          if (row ? text === inputText(row[c.name]) : text === '') continue;
          out[c.name] = typedValue(text, c);
        }
        try {
          await onSubmit(out);
        } catch (err) {
          setError(failure(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="dbm-row-fields">
        {table.columns.map((c, i) => (
          <div class="field" key={c.name}>
            <label for={`${idBase}-${i}`}>
              <span class="mono">{c.name}</span> <span class="hint small">{c.type}</span>
            </label>
            <input
              id={`${idBase}-${i}`}
              type="text"
              class="mono"
              value={values[c.name]}
              placeholder={row ? (row[c.name] === null ? 'NULL' : '') : c.default ? `default: ${c.default}` : c.nullable ? 'NULL' : ''}
              onInput={(e) => setValues({ ...values, [c.name]: (e.currentTarget as HTMLInputElement).value })}
            />
          </div>
        ))}
      </div>
      <div class="form-actions">
        <button class="btn primary" type="submit" disabled={busy}>
          {busy ? 'Saving…' : submit}
        </button>
        <button class="btn" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <InlineError error={error} />
    </form>
  );
}
