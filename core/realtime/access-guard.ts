// Keeps a live stream's authorisation current. A stream (SSE, or one socket.io channel) is
// authorised when it opens; afterwards these events can take that away:
//   - user.access_changed for the user whose key opened it (a key revoked, the user deleted);
//   - token.updated whose token has another password, owner or group than the stream last saw
//     (any token.updated for a stream opened with a share link: the share may have been revoked).
// On one of them the stream's own opening check runs again with the credentials it was opened
// with, and the stream is revoked if that fails. Events that arrive while the check runs are held
// back, so nothing is delivered on the strength of the old authorisation. Every other event passes
// straight through: the per-capture fan-out does no lookup and no extra work beyond one test.
import type { TokenRecord } from '../store/types.js';
import type { RealtimeBus, RealtimeEvent } from './bus.js';

export interface GuardOptions {
  bus: RealtimeBus;
  /** The token as authorised when the stream opened. */
  token: TokenRecord;
  /** The user whose API key opened the stream; null for anonymous, password-only and admin callers. */
  userId: number | null;
  /** Check again on every token.updated (a stream opened with a share link, whose changes only that event announces). */
  recheckOnEveryUpdate?: boolean;
  /** The stream's opening access check, run again; resolves with the token, throws when access is gone. */
  check(): Promise<TokenRecord>;
  /** Sends one event down the stream. */
  deliver(e: RealtimeEvent): void;
  /** Ends the stream; called once, with what `check` threw. */
  revoke(err: unknown): void;
}

/** Fields of a token that decide who may open it (the group: for users limited to groups). */
function accessOf(t: TokenRecord): string {
  return `${t.user_id ?? ''}\u0000${t.password_hash ?? ''}\u0000${t.group_id ?? ''}`;
}

/** Subscribes the stream to its token's events and its caller's access changes; returns the unsubscribe function. */
export function guardStream(o: GuardOptions): () => void {
  let access = accessOf(o.token);
  /** Non-null while a check runs: the events held back meanwhile. */
  let held: RealtimeEvent[] | null = null;
  /** Set when the caller's access changed again while a check ran. */
  let again = false;
  let stopped = false;
  /** The token.updated whose check passed last: delivered when the held events go out, not checked again. */
  let checked: RealtimeEvent | null = null;

  const onEvent = (e: RealtimeEvent): void => {
    if (stopped) return;
    if (held) {
      held.push(e);
    } else if (e.type === 'token.updated' && e !== checked && (o.recheckOnEveryUpdate || accessOf(e.token) !== access)) {
      checked = e;
      held = [e];
      startCheck();
    } else {
      o.deliver(e);
    }
  };

  const onAccessChanged = (): void => {
    if (stopped) return;
    if (held) {
      again = true;
      return;
    }
    held = [];
    startCheck();
  };

  // A delivery that throws while the held events go out ends the stream like a failed check would.
  function startCheck(): void {
    recheck().catch((err: unknown) => {
      if (stopped) return;
      stop();
      o.revoke(err);
    });
  }

  async function recheck(): Promise<void> {
    do {
      again = false;
      try {
        access = accessOf(await o.check());
      } catch (err) {
        if (stopped) return;
        stop();
        o.revoke(err);
        return;
      }
      if (stopped) return;
    } while (again);
    const pending = held ?? [];
    held = null;
    // A held token.updated that changed access again starts another check; later events wait for it.
    for (const e of pending) onEvent(e);
  }

  const offToken = o.bus.subscribe(o.token.uuid, onEvent);
  const offUser = o.userId === null ? () => {} : o.bus.subscribeAccess(o.userId, onAccessChanged);
  function stop(): void {
    stopped = true;
    held = null;
    offToken();
    offUser();
  }
  return stop;
}
