// A text field (or text area) with the variables typeahead: typing `$` lists the variables this
// step can use with their values when known, `.` after one lists the keys under it, then modifiers.
// With `words` (an SQL statement on a hosted database), a word being typed outside a variable lists
// the names that complete it (sql-words.ts). ARIA combobox pattern with a listbox popup.
import type { InputHTMLAttributes, TextareaHTMLAttributes } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { wordAt } from './sql-words';
import { partialAt, suggest, type Suggestion } from './variables';

interface Props {
  id: string;
  value: string;
  onValue: (value: string) => void;
  variables: () => Suggestion[];
  multiline?: boolean;
  password?: boolean;
  invalid?: boolean;
  describedBy?: string;
  required?: boolean;
  placeholder?: string;
  /** Names completing the word at the caret (`qualifier.` before it, if any). */
  words?: (typed: string, qualifier: string | null) => Suggestion[];
  wordsLabel?: string;
}

interface Open {
  start: number;
  typed: string;
  items: Suggestion[];
  /** A name replacing the word typed, not a `$variable`. */
  word?: boolean;
}

export function VariableInput({ id, value, onValue, variables, multiline, password, invalid, describedBy, required, placeholder, words, wordsLabel = 'Names' }: Props) {
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [open, setOpen] = useState<Open | null>(null);
  const [active, setActive] = useState(0);
  const caret = useRef<number | null>(null);
  const listId = `${id}-variables`;

  // Puts the caret after an inserted variable once the new value is rendered.
  useLayoutEffect(() => {
    if (caret.current !== null && ref.current) {
      ref.current.setSelectionRange(caret.current, caret.current);
      caret.current = null;
    }
  });

  function refresh(text: string, at: number) {
    const p = partialAt(text, at);
    const w = !p && words ? wordAt(text, at) : null;
    const items = p ? suggest(variables(), p.typed) : w ? words!(w.typed, w.qualifier) : [];
    setOpen(items.length ? (p ? { ...p, items } : { start: w!.start, typed: w!.typed, items, word: true }) : null);
    setActive(0);
  }

  function pick(s: Suggestion) {
    const el = ref.current;
    if (!el || !open) return;
    const at = el.selectionStart ?? el.value.length;
    if (open.word) {
      const next = el.value.slice(0, open.start) + s.insert + el.value.slice(at);
      caret.current = open.start + s.insert.length;
      onValue(next);
      setOpen(null);
      return;
    }
    let after = el.value.slice(at);
    // The rest of a name already typed after the caret (and its closing `$`) is replaced too.
    if (s.complete) after = after.replace(/^[^\s$]*\$/, '');
    const inserted = `$${s.insert}${s.complete ? '$' : ''}`;
    const next = el.value.slice(0, open.start) + inserted + after;
    caret.current = open.start + inserted.length;
    onValue(next);
    if (s.complete) setOpen(null);
    else refresh(next, caret.current);
  }

  function onKeyDown(e: KeyboardEvent) {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = open.items.length;
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      pick(open.items[active]!);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setOpen(null);
    }
  }

  // A one-line text field is a combobox; HTML allows no such role on a text area or a password
  // field, which keep their own role and announce the list through aria-controls instead.
  const combobox = !multiline && !password;
  const common = {
    id,
    ref,
    value,
    ...(combobox ? { role: 'combobox' } : {}),
    'aria-autocomplete': 'list' as const,
    'aria-expanded': combobox ? open !== null : undefined,
    'aria-controls': listId,
    'aria-activedescendant': open ? `${listId}-${active}` : undefined,
    'aria-invalid': invalid ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
    'aria-required': required ? ('true' as const) : undefined,
    placeholder,
    spellcheck: false,
    autoComplete: 'off',
    onInput: (e: Event) => {
      const el = e.currentTarget as HTMLInputElement;
      onValue(el.value);
      refresh(el.value, el.selectionStart ?? el.value.length);
    },
    onKeyDown,
    onBlur: () => setOpen(null),
  };

  return (
    <div class="ae-var-input">
      {multiline ? (
        <textarea {...(common as TextareaHTMLAttributes<HTMLTextAreaElement>)} class="mono" rows={Math.min(10, Math.max(3, value.split('\n').length + 1))} />
      ) : (
        <input {...({ ...common, type: password ? 'password' : 'text' } as InputHTMLAttributes<HTMLInputElement>)} />
      )}
      <ul id={listId} role="listbox" class="ae-suggestions" aria-label={open?.word ? wordsLabel : 'Variables'} hidden={!open}>
        {open?.items.map((s, i) => (
          <li
            key={s.insert + s.label}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'active' : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              pick(s);
            }}
          >
            <code>{s.label}</code>
            <span>{s.detail}</span>
            {s.value !== undefined && (
              <code class="ae-sugg-value" title={s.value.length > 80 ? s.value.slice(0, 1000) : undefined}>
                <span class="sr-only">, value </span>
                {s.value === '' ? '(empty)' : s.value.length > 80 ? `${s.value.slice(0, 80)}…` : s.value}
              </code>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
