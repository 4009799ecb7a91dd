// One logger: JSON lines on stdout, level from LOG_LEVEL.
export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(level: Level = 'info', base: Record<string, unknown> = {}, write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const emit = (lvl: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const extra = fields && fields.err instanceof Error ? { ...fields, err: { message: fields.err.message, stack: fields.err.stack } } : fields;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...extra }));
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

export const silentLogger = createLogger('silent');
