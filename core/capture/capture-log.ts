// The operator's view of captures: one info line per capture (HTTP, e-mail, DNS), named by the
// request's ID (the X-Request-Id of its answer), which the capture's other lines (action errors,
// a listen that timed out) carry too. Off with LOG_CAPTURES=false or a LOG_LEVEL above info; the
// capture path then gets null and builds nothing (`log?.(...)` does not evaluate its argument).
import type { Config } from '../config.js';
import { levelEnabled, type Logger } from '../logger.js';

export interface CaptureLine {
  /** The request's UUID; for a refused capture, absent (nothing was stored). */
  request?: string;
  /** The token's UUID, or the name a refused capture used. */
  token: string;
  /** The HTTP method, or EMAIL / DNS. */
  method: string;
  /** The status answered (HTTP). */
  status?: number;
  /** Body bytes; absent when the capture was refused before its body was read. */
  size?: number;
  /** From the first byte read to the answer (HTTP) or the stored capture. */
  ms: number;
  /** Why a capture was refused. */
  error?: string;
}

export type CaptureLog = (line: CaptureLine) => void;

/** Writes capture lines, or null when they are off. */
export function captureLog(config: Pick<Config, 'LOG_CAPTURES' | 'LOG_LEVEL'>, logger: Logger): CaptureLog | null {
  if (!config.LOG_CAPTURES || !levelEnabled(config.LOG_LEVEL, 'info')) return null;
  return (line) => logger.info('capture', { ...line, ms: Math.round(line.ms * 10) / 10 });
}
