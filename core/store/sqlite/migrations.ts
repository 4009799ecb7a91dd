// Schema migrations, versioned in code and recorded in schema_migrations. Append only: a released
// migration is never edited, a new one is added with a new version. Versions by module: 1-2 core,
// 3 actions/workflows/global variables, 4 schedules/Agenda, 5 e-mail/DNS, 6 realtime.
import type { Database } from 'better-sqlite3';
import { FILL_FROM_TOP, plainBody } from './requests/index.js';

export interface Migration {
  version: number;
  up: string;
  /**
   * A table rebuild (create, copy, drop, rename) runs with foreign keys off, so that the DROP does
   * not cascade into the tables referencing the old table; those (`referencedBy`) are checked after.
   */
  rebuild?: { referencedBy: string[] };
}

const REQUEST_COLUMNS = `uuid, token_id, type, team_id, ip, hostname, method, user_agent, url, content_type, body, size, query,
  headers, form, files, output, errors, time, note, sorting, created_at, updated_at, extra`;

const PLAIN_BODY = plainBody('r.body');

export const migrations: Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL, email TEXT NOT NULL, premium INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, created_at INTEGER NOT NULL
      );
      CREATE TABLE tokens (
        uuid TEXT PRIMARY KEY,
        user_id INTEGER, alias TEXT UNIQUE, redirect INTEGER NOT NULL, actions INTEGER NOT NULL, cors INTEGER NOT NULL,
        expiry TEXT, timeout INTEGER NOT NULL, listen INTEGER NOT NULL, premium INTEGER NOT NULL,
        premium_expires_at INTEGER, ip TEXT NOT NULL, user_agent TEXT NOT NULL,
        default_content TEXT NOT NULL, default_status INTEGER NOT NULL, default_content_type TEXT NOT NULL,
        request_limit INTEGER NOT NULL, description TEXT, group_id INTEGER, password_hash TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER,
        request_count INTEGER NOT NULL DEFAULT 0, latest_request_id TEXT, latest_request_at INTEGER
      );
      CREATE INDEX tokens_user ON tokens(user_id, created_at);
      CREATE INDEX tokens_expires ON tokens(expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE requests (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid TEXT NOT NULL UNIQUE,
        token_id TEXT NOT NULL REFERENCES tokens(uuid) ON DELETE CASCADE,
        type TEXT NOT NULL, team_id INTEGER, ip TEXT, hostname TEXT, method TEXT, user_agent TEXT, url TEXT,
        content_type TEXT, body BLOB NOT NULL, size INTEGER NOT NULL,
        query TEXT, headers TEXT NOT NULL, form TEXT, files TEXT NOT NULL, output TEXT NOT NULL, errors TEXT NOT NULL,
        time REAL NOT NULL, note TEXT, sorting INTEGER NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, extra TEXT NOT NULL
      );
      CREATE INDEX requests_token_sorting ON requests(token_id, sorting, seq);
      CREATE INDEX requests_token_created ON requests(token_id, created_at);
      CREATE TABLE request_files (
        request_uuid TEXT NOT NULL REFERENCES requests(uuid) ON DELETE CASCADE,
        file_id TEXT NOT NULL, data BLOB NOT NULL,
        PRIMARY KEY (request_uuid, file_id)
      );
      CREATE TABLE rate_counters (
        key TEXT NOT NULL, window_start INTEGER NOT NULL, count INTEGER NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (key, window_start)
      );
      CREATE INDEX rate_counters_expiry ON rate_counters(expires_at);
    `,
  },
  {
    version: 2,
    up: `
      CREATE TABLE groups (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
      );
      CREATE INDEX groups_user ON groups(user_id, id);
      CREATE TABLE listeners (
        request_uuid TEXT PRIMARY KEY, token_id TEXT NOT NULL, deadline INTEGER NOT NULL, response TEXT
      );
      CREATE INDEX tokens_activity ON tokens(premium, latest_request_at);
    `,
  },
  {
    version: 3,
    up: `
      CREATE TABLE token_workflows (
        token_id TEXT PRIMARY KEY REFERENCES tokens(uuid) ON DELETE CASCADE,
        document TEXT NOT NULL, updated_at INTEGER NOT NULL
      );
      CREATE TABLE global_variables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        UNIQUE (owner, name)
      );
    `,
  },
  {
    // Schedules (core/scheduler): the schedule's workflow document, its run logs, users' error
    // notification settings, and Agenda's jobs (core/scheduler/sqlite-backend.ts).
    version: 4,
    up: `
      CREATE TABLE schedules (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL, document TEXT NOT NULL, source TEXT,
        last_run_at INTEGER, last_status INTEGER,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
      );
      CREATE INDEX schedules_user ON schedules(user_id, id);
      CREATE UNIQUE INDEX schedules_source ON schedules(source) WHERE source IS NOT NULL;
      CREATE TABLE schedule_logs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        schedule_id INTEGER NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
        response_status INTEGER NOT NULL, response_headers TEXT NOT NULL, response_body TEXT NOT NULL,
        time REAL NOT NULL, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
      );
      CREATE INDEX schedule_logs_schedule ON schedule_logs(schedule_id, id);
      CREATE TABLE notification_settings (
        user_id INTEGER PRIMARY KEY, email TEXT, email_enabled INTEGER NOT NULL, webhook_url TEXT, updated_at INTEGER NOT NULL
      );
      CREATE TABLE agenda_jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0, next_run_at INTEGER, type TEXT NOT NULL,
        locked_at INTEGER, last_run_at INTEGER, last_finished_at INTEGER, failed_at INTEGER,
        fail_count INTEGER, fail_reason TEXT, repeat_timezone TEXT, repeat_interval TEXT, repeat_at TEXT,
        disabled INTEGER, progress REAL, data TEXT, last_modified_by TEXT, fork INTEGER,
        debounce_started_at INTEGER, start_date INTEGER, end_date INTEGER, skip_days TEXT
      );
      CREATE INDEX agenda_jobs_next ON agenda_jobs(name, next_run_at, priority);
      CREATE INDEX agenda_jobs_locked ON agenda_jobs(name, locked_at);
    `,
  },
  {
    // Realtime: deletions and token changes shared with other processes on the same file.
    version: 6,
    up: `
      CREATE TABLE realtime_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        origin TEXT NOT NULL, token_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at INTEGER NOT NULL
      );
      CREATE INDEX realtime_events_created ON realtime_events(created_at);
    `,
  },
  {
    // Providers: connected accounts whose credentials are sealed (AES-256-GCM) before they get here.
    version: 7,
    up: `
      CREATE TABLE providers (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        name TEXT NOT NULL,
        settings TEXT NOT NULL,
        secret TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX providers_user ON providers(user_id, created_at);
    `,
  },
  {
    // Action templates (Templates API): actions and variables as JSON.
    version: 8,
    up: `
      CREATE TABLE templates (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        variables TEXT NOT NULL,
        actions TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX templates_user ON templates(user_id, id);
    `,
  },
  {
    // Failure streaks of actions (actions that keep failing are disabled).
    version: 9,
    up: `
      CREATE TABLE action_failures (
        action_id TEXT PRIMARY KEY,
        token_id TEXT NOT NULL,
        count INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    // Every capture paid for this index; date filters scan a token's requests (at most 10,000,
    // through requests_token_sorting) just as fast without it.
    version: 10,
    up: `DROP INDEX IF EXISTS requests_token_created;`,
  },
  {
    // Databases API: the hosted databases' names; their tables live in PostgreSQL (core/databases).
    version: 11,
    up: `
      CREATE TABLE databases (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX databases_user ON databases(user_id, created_at);
    `,
  },
  {
    // Captures keep their per-token bookkeeping for a catch-up in bulk (batch-writer.ts): a capture
    // is stored as a plain row, and the rows past request_watermark are given their entries in
    // request_keys (the token index: token, sorting, seq), counters and trimming later, together.
    // Indexed as it came, each capture dirtied a page of the token index and of the tokens table per
    // token in every commit, with many tokens receiving at once most of what was written. The
    // foreign key to tokens goes: its cascade needs an index on requests(token_id), which is what
    // request_keys replaces; tokens.delete removes a token's requests itself.
    version: 12,
    rebuild: { referencedBy: ['request_files'] },
    up: `
      CREATE TABLE requests_v12 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid TEXT NOT NULL UNIQUE,
        token_id TEXT NOT NULL,
        type TEXT NOT NULL, team_id INTEGER, ip TEXT, hostname TEXT, method TEXT, user_agent TEXT, url TEXT,
        content_type TEXT, body BLOB NOT NULL, size INTEGER NOT NULL,
        query TEXT, headers TEXT NOT NULL, form TEXT, files TEXT NOT NULL, output TEXT NOT NULL, errors TEXT NOT NULL,
        time REAL NOT NULL, note TEXT, sorting INTEGER NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, extra TEXT NOT NULL
      );
      INSERT INTO requests_v12 (seq, ${REQUEST_COLUMNS}) SELECT seq, ${REQUEST_COLUMNS} FROM requests;
      -- The sequence carries over, so a seq is never handed out twice (the watermark and the
      -- realtime feed follow it).
      DELETE FROM sqlite_sequence WHERE name = 'requests_v12';
      UPDATE sqlite_sequence SET name = 'requests_v12' WHERE name = 'requests';
      DROP TABLE requests;
      ALTER TABLE requests_v12 RENAME TO requests;
      CREATE TABLE request_keys (
        tk TEXT NOT NULL, st INTEGER NOT NULL, sq INTEGER NOT NULL,
        PRIMARY KEY (tk, st, sq)
      ) WITHOUT ROWID;
      INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests;
      CREATE TABLE request_watermark (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
      INSERT INTO request_watermark (id, seq) VALUES (1, COALESCE((SELECT max(seq) FROM requests), 0));
      -- Every way a request goes (one, a filter, trimming, its token) takes its key with it.
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
      END;
    `,
  },
  {
    // The UUID index moves out of the commit: kept on every insert, it was most of what a commit
    // wrote (an index append in SQLite rebalances its last pages: ~8 of the ~12 WAL frames of a
    // 16-capture commit). request_ids (UUID -> seq) is filled by the catch-up, in bulk and in UUID
    // order, like request_keys; a read by UUID looks there and among the pending rows (past the
    // watermark, at most one catch-up's worth). request_files loses its foreign key to
    // requests(uuid), which needed that unique index: the delete trigger takes a request's files.
    version: 13,
    rebuild: { referencedBy: [] },
    up: `
      CREATE TABLE requests_v13 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid TEXT NOT NULL,
        token_id TEXT NOT NULL,
        type TEXT NOT NULL, team_id INTEGER, ip TEXT, hostname TEXT, method TEXT, user_agent TEXT, url TEXT,
        content_type TEXT, body BLOB NOT NULL, size INTEGER NOT NULL,
        query TEXT, headers TEXT NOT NULL, form TEXT, files TEXT NOT NULL, output TEXT NOT NULL, errors TEXT NOT NULL,
        time REAL NOT NULL, note TEXT, sorting INTEGER NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, extra TEXT NOT NULL
      );
      INSERT INTO requests_v13 (seq, ${REQUEST_COLUMNS}) SELECT seq, ${REQUEST_COLUMNS} FROM requests;
      DELETE FROM sqlite_sequence WHERE name = 'requests_v13';
      UPDATE sqlite_sequence SET name = 'requests_v13' WHERE name = 'requests';
      CREATE TABLE request_files_v13 (
        request_uuid TEXT NOT NULL, file_id TEXT NOT NULL, data BLOB NOT NULL,
        PRIMARY KEY (request_uuid, file_id)
      );
      INSERT INTO request_files_v13 SELECT request_uuid, file_id, data FROM request_files;
      DROP TABLE request_files;
      ALTER TABLE request_files_v13 RENAME TO request_files;
      DROP TABLE requests;
      ALTER TABLE requests_v13 RENAME TO requests;
      -- (uuid, seq): a duplicate UUID, however unlikely, must not stop the catch-up.
      CREATE TABLE request_ids (u TEXT NOT NULL, sq INTEGER NOT NULL, PRIMARY KEY (u, sq)) WITHOUT ROWID;
      INSERT INTO request_ids (u, sq) SELECT uuid, seq FROM requests WHERE seq <= (SELECT seq FROM request_watermark) ORDER BY uuid, seq;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM request_ids WHERE u = OLD.uuid AND sq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
    `,
  },
  {
    // A count of token deletions, by any connection: the capture writer checks that a batch's
    // tokens still exist only when it moved since its last batch, instead of once per token and
    // batch (with captures spread over many tokens, a lookup for most captures).
    version: 14,
    up: `
      CREATE TABLE token_deletions (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
      INSERT INTO token_deletions (id, n) VALUES (1, 0);
      CREATE TRIGGER tokens_deleted AFTER DELETE ON tokens BEGIN
        UPDATE token_deletions SET n = n + 1 WHERE id = 1;
      END;
    `,
  },
  {
    // Aliases by any case (TokenRepo.resolveIgnoringCase): DNS names reach the service lower-cased
    // or with randomised case, and an unknown name must not cost a scan of every token.
    version: 15,
    up: `CREATE INDEX tokens_alias_nocase ON tokens (alias COLLATE NOCASE) WHERE alias IS NOT NULL;`,
  },
  {
    // How far a copy into this database got (core/store/migrate.ts): per kind of record, its
    // source and the position reached there, so an interrupted copy continues.
    version: 16,
    up: `
      CREATE TABLE transfer_checkpoints (
        kind TEXT PRIMARY KEY, source TEXT NOT NULL, cursor TEXT, copied INTEGER NOT NULL, done INTEGER NOT NULL
      );
    `,
  },
  {
    // Teams and user types (core/http/users): a team is named by its first member's user ID, so
    // every user from before becomes the one-person team of their own ID, as its Administrator
    // (100), and every token the team of its owner. Captures stored before keep team_id NULL.
    version: 17,
    up: `
      ALTER TABLE users ADD COLUMN team_id INTEGER;
      ALTER TABLE users ADD COLUMN user_type_id INTEGER NOT NULL DEFAULT 100;
      ALTER TABLE users ADD COLUMN role_id INTEGER;
      ALTER TABLE users ADD COLUMN invite_hash TEXT;
      ALTER TABLE users ADD COLUMN invite_expires_at INTEGER;
      UPDATE users SET team_id = id;
      CREATE INDEX users_team ON users(team_id, id);
      CREATE UNIQUE INDEX users_invite ON users(invite_hash) WHERE invite_hash IS NOT NULL;
      ALTER TABLE tokens ADD COLUMN team_id INTEGER;
      UPDATE tokens SET team_id = user_id;
      CREATE INDEX tokens_team ON tokens(team_id, created_at);
    `,
  },
  {
    // Share links (one per token, only the secret's sha256 kept) and the accounts' error log
    // (action errors and failed schedule runs; core/errorlog), newest first per account.
    version: 18,
    up: `
      CREATE TABLE token_shares (
        token_id TEXT PRIMARY KEY REFERENCES tokens(uuid) ON DELETE CASCADE,
        hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL
      );
      CREATE TABLE error_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER, source TEXT NOT NULL, token_id TEXT, request_id TEXT, action_id TEXT, action_type TEXT,
        schedule_id INTEGER, schedule_name TEXT, message TEXT NOT NULL, read INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX error_log_user ON error_log(user_id, id);
      CREATE INDEX error_log_unread ON error_log(user_id, read);
    `,
  },
  {
    // A token's redaction rules (core/shared/redaction.ts), as JSON text; NULL masks nothing.
    version: 19,
    up: `ALTER TABLE tokens ADD COLUMN redaction TEXT;`,
  },
  {
    // Replays (core/replay): a token's actions run again or its requests forwarded, as a job with
    // progress; gone with the token. The log is JSON text.
    version: 20,
    up: `
      CREATE TABLE replays (
        id TEXT PRIMARY KEY,
        token_id TEXT NOT NULL REFERENCES tokens(uuid) ON DELETE CASCADE,
        user_id INTEGER, mode TEXT NOT NULL, url TEXT, method TEXT, query TEXT, sorting TEXT NOT NULL,
        ordered INTEGER NOT NULL, lim INTEGER NOT NULL, status TEXT NOT NULL, cancel_requested INTEGER NOT NULL,
        total INTEGER NOT NULL, processed INTEGER NOT NULL, ran INTEGER NOT NULL, failed INTEGER NOT NULL, skipped INTEGER NOT NULL,
        log TEXT NOT NULL, error TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER
      );
      CREATE INDEX replays_token ON replays(token_id, created_at);
    `,
  },
  {
    // Searches that use indexes. The token index carries the fields a search filters on
    // most (method, type, ip, created_at), so those filters and their counts never read a row, with
    // an index each; request_text is a trigram full-text index of the body as text (what `content`
    // and bare words search), which answers substring searches of 3 or more characters. Both are
    // filled by the catch-up (batch-writer.ts) with the keys, not by the capture's commit. A
    // deletion takes its keys with it (trigger) but not its request_text entry: deleting one costs
    // about 0.5 ms, which trimming would add to every capture past a token's limit. A stale entry
    // is harmless (a seq is never reused, and a search only keeps seqs still in request_keys); it
    // costs disk until the index is purged (contentless_delete allows that later, in bulk).
    version: 21,
    up: `
      DROP TRIGGER requests_unkey;
      CREATE TABLE request_keys_v21 (
        tk TEXT NOT NULL, st INTEGER NOT NULL, sq INTEGER NOT NULL,
        km TEXT, kty TEXT, kip TEXT, kca INTEGER,
        PRIMARY KEY (tk, st, sq)
      ) WITHOUT ROWID;
      INSERT INTO request_keys_v21 (tk, st, sq, km, kty, kip, kca)
        SELECT k.tk, k.st, k.sq, r.method, r.type, r.ip, r.created_at FROM request_keys k CROSS JOIN requests r ON r.seq = k.sq ORDER BY k.tk, k.st, k.sq;
      DROP TABLE request_keys;
      ALTER TABLE request_keys_v21 RENAME TO request_keys;
      -- NOCASE: the search language compares these case-insensitively (ASCII, like LIKE).
      CREATE INDEX request_keys_method ON request_keys (tk, km COLLATE NOCASE, st, sq);
      CREATE INDEX request_keys_type ON request_keys (tk, kty COLLATE NOCASE, st, sq);
      CREATE INDEX request_keys_ip ON request_keys (tk, kip COLLATE NOCASE, st, sq);
      CREATE INDEX request_keys_created ON request_keys (tk, kca);
      CREATE VIRTUAL TABLE request_text USING fts5(txt, tokenize = 'trigram', content = '', contentless_delete = 1);
      INSERT INTO request_text (rowid, txt) SELECT seq, CAST(body AS TEXT) FROM requests WHERE seq <= (SELECT seq FROM request_watermark);
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM request_ids WHERE u = OLD.uuid AND sq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
    `,
  },
  {
    // Searches at a million requests: the token index also carries size (ksz) and
    // whether the note is non-empty (kn, 1 or NULL; kept by a trigger, since notes are edited), so
    // `size:` ranges and `_exists_:note` read no row; method + created_at is one index, so a date
    // range with a method counts from it. request_text is rebuilt with the headers' and the query
    // string's JSON text as columns hdr and qs (trigram candidates for `headers.x`/`query.x`
    // matches and `_exists_`, re-checked exactly), which also drops the entries of deleted
    // requests; request_text_purge is where the catch-up's purge of such entries resumes.
    version: 22,
    up: `
      ALTER TABLE request_keys ADD COLUMN ksz INTEGER;
      ALTER TABLE request_keys ADD COLUMN kn INTEGER;
      UPDATE request_keys SET (ksz, kn) = (SELECT r.size, CASE WHEN length(r.note) > 0 THEN 1 END FROM requests r WHERE r.seq = request_keys.sq);
      CREATE INDEX request_keys_method_created ON request_keys (tk, km COLLATE NOCASE, kca);
      CREATE INDEX request_keys_size ON request_keys (tk, ksz);
      CREATE INDEX request_keys_note ON request_keys (tk, kn, st, sq) WHERE kn IS NOT NULL;
      CREATE TRIGGER requests_note_key AFTER UPDATE OF note ON requests BEGIN
        UPDATE request_keys SET kn = CASE WHEN length(NEW.note) > 0 THEN 1 END WHERE tk = NEW.token_id AND st = NEW.sorting AND sq = NEW.seq;
      END;
      DROP TABLE request_text;
      CREATE VIRTUAL TABLE request_text USING fts5(txt, hdr, qs, tokenize = 'trigram', content = '', contentless_delete = 1);
      INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests WHERE seq <= (SELECT seq FROM request_watermark);
      CREATE TABLE request_text_purge (seq INTEGER NOT NULL);
      INSERT INTO request_text_purge VALUES (0);
    `,
  },
  {
    // The search index only for the tokens that need it. Written for every capture, the
    // six search indexes and the trigram entry of migrations 21/22 cost more than the rest of a
    // capture (0.16-0.25x bare node:http against 0.46x before them), while a token of up to
    // 10,000 requests (the seed's maximum) is searched in a few ms by reading its rows, off the
    // event loop. request_keys goes back to the token index alone (token, sorting, seq) for every
    // request; search_keys (the former request_keys: method, type, ip, created_at, size, note,
    // with their indexes) and request_text hold the requests of the tokens listed in
    // search_tokens: those whose request_limit is above search_settings.above (the
    // SEARCH_INDEX_ABOVE setting; 10,000 here, the store sets it at start-up). Triggers list a
    // token when it is created or raised above it; a token listed with requests already (fill_st
    // and fill_sq: where its fill resumes, newest first) is filled by the catch-up a few hundred
    // rows at a time, and searched without the index until that is done (fill_st NULL). The
    // triggers test for the row instead of INSERT OR IGNORE: an outer statement's conflict policy
    // (an upsert's, transfer.ts) would override theirs.
    version: 23,
    up: `
      DROP TRIGGER requests_unkey;
      DROP TRIGGER requests_note_key;
      DROP INDEX request_keys_method;
      DROP INDEX request_keys_type;
      DROP INDEX request_keys_ip;
      DROP INDEX request_keys_created;
      DROP INDEX request_keys_method_created;
      DROP INDEX request_keys_size;
      DROP INDEX request_keys_note;
      ALTER TABLE request_keys RENAME TO search_keys;
      CREATE TABLE request_keys (
        tk TEXT NOT NULL, st INTEGER NOT NULL, sq INTEGER NOT NULL,
        PRIMARY KEY (tk, st, sq)
      ) WITHOUT ROWID;
      INSERT INTO request_keys (tk, st, sq) SELECT tk, st, sq FROM search_keys ORDER BY tk, st, sq;
      CREATE TABLE search_settings (id INTEGER PRIMARY KEY CHECK (id = 1), above INTEGER NOT NULL);
      INSERT INTO search_settings (id, above) VALUES (1, 10000);
      CREATE TABLE search_tokens (tk TEXT PRIMARY KEY, fill_st INTEGER, fill_sq INTEGER) WITHOUT ROWID;
      INSERT INTO search_tokens (tk) SELECT uuid FROM tokens WHERE request_limit > 10000;
      DELETE FROM search_keys WHERE tk NOT IN (SELECT tk FROM search_tokens);
      -- NOCASE: the search language compares these case-insensitively (ASCII, like LIKE).
      CREATE INDEX search_keys_method ON search_keys (tk, km COLLATE NOCASE, st, sq);
      CREATE INDEX search_keys_type ON search_keys (tk, kty COLLATE NOCASE, st, sq);
      CREATE INDEX search_keys_ip ON search_keys (tk, kip COLLATE NOCASE, st, sq);
      CREATE INDEX search_keys_created ON search_keys (tk, kca);
      CREATE INDEX search_keys_method_created ON search_keys (tk, km COLLATE NOCASE, kca);
      CREATE INDEX search_keys_size ON search_keys (tk, ksz);
      CREATE INDEX search_keys_note ON search_keys (tk, kn, st, sq) WHERE kn IS NOT NULL;
      DROP TABLE request_text;
      CREATE VIRTUAL TABLE request_text USING fts5(txt, hdr, qs, tokenize = 'trigram', content = '', contentless_delete = 1);
      INSERT INTO request_text (rowid, txt, hdr, qs)
        SELECT r.seq, CAST(r.body AS TEXT), r.headers, r.query FROM search_keys k CROSS JOIN requests r ON r.seq = k.sq ORDER BY r.seq;
      UPDATE request_text_purge SET seq = 0;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM request_ids WHERE u = OLD.uuid AND sq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
      CREATE TRIGGER requests_note_key AFTER UPDATE OF note ON requests BEGIN
        UPDATE search_keys SET kn = CASE WHEN length(NEW.note) > 0 THEN 1 END WHERE tk = NEW.token_id AND st = NEW.sorting AND sq = NEW.seq;
      END;
      CREATE TRIGGER tokens_search_new AFTER INSERT ON tokens
        WHEN NEW.request_limit > (SELECT above FROM search_settings) BEGIN
        INSERT INTO search_tokens (tk) SELECT NEW.uuid WHERE NOT EXISTS (SELECT 1 FROM search_tokens WHERE tk = NEW.uuid);
      END;
      CREATE TRIGGER tokens_search_raised AFTER UPDATE OF request_limit ON tokens
        WHEN NEW.request_limit > (SELECT above FROM search_settings) BEGIN
        INSERT INTO search_tokens (tk, fill_st, fill_sq) SELECT NEW.uuid, ${FILL_FROM_TOP}, ${FILL_FROM_TOP}
          WHERE NOT EXISTS (SELECT 1 FROM search_tokens WHERE tk = NEW.uuid);
      END;
      CREATE TRIGGER tokens_search_gone AFTER DELETE ON tokens BEGIN
        DELETE FROM search_tokens WHERE tk = OLD.uuid;
      END;
    `,
  },
  {
    // Which full-text entries wait for their purge, listed instead of searched for. Every
    // request_text entry has a search_keys row (the catch-up and the fill write both), and every way
    // a request goes (trimming, deletes, token deletion) deletes that row through requests_unkey,
    // which now lists the request's seq in request_text_stale when it had one. OR IGNORE, though a
    // seq is listed once (a request is deleted once): with the default ABORT, SQLite keeps a
    // statement journal for the INSERT, and every trimmed request paid about 5 µs for it (2.5x a
    // trim's cost), with or without a search_keys row; a trigger on search_keys cost as much. An
    // outer statement's conflict policy could override IGNORE (migration 23 says why its triggers
    // avoid it), but requests are only ever deleted by plain DELETEs. The catch-up's purge then deletes the
    // listed entries and nothing else; it used to scan 1,000 entries per catch-up for requests that
    // were gone, 1-2 ms on the event loop every 100 ms at a million entries (tens of ms when the
    // pages were cold) whether or not anything had been deleted. A bulk deletion that deletes the
    // entries itself (chunks.ts) takes their seqs off the list in the same transaction. The entries
    // an earlier version left are listed once here.
    version: 24,
    up: `
      CREATE TABLE request_text_stale (sq INTEGER PRIMARY KEY);
      INSERT INTO request_text_stale (sq)
        SELECT t.rowid FROM request_text t WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = t.rowid);
      DROP TABLE request_text_purge;
      DROP TRIGGER requests_unkey;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        INSERT OR IGNORE INTO request_text_stale (sq) SELECT OLD.seq FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM request_ids WHERE u = OLD.uuid AND sq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
    `,
  },
  {
    // Trimming a token that is not search-indexed (nearly every token) no longer looks in search_keys:
    // those two lookups per deleted request were about a sixth of a trim's cost (3.5 -> 2.9 µs a row
    // without them, in-process at request_limit 10,000), and trimming is half of a catch-up on the event loop. A
    // search_keys row exists only for a token listed in search_tokens (the catch-up and the fill
    // index those alone), and a token leaves the list only when it is deleted, after its requests
    // (tokens.ts deletes them first, in its transaction), so the condition misses none. The WHEN
    // costs a lookup in search_tokens, a table of a few rows. Conditions inside one trigger's
    // statements instead of a second trigger were as slow as before.
    version: 25,
    up: `
      DROP TRIGGER requests_unkey;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM request_ids WHERE u = OLD.uuid AND sq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
      CREATE TRIGGER requests_unsearch AFTER DELETE ON requests WHEN OLD.token_id IN (SELECT tk FROM search_tokens) BEGIN
        INSERT OR IGNORE INTO request_text_stale (sq) SELECT OLD.seq FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
      END;
    `,
  },
  {
    // Trimming leaves the requests' rows to a sweep (batch-writer.ts). A token's oldest
    // requests sit among every other token's in the requests table (seq order), so deleting a
    // token's oldest 30 wrote 30 pages: when the tokens at their limit captured at slightly
    // different rates, each trimmed request cost a page of WAL and of checkpoint (readstall at
    // 200,000 rows: 1.0-1.2 WAL frames a trimmed request, against 0.15-0.25 while the tokens' oldest
    // requests lay together). A trim now deletes the requests' keys (together in the token index)
    // and lists their seqs here; the sweep deletes the listed rows oldest first, once enough are
    // listed that the oldest lie together. Reads by UUID skip listed rows (SEQ_OF_UUID); a
    // search-indexed token's rows are deleted at once (searches read full-text candidates' rows
    // directly, batch-writer.ts). Whatever deletes a listed row (the sweep, a token's deletion)
    // takes it off the list (requests_unkey).
    version: 26,
    up: `
      CREATE TABLE request_trimmed (sq INTEGER PRIMARY KEY);
      DROP TRIGGER requests_unkey;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests BEGIN
        DELETE FROM request_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM request_ids WHERE u = OLD.uuid AND sq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
        DELETE FROM request_trimmed WHERE sq = OLD.seq;
      END;
    `,
  },
  {
    // What a search checks of a full-text candidate, densely by seq, so that counting
    // candidates need not read each one's requests row: at a million requests a term in 1% of them
    // (10,000 candidates, each on a page of its own) cost ~35 ms in page reads, a page per candidate.
    // search_rows (~400 a page): the token (search_tokens.tn, a number given to each listed token)
    // and whether the body is plain (`plain`: its text has as many characters as bytes, so ASCII
    // without NUL, where the trigram index folds case as LIKE does and its phrase match is exact:
    // exactMatch in query/sql.ts). search_fields: the method and the query string,
    // which the field:value, _exists_ and AND/OR/NOT forms check. Both hold the rows of search_keys
    // (written with it by the catch-up and the fill, deleted with it by requests_unsearch).
    version: 27,
    up: `
      ALTER TABLE search_tokens ADD COLUMN tn INTEGER;
      UPDATE search_tokens SET tn = (SELECT count(*) FROM search_tokens t WHERE t.tk <= search_tokens.tk);
      CREATE TRIGGER search_tokens_numbered AFTER INSERT ON search_tokens WHEN NEW.tn IS NULL BEGIN
        UPDATE search_tokens SET tn = (SELECT coalesce(max(tn), 0) + 1 FROM search_tokens) WHERE tk = NEW.tk;
      END;
      CREATE TABLE search_rows (sq INTEGER PRIMARY KEY, tn INTEGER NOT NULL, plain INTEGER NOT NULL);
      CREATE TABLE search_fields (sq INTEGER PRIMARY KEY, method TEXT, query TEXT);
      INSERT INTO search_rows (sq, tn, plain)
        SELECT k.sq, t.tn, ${PLAIN_BODY} FROM search_keys k CROSS JOIN search_tokens t CROSS JOIN requests r
          WHERE t.tk = k.tk AND r.seq = k.sq ORDER BY k.sq;
      INSERT INTO search_fields (sq, method, query)
        SELECT k.sq, r.method, r.query FROM search_keys k CROSS JOIN requests r ON r.seq = k.sq ORDER BY k.sq;
      DROP TRIGGER requests_unsearch;
      CREATE TRIGGER requests_unsearch AFTER DELETE ON requests WHEN OLD.token_id IN (SELECT tk FROM search_tokens) BEGIN
        INSERT OR IGNORE INTO request_text_stale (sq) SELECT OLD.seq FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM search_keys WHERE tk = OLD.token_id AND st = OLD.sorting AND sq = OLD.seq;
        DELETE FROM search_rows WHERE sq = OLD.seq;
        DELETE FROM search_fields WHERE sq = OLD.seq;
      END;
    `,
  },
  {
    // The HTTP version a web capture came in ('1.0', '1.1' or '2'). NULL reads as '1.1' for a web
    // capture (toRecord): every row from before this column, and the plain rows most captures
    // are (batch-writer.ts), which leave it to its default and so bind nothing more. Adding a
    // nullable column rewrites no row.
    version: 28,
    up: `ALTER TABLE requests ADD COLUMN http_version TEXT;`,
  },
  {
    // The groups a user is limited to (UserRecord.group_ids), as JSON text; NULL: every group.
    version: 29,
    up: `ALTER TABLE users ADD COLUMN group_ids TEXT;`,
  },
  {
    // Queue Profiles: named throttling and ordering for queued actions, per user (core/actions/queue-profiles.ts).
    version: 30,
    up: `
      CREATE TABLE queue_profiles (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        initial_delay INTEGER NOT NULL,
        rate_limit INTEGER NOT NULL,
        rate_period INTEGER NOT NULL,
        job_lifetime INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX queue_profiles_user ON queue_profiles(user_id, created_at);
    `,
  },
  {
    // The request engine's index tables get the names of the requests columns they copy, in place
    // of the short ones migrations 12-27 gave them: token_id, sorting, seq, uuid, the search keys'
    // method, type, ip, created_at, size and has_note (1 when the note is non-empty, else NULL),
    // search_tokens' fill_sorting, fill_seq and token_number (search_rows' too). RENAME COLUMN
    // rewrites the indexes and triggers that name them and moves no row. request_text keeps txt,
    // hdr and qs: an FTS5 table's columns cannot be renamed without rebuilding the index.
    version: 31,
    up: `
      ALTER TABLE request_ids RENAME COLUMN u TO uuid;
      ALTER TABLE request_ids RENAME COLUMN sq TO seq;
      ALTER TABLE request_keys RENAME COLUMN tk TO token_id;
      ALTER TABLE request_keys RENAME COLUMN st TO sorting;
      ALTER TABLE request_keys RENAME COLUMN sq TO seq;
      ALTER TABLE search_keys RENAME COLUMN tk TO token_id;
      ALTER TABLE search_keys RENAME COLUMN st TO sorting;
      ALTER TABLE search_keys RENAME COLUMN sq TO seq;
      ALTER TABLE search_keys RENAME COLUMN km TO method;
      ALTER TABLE search_keys RENAME COLUMN kty TO type;
      ALTER TABLE search_keys RENAME COLUMN kip TO ip;
      ALTER TABLE search_keys RENAME COLUMN kca TO created_at;
      ALTER TABLE search_keys RENAME COLUMN ksz TO size;
      ALTER TABLE search_keys RENAME COLUMN kn TO has_note;
      ALTER TABLE search_tokens RENAME COLUMN tk TO token_id;
      ALTER TABLE search_tokens RENAME COLUMN fill_st TO fill_sorting;
      ALTER TABLE search_tokens RENAME COLUMN fill_sq TO fill_seq;
      ALTER TABLE search_tokens RENAME COLUMN tn TO token_number;
      ALTER TABLE search_rows RENAME COLUMN sq TO seq;
      ALTER TABLE search_rows RENAME COLUMN tn TO token_number;
      ALTER TABLE search_fields RENAME COLUMN sq TO seq;
      ALTER TABLE request_text_stale RENAME COLUMN sq TO seq;
      ALTER TABLE request_trimmed RENAME COLUMN sq TO seq;
    `,
  },
  {
    // Schedules in groups (ScheduleRecord.group_id), and what a run read of the target's TLS
    // certificate when the schedule has a TLS expiry alert (ScheduleLogRecord.tls_*).
    version: 32,
    up: `
      ALTER TABLE schedules ADD COLUMN group_id INTEGER;
      CREATE INDEX schedules_group ON schedules(group_id, id) WHERE group_id IS NOT NULL;
      ALTER TABLE schedule_logs ADD COLUMN tls_expires_at INTEGER;
      ALTER TABLE schedule_logs ADD COLUMN tls_days_left INTEGER;
      ALTER TABLE schedule_logs ADD COLUMN tls_alert TEXT;
    `,
  },
  {
    // The sweep (requests/writer/trims.ts) deletes trimmed requests' rows oldest first. Their keys
    // went when they were listed, and their list entries go by range after them: while it runs,
    // request_sweep holds the newest seq it deletes, and the rows up to it take only their UUID
    // entries and files with them (requests_unswept) rather than look up four tables each. Outside
    // a sweep's transaction it is 0: a deletion any other way (the API, a token's deletion, a
    // filter's matches) cleans up as before (requests_unkey).
    version: 33,
    up: `
      CREATE TABLE request_sweep (id INTEGER PRIMARY KEY CHECK (id = 1), upto INTEGER NOT NULL);
      INSERT INTO request_sweep (id, upto) VALUES (1, 0);
      DROP TRIGGER requests_unkey;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests WHEN OLD.seq > (SELECT upto FROM request_sweep) BEGIN
        DELETE FROM request_keys WHERE token_id = OLD.token_id AND sorting = OLD.sorting AND seq = OLD.seq;
        DELETE FROM request_ids WHERE uuid = OLD.uuid AND seq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
        DELETE FROM request_trimmed WHERE seq = OLD.seq;
      END;
      CREATE TRIGGER requests_unswept AFTER DELETE ON requests WHEN OLD.seq <= (SELECT upto FROM request_sweep) BEGIN
        DELETE FROM request_ids WHERE uuid = OLD.uuid AND seq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
    `,
  },
  {
    // request_text merges 16 segments of a level at a time instead of 4 (automerge, FTS_AUTOMERGE
    // in search/fts-writes.ts): each entry is rewritten about half as often, and indexing a capture
    // costs a quarter less (FTS5 alone, 1,200-row transactions, 240,000 rows: 20 µs a row against
    // 27). crisismerge (64, default 16) stays well above it, or a level reaching 16 segments would be
    // merged whole at once inside one catch-up (145 ms against 56 at most per transaction).
    version: 34,
    up: `
      INSERT INTO request_text (request_text, rank) VALUES ('automerge', 16);
      INSERT INTO request_text (request_text, rank) VALUES ('crisismerge', 64);
    `,
  },
  {
    // search_keys_type leaves out web captures, nearly every request: a web capture no longer writes
    // that index's pages (each search-indexed token's, every catch-up). A search for another type
    // names the index's WHERE (compile-sql.ts, SearchKey.common); type:web reads the token's keys in
    // order, most of which match it.
    version: 35,
    up: `
      DROP INDEX search_keys_type;
      CREATE INDEX search_keys_type ON search_keys (token_id, type COLLATE NOCASE, sorting, seq) WHERE type <> 'web';
    `,
  },
  {
    // The method indexes leave out POST, what webhooks nearly all send, as search_keys_type leaves
    // out web (the migration before): a POST capture writes neither. method:POST reads the token's keys in
    // order, where POSTs are most of what it finds; any other method names the indexes' WHERE.
    version: 36,
    up: `
      DROP INDEX search_keys_method;
      DROP INDEX search_keys_method_created;
      CREATE INDEX search_keys_method ON search_keys (token_id, method COLLATE NOCASE, sorting, seq) WHERE method <> 'POST';
      CREATE INDEX search_keys_method_created ON search_keys (token_id, method COLLATE NOCASE, created_at) WHERE method <> 'POST';
    `,
  },
  {
    // No statement reads tokens by (premium, latest_request_at): the inactive tokens' query scans
    // the table (its OR and COALESCE leave the index out). The catch-up's UPDATE of each token it
    // touched moved the token's entry in it on every step.
    version: 37,
    up: `DROP INDEX IF EXISTS tokens_activity;`,
  },
  {
    // request_keys is keyed by a token's number instead of its UUID (requests/token-number.ts): an
    // entry of ~20 bytes instead of ~55, so that each catch-up step writes and splits fewer of its
    // pages (the catch-up joins each row to its token for the number). The number is a column of
    // tokens, given at insert from a counter that never goes back, so a deleted token's number is
    // never reused; not the rowid, which VACUUM may renumber. Existing tokens are numbered in
    // rowid order. request_keys is rebuilt in one pass, in key order: tokens by number, each
    // token's keys in order (a token's deletion took its keys: none is left without its token),
    // unsorted (the rowid in the ORDER BY tells SQLite each number is one token's).
    // The trigger requests_unkey changes only in its request_keys line.
    version: 38,
    up: `
      ALTER TABLE tokens ADD COLUMN number INTEGER;
      UPDATE tokens SET number = rowid;
      CREATE UNIQUE INDEX tokens_number ON tokens(number);
      CREATE TABLE token_numbering (id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL);
      INSERT INTO token_numbering (id, last) SELECT 1, coalesce(max(number), 0) FROM tokens;
      CREATE TRIGGER tokens_numbered AFTER INSERT ON tokens WHEN NEW.number IS NULL BEGIN
        UPDATE token_numbering SET last = last + 1;
        UPDATE tokens SET number = (SELECT last FROM token_numbering) WHERE rowid = NEW.rowid;
      END;
      CREATE TABLE request_keys_by_number (
        token_number INTEGER NOT NULL, sorting INTEGER NOT NULL, seq INTEGER NOT NULL,
        PRIMARY KEY (token_number, sorting, seq)
      ) WITHOUT ROWID;
      INSERT INTO request_keys_by_number (token_number, sorting, seq)
        SELECT t.number, k.sorting, k.seq FROM tokens t INDEXED BY tokens_number CROSS JOIN request_keys k ON k.token_id = t.uuid
          ORDER BY t.number, t.rowid, k.sorting, k.seq;
      DROP TRIGGER requests_unkey;
      DROP TABLE request_keys;
      ALTER TABLE request_keys_by_number RENAME TO request_keys;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests WHEN OLD.seq > (SELECT upto FROM request_sweep) BEGIN
        DELETE FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = OLD.token_id) AND sorting = OLD.sorting AND seq = OLD.seq;
        DELETE FROM request_ids WHERE uuid = OLD.uuid AND seq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
        DELETE FROM request_trimmed WHERE seq = OLD.seq;
      END;
    `,
  },
  {
    // A request's UUID entry and files go by one trigger for every deletion, the sweep's among
    // them (requests_unid), rather than by requests_unkey outside a sweep and requests_unswept in
    // one: a swept row runs one trigger condition that reads request_sweep instead of two.
    // requests_unkey keeps what only a deletion outside a sweep does: the key and the list entry.
    version: 39,
    up: `
      DROP TRIGGER requests_unswept;
      DROP TRIGGER requests_unkey;
      CREATE TRIGGER requests_unkey AFTER DELETE ON requests WHEN OLD.seq > (SELECT upto FROM request_sweep) BEGIN
        DELETE FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = OLD.token_id) AND sorting = OLD.sorting AND seq = OLD.seq;
        DELETE FROM request_trimmed WHERE seq = OLD.seq;
      END;
      CREATE TRIGGER requests_unid AFTER DELETE ON requests BEGIN
        DELETE FROM request_ids WHERE uuid = OLD.uuid AND seq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
      END;
    `,
  },
  {
    // search_keys is keyed by the token's number too (requests/token-number.ts), as request_keys is:
    // its key and each of its seven indexes' entries lose the 36-character UUID, so that a
    // search-indexed capture writes and splits fewer of their pages. Rebuilt in one pass in key
    // order as request_keys was (the rowid in the ORDER BY: each number is one token's, its keys
    // stream unsorted); a key whose token is gone would have no number and is left out. The
    // indexes are made again after the rows, each from a sort. The triggers requests_note_key and
    // requests_unsearch change only in how they name the token.
    version: 40,
    up: `
      CREATE TABLE search_keys_by_number (
        token_number INTEGER NOT NULL, sorting INTEGER NOT NULL, seq INTEGER NOT NULL,
        method TEXT, type TEXT, ip TEXT, created_at INTEGER, size INTEGER, has_note INTEGER,
        PRIMARY KEY (token_number, sorting, seq)
      ) WITHOUT ROWID;
      INSERT INTO search_keys_by_number (token_number, sorting, seq, method, type, ip, created_at, size, has_note)
        SELECT t.number, k.sorting, k.seq, k.method, k.type, k.ip, k.created_at, k.size, k.has_note
          FROM tokens t INDEXED BY tokens_number CROSS JOIN search_keys k ON k.token_id = t.uuid
          ORDER BY t.number, t.rowid, k.sorting, k.seq;
      DROP TRIGGER requests_note_key;
      DROP TRIGGER requests_unsearch;
      DROP TABLE search_keys;
      ALTER TABLE search_keys_by_number RENAME TO search_keys;
      CREATE INDEX search_keys_method ON search_keys (token_number, method COLLATE NOCASE, sorting, seq) WHERE method <> 'POST';
      CREATE INDEX search_keys_type ON search_keys (token_number, type COLLATE NOCASE, sorting, seq) WHERE type <> 'web';
      CREATE INDEX search_keys_ip ON search_keys (token_number, ip COLLATE NOCASE, sorting, seq);
      CREATE INDEX search_keys_created ON search_keys (token_number, created_at);
      CREATE INDEX search_keys_method_created ON search_keys (token_number, method COLLATE NOCASE, created_at) WHERE method <> 'POST';
      CREATE INDEX search_keys_size ON search_keys (token_number, size);
      CREATE INDEX search_keys_note ON search_keys (token_number, has_note, sorting, seq) WHERE has_note IS NOT NULL;
      CREATE TRIGGER requests_note_key AFTER UPDATE OF note ON requests BEGIN
        UPDATE search_keys SET has_note = CASE WHEN length(NEW.note) > 0 THEN 1 END
          WHERE token_number = (SELECT number FROM tokens WHERE uuid = NEW.token_id) AND sorting = NEW.sorting AND seq = NEW.seq;
      END;
      CREATE TRIGGER requests_unsearch AFTER DELETE ON requests WHEN OLD.token_id IN (SELECT token_id FROM search_tokens) BEGIN
        INSERT OR IGNORE INTO request_text_stale (seq)
          SELECT OLD.seq FROM search_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = OLD.token_id) AND sorting = OLD.sorting AND seq = OLD.seq;
        DELETE FROM search_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = OLD.token_id) AND sorting = OLD.sorting AND seq = OLD.seq;
        DELETE FROM search_rows WHERE seq = OLD.seq;
        DELETE FROM search_fields WHERE seq = OLD.seq;
      END;
    `,
  },
  {
    // One trigger on requests instead of three: every trigger on a table runs a program per deleted
    // row, even when its WHEN is false, and the sweep's rows (requests/writer/trims.ts) paid for
    // three, two of them reading a table for their WHEN. requests_gone does what requests_unid did
    // and hands the rest to two views' INSTEAD OF triggers, each with the WHEN its trigger had:
    // request_unkey (the key and the list entry: requests_unkey) and, from it, request_unsearch (a
    // search-indexed request's search rows: requests_unsearch). They are inserted into by VALUES,
    // not by a SELECT with a WHERE, which would build an ephemeral table per row. A sweep whose
    // rows are the only rows of their seq range (every token trimming at the same pace) deletes
    // their UUID entries and files itself, by range, and sets request_sweep.ids_upto to the same
    // seq as upto: its rows then run requests_gone's WHEN only. Any other sweep leaves ids_upto at
    // 0 and its rows take their UUID entries and files with them as before.
    version: 41,
    up: `
      ALTER TABLE request_sweep ADD COLUMN ids_upto INTEGER NOT NULL DEFAULT 0;
      DROP TRIGGER requests_unid;
      DROP TRIGGER requests_unkey;
      DROP TRIGGER requests_unsearch;
      CREATE VIEW request_unsearch (seq, token_id, sorting) AS SELECT NULL, NULL, NULL WHERE 0;
      CREATE TRIGGER request_unsearch_each INSTEAD OF INSERT ON request_unsearch WHEN NEW.token_id IN (SELECT token_id FROM search_tokens) BEGIN
        INSERT OR IGNORE INTO request_text_stale (seq)
          SELECT NEW.seq FROM search_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = NEW.token_id) AND sorting = NEW.sorting AND seq = NEW.seq;
        DELETE FROM search_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = NEW.token_id) AND sorting = NEW.sorting AND seq = NEW.seq;
        DELETE FROM search_rows WHERE seq = NEW.seq;
        DELETE FROM search_fields WHERE seq = NEW.seq;
      END;
      CREATE VIEW request_unkey (seq, token_id, sorting) AS SELECT NULL, NULL, NULL WHERE 0;
      CREATE TRIGGER request_unkey_each INSTEAD OF INSERT ON request_unkey WHEN NEW.seq > (SELECT upto FROM request_sweep) BEGIN
        DELETE FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = NEW.token_id) AND sorting = NEW.sorting AND seq = NEW.seq;
        DELETE FROM request_trimmed WHERE seq = NEW.seq;
        INSERT INTO request_unsearch (seq, token_id, sorting) VALUES (NEW.seq, NEW.token_id, NEW.sorting);
      END;
      CREATE TRIGGER requests_gone AFTER DELETE ON requests WHEN OLD.seq > (SELECT ids_upto FROM request_sweep) BEGIN
        DELETE FROM request_ids WHERE uuid = OLD.uuid AND seq = OLD.seq;
        DELETE FROM request_files WHERE request_uuid = OLD.uuid;
        INSERT INTO request_unkey (seq, token_id, sorting) VALUES (OLD.seq, OLD.token_id, OLD.sorting);
      END;
    `,
  },
];

/**
 * Applies every migration not applied yet, in version order. Applied versions are recorded one by
 * one, so migrations added by different modules may land in any order. Several processes may start
 * on one file at once: each migration runs in an IMMEDIATE transaction (one process at a time) that
 * first checks whether another process applied it meanwhile.
 */
export function migrate(db: Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    // The pragma is a no-op inside a transaction: it is switched around it.
    const fk = m.rebuild ? db.pragma('foreign_keys', { simple: true }) : 0;
    if (fk) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        if (isApplied.get(m.version)) return;
        db.exec(m.up);
        for (const table of m.rebuild?.referencedBy ?? []) {
          const broken = db.pragma(`foreign_key_check(${table})`) as unknown[];
          if (broken.length) throw new Error(`migration ${m.version} broke ${broken.length} foreign key(s) of ${table}`);
        }
        record.run(m.version, Date.now());
      }).immediate();
    } finally {
      if (fk) db.pragma('foreign_keys = ON');
    }
  }
}
