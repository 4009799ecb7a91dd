// What every command gets: its parsed command line, the API client (built on first use from
// flags > environment > config file), the output streams with or without colour, and a signal
// that aborts on Ctrl-C / SIGTERM so long-running commands can tidy up and exit 0.
import { CaptureClient } from '../packages/client/src/index.js';
import { text, type Parsed } from './args.js';
import { connectionFromProcess } from './config.js';
import { colourWanted, paint, type Paint } from './output.js';

export interface Context {
  parsed: Parsed;
  client(): CaptureClient;
  out(line: string): void;
  err(line: string): void;
  paint: Paint;
  /** Aborted by Ctrl-C or SIGTERM. */
  signal: AbortSignal;
}

export function processContext(parsed: Parsed, signal: AbortSignal): Context {
  let client: CaptureClient | undefined;
  return {
    parsed,
    client() {
      if (!client) {
        const c = connectionFromProcess({ server: text(parsed, 'server'), apiKey: text(parsed, 'api-key'), config: text(parsed, 'config') });
        client = new CaptureClient({ url: c.url, apiKey: c.apiKey });
      }
      return client;
    },
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
    paint: paint(colourWanted(process.stdout, process.env, parsed.options.has('no-color'))),
    signal,
  };
}
