// What `capture --help` and `capture <command> --help` print: the list of commands, and for each
// command its synopsis, what it does and examples (docs/cli.md says the same at more length).

export const USAGE = `usage: capture <command> [options]

Commands that use a running server:
  token create [--alias a] [--status n] [--content text] [--content-type t] [--listen s]
               [--request-limit n] [--description text] [--json | -q]
                                      make a token; prints its UUID and URL (-q: the UUID only)
  token get <token>                   the token as JSON
  token delete <token...>             delete tokens and their requests
  tail <token> [--json]               requests as they arrive (one JSON object a line with --json)
  forward <token> --target <url> [--listen-timeout s] [--json]
                                      send each capture on to <url> and answer its caller with the
                                      target's response (s: how long callers wait, 0-10, default 10)
  wait <token> [--query q] [--timeout s] [--after id]
                                      print the newest request matching q (the search language) as
                                      JSON, waiting up to s seconds (default 30); exit 1 on timeout
  replay <token> [id... | --query q | --all] [--target url] [--method m] [--actions] [--json]
                                      send stored requests again (default: the newest) to <url> or
                                      the token's own URL; --actions runs the token's actions again
  export <token> --har|--csv [--query q] [--newest] [-o file]
                                      the requests as a HAR archive or CSV
  send <provider> <event> --to <token|url> [--secret s] [--format json|form] [--overrides json] [--json]
                                      a sample delivery signed as the provider signs (GitHub, Stripe,
                                      Slack, ...) into a token or to a URL; send --list [provider]
                                      shows the catalogue (docs/samples.md)
  workflows apply <file...>           store workflow documents on the server (PUT /token/{id}/workflow)
  workflows export <token> [file]     a token's action chain as YAML

Commands that run here:
  workflows validate <file...>        check workflow documents; writes nothing
  workflows apply --database [--create] <file...>
  workflows export --database <token> [file]
                                      the same, on the database of DATA_DIR or MONGODB_URI directly
  secrets rotate                      re-seal every stored secret under SECRET_KEY
  migrate --from <where> --to <where> [--force]
                                      copy everything between SQLite and MongoDB
  backup [--force] <file>             consistent copy of the SQLite database

Server and API key, each from the first that sets it:
  --server <url> / --api-key <key>    (-s / -k)
  CAPTURE_URL / CAPTURE_API_KEY       environment
  --config <file>, else CAPTURE_CONFIG, else ./.capturerc, else ~/.config/capture/config.json:
                                      {"url": "http://host:8084", "api_key": "..."}
  The URL defaults to http://localhost:8084.

  --no-color   no colours (also when NO_COLOR is set, or stdout is not a terminal)
  --help, -h   this text; capture <command> --help: that command's text
  --version    the version

Exit codes: 0 done, 1 failed (API error, unreachable server, timeout), 2 wrong command line.`;

const CONNECTION = `Server and API key: --server/-s, --api-key/-k, --config, or CAPTURE_URL, CAPTURE_API_KEY
(capture --help says where else they are looked up).`;

