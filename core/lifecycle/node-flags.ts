// The flags node runs the service with: `npm start` (scripts/start.mjs) and the bench give them, the
// image's CMD repeats them (a test checks it). V8 reads them only when the process starts. It
// imports nothing: core/main.ts loads it (through young-generation.ts) before the rest of the service.
//
// --max-semi-space-size=8: the young generation grows no further under load (young-generation.ts).
// --single-threaded-gc: V8 collects garbage on the thread that allocated it, without helper
//   threads (parallel scavenges, concurrent marking and sweeping). The service's allocation is
//   short-lived (a capture's record and buffers): a scavenge keeps ~200 KB and takes ~1.3 ms either
//   way, and the helpers' hand-offs cost more CPU than they save. On 2 cores under capture load,
//   8 to 9% less CPU per capture, paired (figures in bench/RESULTS.md).
/** The semi-space size past which the young generation does not grow, unless node was given its own. */
export const MAX_SEMI_SPACE_MB = 8;

export const SERVICE_NODE_FLAGS: readonly string[] = [`--max-semi-space-size=${MAX_SEMI_SPACE_MB}`, '--single-threaded-gc'];

/** A flag's name without its value, dashes for underscores (`--max_semi_space_size=4` -> `--max-semi-space-size`). */
const flagName = (arg: string): string => arg.split('=')[0]!.replace(/_/g, '-');

/** Whether node was started with `flag` (its own arguments or NODE_OPTIONS, dashes or underscores, any value). */
export function flagGiven(flag: string, execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const name = flagName(flag);
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => flagName(arg) === name);
}

/** The service's flags that `execArgv` and `nodeOptions` do not set already (a flag given to node wins). */
export function missingServiceFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return SERVICE_NODE_FLAGS.filter((flag) => !flagGiven(flag, execArgv, nodeOptions));
}
