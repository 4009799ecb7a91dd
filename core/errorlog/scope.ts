// Whose error log an entry goes to, and which entries a caller sees: the one place that decides it
// (teams may widen an account from a user to their team here).
//   - An entry belongs to the account of the token's owner or the schedule's user; entries of
//     anonymous tokens have no account (user_id null) and only the administrator sees them.
//   - A user's API key sees the user's own entries; the administrator key sees every account's, or
//     one account's with `?user_id=` (`?user_id=anonymous` for the anonymous tokens').
import { requireCaller, type Caller } from '../auth/access.js';
import { Forbidden } from '../errors.js';
import type { ErrorLogScope, ScheduleRecord, TokenRecord } from '../store/types.js';

export function accountOfToken(token: Pick<TokenRecord, 'user_id'>): number | null {
  return token.user_id;
}

export function accountOfSchedule(schedule: Pick<ScheduleRecord, 'user_id'>): number | null {
  return schedule.user_id;
}

/** The entries the caller may read and mark read; `account` is the administrator's `?user_id=`. */
export function errorLogScope(caller: Caller, account?: number | 'anonymous'): ErrorLogScope {
  requireCaller(caller);
  if (caller.kind === 'admin') return account === undefined ? { all: true } : { userId: account === 'anonymous' ? null : account };
  if (account !== undefined && account !== caller.user.id) throw new Forbidden("Only the administrator may read another account's error log");
  return { userId: caller.user.id };
}
