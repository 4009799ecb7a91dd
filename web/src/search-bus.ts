// "Search for this": a value in the request view becomes the request list's query (the token page
// listens). A field of the search language (docs/search.md) and a quoted value.

const EVENT = 'capture:search';

/** `field:"value"`, quotes and backslashes escaped; null where the field cannot be searched. */
export function searchQuery(field: string, value: string): string | null {
  if (!/^[A-Za-z0-9_.-]+$/.test(field) || value === '') return null;
  return `${field}:"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function searchFor(query: string): void {
  window.dispatchEvent(new CustomEvent<string>(EVENT, { detail: query }));
}

export function onSearchFor(handler: (query: string) => void): () => void {
  const listener = (e: Event) => handler((e as CustomEvent<string>).detail);
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