/** Each command's own text, by its first word. */
export const COMMAND_HELP: Record<string, string> = {
  token: `usage: capture token create [--alias name] [--status n] [--content text] [--content-type type]
                           [--listen seconds] [--request-limit n] [--description text] [--json | -q]
       capture token get <token>
       capture token delete <token...>

create makes a token and prints its UUID and capture URL (and its alias URL); -q prints the UUID
only, --json the whole token. get prints a token as JSON; delete deletes tokens with their
requests. <token> is a UUID or an alias.

Examples:
  capture token create --status 202 --content accepted
  TOKEN=$(capture token create -q)
  capture token get "$TOKEN" | jq .request_limit
  capture token delete "$TOKEN"

${CONNECTION}`,

  tail: `usage: capture tail <token> [--json]

Shows each request as it is captured, one line each (time, method, path, status, size, sender,
request ID), until Ctrl-C. --json prints each request as one line of JSON (the API's request
object). A dropped connection is resumed without missing or repeating a request; exit 1 when the
token is deleted.

Examples:
  capture tail "$TOKEN"
  capture tail "$TOKEN" --json | jq -r .content
  capture tail "$TOKEN" --json | head -1          # the next request, then stop

${CONNECTION}`,

  forward: `usage: capture forward <token> --target <url> [--listen-timeout seconds] [--json]

Sends every HTTP request the token captures on to <url> (method, the path after the token, query,
headers, exact body) and answers the caller with the target's response. Callers wait up to
--listen-timeout seconds (0-10, default 10; 0: they get the token's default answer at once).
Ctrl-C stops and puts the token's listen setting back.

Examples:
  capture forward "$TOKEN" --target http://localhost:3000/webhooks
  capture forward "$TOKEN" --target http://localhost:3000 --listen-timeout 0 --json

${CONNECTION}`,

  wait: `usage: capture wait <token> [--query q] [--timeout seconds] [--after request-id]

Prints the newest request matching q (the search language; empty: any request) as JSON and exits 0:
at once when one is stored, else as soon as one arrives. Exit 1 after --timeout seconds (default
30). --after counts only requests newer than the one named.

Examples:
  capture wait "$TOKEN" --query 'method:POST' --timeout 60 > hook.json
  capture wait "$TOKEN" --query 'headers.x-github-event:push' | jq -r .content
  capture wait "$TOKEN" --after "$LAST" --timeout 10

${CONNECTION}`,

  replay: `usage: capture replay <token> [request-id... | --query q | --all] [--target url] [--method M] [--json]
       capture replay <token> [request-id... | --query q | --all] --actions [--json]

Sends stored requests again (default: the newest), through the server, to --target or the token's
own URL; with --actions runs the token's Custom Actions again on them instead. Exit 1 when any
request failed.

Examples:
  capture replay "$TOKEN"
  capture replay "$TOKEN" --query 'method:POST' --target http://localhost:3000/webhooks
  capture replay "$TOKEN" 4f0d2a8e-5b6c-4d7e-8f90-a1b2c3d4e5f6 --actions --json

${CONNECTION}`,

  export: `usage: capture export <token> --har|--csv [--query q] [--newest] [-o file]

The token's requests (those matching q) as a HAR 1.2 archive or CSV, oldest first (--newest: the
other way), to stdout or -o file. The server allows 3 exports of a token a minute.

Examples:
  capture export "$TOKEN" --har -o captured.har
  capture export "$TOKEN" --csv --query 'method:POST' > posts.csv

${CONNECTION}`,

  send: `usage: capture send <provider> <event> --to <token|url> [--secret s] [--format json|form]
                    [--overrides json] [--json]
       capture send --list [provider]

One sample delivery, built and signed as the provider does it (github, stripe, standard_webhooks,
svix, slack, shopify, twilio), with a fresh timestamp. --to a token captures it there (Custom
Actions and all); --to an http(s) URL sends it there through the server's outbound policy (needs
an API key). --overrides is a JSON object merged into the payload before signing; --json prints
what was sent and what came back. --list lists the providers, --list <provider> its events.

Examples:
  capture send --list github
  capture send github pull_request.opened --secret "$GH_SECRET" --to "$TOKEN"
  capture send stripe invoice.paid --secret whsec_... --to http://localhost:3000/stripe --overrides '{"data":{"object":{"amount_paid":999}}}'

${CONNECTION}`,

  workflows: `usage: capture workflows validate <file...>
       capture workflows apply [--database [--create]] <file...>
       capture workflows export [--database] <token> [file]

validate checks workflow documents here, without a server; errors are file:line:column: field:
message. apply stores each TokenActions document as the chain of the token it names; export
writes a token's chain as YAML. With --database they work on the service's database (DATA_DIR or
MONGODB_URI) instead of through the API; --create may make a new SQLite database.

Examples:
  capture workflows validate hooks.yaml
  capture workflows apply hooks.yaml
  capture workflows export "$TOKEN" chain.yaml

${CONNECTION}`,

  secrets: `usage: capture secrets rotate

Re-seals every stored secret (provider credentials, secret action parameters) under SECRET_KEY,
opening old values with SECRET_KEY_PREVIOUS. Runs on the service's machine with its settings;
may run while the service does, and again. Exit 1 if a value could not be opened.

Example:
  SECRET_KEY=<new> SECRET_KEY_PREVIOUS=<old> capture secrets rotate`,

  migrate: `usage: capture migrate --from <where> --to <where> [--force] [--page-size n]

Copies everything from one store to another: <where> is a MongoDB URI, a SQLite file or a
DATA_DIR. Resumable; stop the service first. Exit 1 when the counts differ.

Example:
  capture migrate --from ./data --to 'mongodb://db1,db2,db3/capture?replicaSet=rs0'`,

  backup: `usage: capture backup [--force] <file>

A consistent copy of the SQLite database (DATA_DIR/capture.sqlite) while the service runs, checked
with PRAGMA integrity_check; bodies kept in files go beside it as <file>.bodies.

Example:
  capture backup /backups/capture-$(date +%F).sqlite`,
};

/** The text for `command` (its first word), or the list of every command. */
export function helpText(command: string | undefined): string {
  return command && Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command]! : USAGE;
}
