// Form fields from a JSON Schema object (a provider kind's credentials or settings, as
// /provider-types serves them): strings, URLs, numbers, booleans and enums, labelled from the
// field's name, described by its description, errors shown under the field they name.
import type { FieldErrors } from '../api';
import type { JsonSchema } from './api';

export type FieldValues = Record<string, string>;

/** `access_key_id` → "Access key ID". */
export function humanize(name: string): string {
  const words = name.split(/[_\s]+/).filter(Boolean);
  const fixed = words.map((w) => (/^(id|url|uri|api|ssh|sql)$/i.test(w) ? w.toUpperCase() : w.toLowerCase()));
  const s = fixed.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function typesOf(p: JsonSchema): string[] {
  const own = Array.isArray(p.type) ? p.type : p.type ? [p.type] : [];
  const nested = (p.anyOf ?? []).flatMap(typesOf);
  return [...new Set([...own, ...nested])].filter((t) => t !== 'null');
}

const multiLine = (name: string) => /private_key|certificate|pem/i.test(name);

/** The object to send: empty fields left out, booleans and numbers as such. */
export function collect(schema: JsonSchema, values: FieldValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const v = values[name];
    if (v === undefined || v === '') continue;
    const types = typesOf(p);
    if (types.includes('boolean') && (v === 'true' || v === 'false')) out[name] = v === 'true';
    else if (types.length > 0 && types.every((t) => t === 'number' || t === 'integer') && v.trim() !== '' && !Number.isNaN(Number(v))) out[name] = Number(v);
    else out[name] = v;
  }
  return out;
}

/** Required fields left empty, as 422-style errors (`prefix.field`), so the form need not ask the server. */
export function missing(schema: JsonSchema, values: FieldValues, prefix: string): FieldErrors {
  const out: FieldErrors = {};
  for (const name of schema.required ?? []) if (!(values[name] ?? '').trim()) out[`${prefix}.${name}`] = ['is required'];
  return out;
}

/** Current values of an object as form values (strings). */
export function toValues(obj: Record<string, unknown>): FieldValues {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)]));
}

export function SchemaFields(props: {
  schema: JsonSchema;
  /** Unique per form: element ids are `${idPrefix}-${field}`. */
  idPrefix: string;
  /** The 422 `errors` key of a field is `${errorPrefix}.${field}`. */
  errorPrefix: string;
  values: FieldValues;
  onChange: (values: FieldValues) => void;
  errors: FieldErrors;
  /** Credentials: never shown back, typed into password fields. */
  secret?: boolean;
  /** Fields already set on the server (editing credentials): left empty, they stay as they are. */
  alreadySet?: string[];
}) {
  const { schema, idPrefix, errorPrefix, values, onChange, errors, secret, alreadySet = [] } = props;
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return <p class="hint small">Nothing to fill in.</p>;
  const required = new Set(schema.required ?? []);
  return (
    <>
      {entries.map(([name, p]) => {
        const id = `${idPrefix}-${name}`;
        const errKey = `${errorPrefix}.${name}`;
        const msgs = errors[errKey];
        const helpId = p.description ? `${id}-help` : undefined;
        const errId = msgs?.length ? `${id}-error` : undefined;
        const describedBy = [helpId, errId].filter(Boolean).join(' ') || undefined;
        const types = typesOf(p);
        const value = values[name] ?? '';
        const set = (v: string) => onChange({ ...values, [name]: v });
        const isSet = alreadySet.includes(name);
        const common = { id, 'aria-invalid': msgs?.length ? true : undefined, 'aria-describedby': describedBy };
        let control;
        if (p.enum) {
          control = (
            <select {...common} value={value} onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}>
              {!required.has(name) && <option value="">(not set)</option>}
              {p.enum.map((o) => (
                <option key={String(o)} value={String(o)}>
                  {String(o)}
                </option>
              ))}
            </select>
          );
        } else if (types.includes('boolean')) {
          control = (
            <select {...common} value={value} onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">(default)</option>
              <option value="true">Yes</option>
              <option value="false">No</option>
            </select>
          );
        } else if (types.length > 0 && types.every((t) => t === 'number' || t === 'integer')) {
          control = <input {...common} type="number" min={p.minimum} max={p.maximum} value={value} onInput={(e) => set((e.currentTarget as HTMLInputElement).value)} />;
        } else if (multiLine(name)) {
          control = (
            <textarea
              {...common}
              class="mono"
              rows={5}
              spellcheck={false}
              autocomplete="off"
              placeholder={isSet ? 'Set: leave empty to keep it' : undefined}
              value={value}
              onInput={(e) => set((e.currentTarget as HTMLTextAreaElement).value)}
            />
          );
        } else {
          control = (
            <input
              {...common}
              type={(secret ? 'password' : p.format === 'uri' ? 'url' : 'text') as 'text'}
              autocomplete={secret ? 'new-password' : 'off'}
              spellcheck={false}
              placeholder={isSet ? 'Set: leave empty to keep it' : undefined}
              value={value}
              onInput={(e) => set((e.currentTarget as HTMLInputElement).value)}
            />
          );
        }
        return (
          <div class="field" key={name}>
            <label for={id}>
              {humanize(name)}
              {!required.has(name) && <span class="hint small"> (optional)</span>}
              {isSet && <span class="badge spaced">set</span>}
            </label>
            {control}
            {p.description && (
              <p class="hint small" id={helpId}>
                {p.description}
              </p>
            )}
            {msgs?.length ? (
              <p class="field-error" id={errId}>
                {msgs.join(' ')}
              </p>
            ) : null}
          </div>
        );
      })}
    </>
  );
}
