// Start-up keeps V8's young generation at its first size (idle RSS: the bench's memory section). Loading the service
// compiles every module and builds what lives as long as the process (about 25 MB of old
// generation), all of it first allocated in the young generation. V8 doubles the young generation
// each time as much has survived scavenges as it holds (1 -> 16 MB semi-spaces, 32 MB committed) and
// gives it back only in a GC while little is being allocated, which an idle service seldom runs: the
// idle service kept about 20 MB it needed only while starting (figures in bench/RESULTS.md). Growth comes back, with V8's default factor, once start-up
// is over, so capture bursts grow it as before.
//
// Its collections (scavenges) also run on the event loop's thread alone: V8 hands a large young
// generation's scavenge to helper threads, whose wake-ups and hand-overs cost more CPU than they
// save in pause time when the other cores are busy serving the same load (the capture bench: 4-8%
// of the service's CPU per capture on 2 cores; a scavenge lasts a few ms either way).
import v8 from 'node:v8';

const GROWTH_FLAG = '--semi-space-growth-factor';
/** V8's default (flag-definitions.h). */
const DEFAULT_GROWTH_FACTOR = 2;

const SCAVENGE_FLAGS = ['--parallel-scavenge', '--no-parallel-scavenge'];

/** Whether the process was given one of `flags` (node flag or NODE_OPTIONS, in either spelling). */
function flagGiven(flags: string[], execArgv: string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => flags.some((flag) => arg.replace(/_/g, '-').split('=')[0] === flag));
}

/** Whether the process was started with its own growth factor (node flag or NODE_OPTIONS): then it is left alone. */
export function growthFactorGiven(execArgv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return flagGiven([GROWTH_FLAG], execArgv, nodeOptions);
}

/** Whether the process was told how to scavenge (`--[no-]parallel-scavenge`): then it is left alone. */
export function scavengeGiven(execArgv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return flagGiven(SCAVENGE_FLAGS, execArgv, nodeOptions);
}

/** Scavenges run on the calling (event loop's) thread alone from here on, unless node was told otherwise. */
export function scavengeOnThisThread(): void {
  // V8 reads this flag at each scavenge: setting it at run time takes effect at the next one.
  if (!scavengeGiven()) v8.setFlagsFromString('--no-parallel-scavenge');
}

/**
 * Stops the young generation from growing until the returned function is called (once start-up is
 * over; calling it again does nothing). Call it before the service's modules are imported: ESM
 * loads and compiles a whole static import graph before running any of it.
 */
export function holdYoungGeneration(): () => void {
  if (growthFactorGiven()) return () => {};
  // A V8 flag set at run time: this one is read each time the young generation would grow.
  v8.setFlagsFromString(`${GROWTH_FLAG}=1`);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    v8.setFlagsFromString(`${GROWTH_FLAG}=${DEFAULT_GROWTH_FACTOR}`);
  };
}
