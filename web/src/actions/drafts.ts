// Unsaved workflow documents, by token: kept for the page's lifetime so a tab switch (which closes
// the editor) loses nothing, and readable by the token's tab strip to mark the Actions tab.
type Listener = () => void;

const drafts = new Map<string, string>();
const listeners = new Set<Listener>();

export const workflowDrafts = {
  get: (token: string): string | undefined => drafts.get(token),
  has: (token: string): boolean => drafts.has(token),
  set(token: string, text: string): void {
    const had = drafts.has(token);
    drafts.set(token, text);
    if (!had) listeners.forEach((l) => l());
  },
  drop(token: string): void {
    if (drafts.delete(token)) listeners.forEach((l) => l());
  },
  subscribe(l: Listener): () => void {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

// A reload or a closed tab would lose them: the browser asks first.
if (typeof window !== 'undefined') {
  window.addEventListener('beforeunload', (e) => {
    if (drafts.size) e.preventDefault();
  });
}
