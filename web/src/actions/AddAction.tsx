// "Add action": every creatable action type, grouped by category, searchable, with descriptions.
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ActionType } from './api';
import { InlineMarkdown } from '../inline-markdown';
import { humanize } from './schema';

export function AddAction({ types, onAdd }: { types: ActionType[]; onAdd: (type: string) => void }) {
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  const search = useRef<HTMLInputElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  useLayoutEffect(() => {
    if (open) search.current?.focus();
  }, [open]);

  const groups = useMemo(() => {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    const match = (t: ActionType) => words.every((w) => `${t.title} ${t.type} ${t.category} ${t.description}`.toLowerCase().includes(w));
    const by = new Map<string, ActionType[]>();
    for (const t of types.filter((t) => t.creatable && match(t))) by.set(t.category, [...(by.get(t.category) ?? []), t]);
    return [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([c, list]) => [c, list.sort((a, b) => a.title.localeCompare(b.title))] as const);
  }, [types, q]);

  function close() {
    setOpen(false);
    setQ('');
    toggle.current?.focus();
  }

  return (
    <div class="ae-add">
      <button type="button" ref={toggle} class="btn primary" aria-expanded={open} aria-controls="ae-picker" onClick={() => (open ? close() : setOpen(true))}>
        {open ? 'Close the list' : '+ Add action'}
      </button>
      {open && (
        <section
          id="ae-picker"
          class="ae-picker"
          aria-label="Action types"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              close();
            }
          }}
        >
          <label for="ae-type-search">Find an action type</label>
          <input id="ae-type-search" ref={search} type="search" placeholder="e.g. json, response, http" value={q} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} />
          <div class="ae-picker-list">
            {groups.length === 0 && <p class="hint">No action type matches “{q}”.</p>}
            {groups.map(([category, list]) => (
              <section key={category} aria-labelledby={`ae-cat-${category}`}>
                <h4 id={`ae-cat-${category}`}>{humanize(category)}</h4>
                <ul class="ae-type-list">
                  {list.map((t) => (
                    <li key={t.type}>
                      <button
                        type="button"
                        class="ae-type"
                        onClick={() => {
                          onAdd(t.type);
                          close();
                        }}
                      >
                        <strong>{t.title}</strong>
                        <span class="hint small">
                          <InlineMarkdown text={t.description} />
                        </span>
                      </button>
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
        </section>
      )}
    </div>
  );
}
