// The one logger (core's, and the SDK's consoleLogger), level from LOG_LEVEL. Lines are JSON for
// machines (LOG_FORMAT=json, or stdout is not a terminal) and `time level message key=value` for a
// person at a terminal (LOG_FORMAT=text). JSON lines always have `time`, `level` and `msg`.
/** Structured log lines: a message and fields (`err` an Error, shown with its stack). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line. */
  child(fields: Record<string, unknown>): Logger;
}

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value kept for its type (typeof) only
const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LEVELS)[number];
export type Level = LogLevel;
export type LogFormat = 'json' | 'text';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** `auto` means text on a terminal, JSON otherwise (a file, a pipe, a log collector). */
export function resolveLogFormat(setting: LogFormat | 'auto', isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  return setting === 'auto' ? (isTTY ? 'text' : 'json') : setting;
}

function textValue(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** One line for a person: `12:00:01 WARN message key=value ...`, an error's stack on the lines below. */
export function formatText(time: Date, lvl: Level, msg: string, fields: Record<string, unknown>): string {
  const pairs = Object.entries(fields)
    .filter(([k, v]) => v !== undefined && k !== 'err')
    .map(([k, v]) => `${k}=${textValue(v)}`);
  const err = fields.err as { message?: string; stack?: string } | undefined;
  const line = [time.toISOString().slice(11, 19), lvl.toUpperCase().padEnd(5), msg, ...pairs].join(' ');
  return err ? `${line}\n  ${err.stack ?? err.message ?? String(err)}` : line;
}

/** Whether a logger set to `threshold` writes lines of `level`. */
export function levelEnabled(threshold: Level, level: Level): boolean {
  return ORDER[level] >= ORDER[threshold];
}

export function createLogger(level: Level = 'info', base: Record<string, unknown> = {}, write: (line: string) => void = (l) => process.stdout.write(l + '\n'), format: LogFormat = 'json'): Logger {
  const emit = (lvl: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const extra = fields && fields.err instanceof Error ? { ...fields, err: { message: fields.err.message, stack: fields.err.stack } } : fields;
    const now = new Date();
    write(format === 'text' ? formatText(now, lvl, msg, { ...base, ...extra }) : JSON.stringify({ time: now.toISOString(), level: lvl, msg, ...base, ...extra }));
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => createLogger(level, { ...base, ...fields }, write, format),
  };
}

export const silentLogger = createLogger('silent');

/** One JSON line per entry on stderr (`time`, `level`, `msg`, the fields), at or above `level`. */
export function consoleLogger(level: LogLevel = 'info'): Logger {
  return createLogger(level, {}, (line) => process.stderr.write(line + '\n'));
}
