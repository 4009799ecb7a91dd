// What the page remembers in this browser: the API key, the tokens opened lately, and whether the
// first-run screen was dismissed.
import { useEffect, useState } from 'preact/hooks';

type Listener = () => void;
const listeners = new Set<Listener>();

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* private mode: kept for this page only */
  }
}

let apiKey = read('capture.apiKey');

export interface RecentToken {
  uuid: string;
  alias: string | null;
  opened_at: number;
}

export const settings = {
  apiKey: (): string | null => apiKey,
  setApiKey(value: string | null): void {
    apiKey = value && value.trim() ? value.trim() : null;
    write('capture.apiKey', apiKey);
    listeners.forEach((l) => l());
  },
  recent(): RecentToken[] {
    try {
      const v = JSON.parse(read('capture.recent') ?? '[]') as RecentToken[];
      return Array.isArray(v) ? v.filter((t) => typeof t?.uuid === 'string') : [];
    } catch {
      return [];
    }
  },
  remember(uuid: string, alias: string | null): void {
    const list = [{ uuid, alias, opened_at: Date.now() }, ...settings.recent().filter((t) => t.uuid !== uuid)].slice(0, 10);
    write('capture.recent', JSON.stringify(list));
  },
  forget(uuid: string): void {
    write('capture.recent', JSON.stringify(settings.recent().filter((t) => t.uuid !== uuid)));
  },
  /** The first-run screen was closed in this browser. */
  firstRunDismissed: (): boolean => read('capture.firstRunDismissed') === '1',
  dismissFirstRun(): void {
    write('capture.firstRunDismissed', '1');
  },
  subscribe(l: Listener): () => void {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

/** The API key, kept current when it changes. */
export function useApiKey(): string | null {
  const [key, setKey] = useState(settings.apiKey());
  useEffect(() => settings.subscribe(() => setKey(settings.apiKey())), []);
  return key;
}
