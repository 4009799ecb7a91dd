// Request list preferences remembered in this browser (off until chosen).
const FOLLOW_KEY = 'capture.followNewest';

export function followNewest(): boolean {
  try {
    return localStorage.getItem(FOLLOW_KEY) === '1';
  } catch {
    return false;
  }
}

export function setFollowNewest(on: boolean): void {
  try {
    if (on) localStorage.setItem(FOLLOW_KEY, '1');
    else localStorage.removeItem(FOLLOW_KEY);
  } catch {
    /* private mode: kept for this page only */
  }
}

const FORWARD_KEY = 'capture.forwardUrl';

/** The URL last forwarded to, to offer it again. */
export function lastForwardUrl(): string {
  try {
    return localStorage.getItem(FORWARD_KEY) ?? '';
  } catch {
    return '';
  }
}

export function setLastForwardUrl(url: string): void {
  try {
    localStorage.setItem(FORWARD_KEY, url);
  } catch {
    /* private mode */
  }
}

const queryKey = (token: string) => `capture.query.${token}`;

/** The last search of a token's requests, to open it with again after a reload. */
export function lastQuery(token: string): string {
  try {
    return localStorage.getItem(queryKey(token)) ?? '';
  } catch {
    return '';
  }
}

export function setLastQuery(token: string, query: string): void {
  try {
    if (query) localStorage.setItem(queryKey(token), query);
    else localStorage.removeItem(queryKey(token));
  } catch {
    /* private mode */
  }
}

const NOTIFY_KEY = 'capture.notify';

/** Browser notifications of new requests while the page is not in view (opted in here). */
export function notifyOn(): boolean {
  try {
    return localStorage.getItem(NOTIFY_KEY) === '1';
  } catch {
    return false;
  }
}

export function setNotifyOn(on: boolean): void {
  try {
    if (on) localStorage.setItem(NOTIFY_KEY, '1');
    else localStorage.removeItem(NOTIFY_KEY);
  } catch {
    /* private mode */
  }
}
