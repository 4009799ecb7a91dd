// Timestamps in API bodies are `YYYY-MM-DD HH:MM:SS` in UTC. The Clock is the SDK's, one type for
// core and plugins; code that only reads the time takes `Pick<Clock, 'now'>`.
import { type Clock, systemClock } from '@capture/sdk';

export { systemClock, type Clock };

export function formatTimestamp(ms: number): string;
export function formatTimestamp(ms: number | null | undefined): string | null;
export function formatTimestamp(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Parses `YYYY-MM-DD[ HH:MM[:SS]]` (UTC) or an ISO string; null when it is not a date. */
export function parseTimestamp(text: string): number | null {
  return parseTimestampSpan(text)?.start ?? null;
}

/**
 * What a written timestamp names, as the search language reads dates: the whole second of
 * `YYYY-MM-DD HH:MM:SS`, the minute of `YYYY-MM-DD HH:MM`, the day of `YYYY-MM-DD`. A filter
 * ending at a timestamp includes all of it, so a request shown as created at that second is in.
 * `end` is exclusive; null when the text is not a date.
 */
export function parseTimestampSpan(text: string): { start: number; end: number } | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d))?)?(Z|[+-]\d\d:?\d\d)?$/.exec(text.trim());
  if (!m) return null;
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}${m[7] ?? 'Z'}`;
  const start = Date.parse(iso);
  if (Number.isNaN(start)) return null;
  const length = m[6] !== undefined ? 1000 : m[4] !== undefined ? 60_000 : 86_400_000;
  return { start, end: start + length };
}

/** Waits `ms`, or less when the signal aborts (resolves either way). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => systemClock.sleep(ms, signal);

/**
 * Microsecond capture keys: wall-clock based, strictly increasing within a process, so two captures
 * in the same millisecond keep their order.
 */
export function createSortingKeys(clock: Pick<Clock, 'now'> = systemClock): () => number {
  let last = 0;
  return () => {
    last = Math.max(clock.now() * 1000, last + 1);
    return last;
  };
}
