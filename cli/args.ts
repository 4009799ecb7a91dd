// The command line's words and options. One table of every option (a flag, or one that takes a
// value); each command then says which of them it accepts, so a misplaced option is a usage error
// that names the command instead of being ignored.

/** A command line that cannot be run as written: usage on stderr, exit 2. */
export class UsageError extends Error {}

const VALUED = new Set([
  'server',
  'api-key',
  'config', // where and as whom (every command that calls the server)
  'alias',
  'status',
  'content',
  'content-type',
  'listen',
  'request-limit',
  'description', // token create
  'target',
  'listen-timeout', // forward, replay
  'query',
  'timeout',
  'after', // wait, replay, export
  'method', // replay
  'output', // export
  'secret',
  'to',
  'format',
  'overrides', // send
]);
const FLAGS = new Set(['help', 'version', 'json', 'quiet', 'no-color', 'har', 'csv', 'newest', 'all', 'actions', 'database', 'create', 'list']);
const SHORT: Record<string, string> = { h: 'help', q: 'quiet', o: 'output', s: 'server', k: 'api-key' };

export interface Parsed {
  words: string[];
  options: Map<string, string | true>;
}

/** The words of a command line (the command and its arguments): what is not an option or an option's value. */
export function wordsOf(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...words, ...argv.slice(i + 1)];
    if (a === '-' || !a.startsWith('-')) words.push(a);
    else if (!a.includes('=') && VALUED.has(a.startsWith('--') ? a.slice(2) : (SHORT[a.slice(1)] ?? ''))) i++;
  }
  return words;
}

export function parseArgs(argv: string[]): Parsed {
  const parsed: Parsed = { words: [], options: new Map() };
  let options = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!options || a === '-' || !a.startsWith('-')) {
      parsed.words.push(a);
      continue;
    }
    if (a === '--') {
      options = false;
      continue;
    }
    const eq = a.indexOf('=');
    const raw = a.startsWith('--') ? a.slice(2, eq > 0 ? eq : undefined) : SHORT[a.slice(1, eq > 0 ? eq : undefined)];
    if (!raw || (!VALUED.has(raw) && !FLAGS.has(raw))) throw new UsageError(`unknown option ${eq > 0 ? a.slice(0, eq) : a}`);
    if (parsed.options.has(raw)) throw new UsageError(`--${raw} is given twice`);
    if (FLAGS.has(raw)) {
      if (eq > 0) throw new UsageError(`--${raw} takes no value`);
      parsed.options.set(raw, true);
      continue;
    }
    const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${raw} needs a value`);
    parsed.options.set(raw, value);
  }
  return parsed;
}

/** The options every server command takes. */
export const CONNECTION = ['server', 'api-key', 'config', 'no-color'] as const;

/** Refuses options the command does not take. */
export function accept(parsed: Parsed, command: string, allowed: readonly string[]): void {
  for (const name of parsed.options.keys()) {
    if (!allowed.includes(name) && name !== 'help') throw new UsageError(`--${name} does not go with ${command}`);
  }
}

export function text(parsed: Parsed, name: string): string | undefined {
  const v = parsed.options.get(name);
  return typeof v === 'string' ? v : undefined;
}

export function flag(parsed: Parsed, name: string): boolean {
  return parsed.options.get(name) === true;
}

/** A numeric option within [min, max]; `fallback` when absent. */
export function number(parsed: Parsed, name: string, min: number, max: number, fallback: number): number;
export function number(parsed: Parsed, name: string, min: number, max: number): number | undefined;
export function number(parsed: Parsed, name: string, min: number, max: number, fallback?: number): number | undefined {
  const v = text(parsed, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}`);
  return n;
}
