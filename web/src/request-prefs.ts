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
