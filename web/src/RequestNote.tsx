// A request's note: shown, and edited in place (PUT /token/{id}/request/{id}/note).
import { useState } from 'preact/hooks';
import type { ApiError } from './api';
import { saveNote, type ViewedRequest } from './requests-api';
import { announce } from './ui';

interface Props {
  tokenId: string;
  r: ViewedRequest;
  onSaved: (r: ViewedRequest) => void;
}

export function RequestNote({ tokenId, r, onSaved }: Props) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(r.note ?? '');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  async function save(e: Event) {
    e.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const updated = await saveNote(tokenId, r.uuid, text.trim() ? text : null);
      onSaved(updated);
      setEditing(false);
      announce('Note saved');
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setSaving(false);
    }
  }

  return (
    <section class="note" aria-labelledby="note-title">
      <div class="section-head">
        <h3 id="note-title">Note</h3>
        {!editing && (
          <button
            type="button"
            class="btn small"
            onClick={() => {
              setText(r.note ?? '');
              setEditing(true);
            }}
          >
            {r.note ? 'Edit note' : 'Add a note'}
          </button>
        )}
      </div>
      {editing ? (
        <form onSubmit={save}>
          <label for="note-text" class="sr-only">
            Note
          </label>
          <textarea
            id="note-text"
            rows={3}
            maxLength={10_000}
            value={text}
            autoFocus
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'note-error' : undefined}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          />
          {error && (
            <p id="note-error" class="field-error" role="alert">
              {error.errors.note?.join(' ') ?? error.message}
            </p>
          )}
          <div class="form-actions">
            <button class="btn small primary" type="submit" disabled={saving}>
              {saving ? 'Saving…' : 'Save note'}
            </button>
            <button class="btn small" type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : r.note ? (
        <p class="note-text">{r.note}</p>
      ) : (
        <p class="hint">
          No note. Notes are searchable (<code>note:…</code>).
        </p>
      )}
    </section>
  );
}
