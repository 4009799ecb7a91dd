// Start-up keeps V8's young generation at its first size (idle RSS: the bench's memory section). Loading the service
// compiles every module and builds what lives as long as the process (about 25 MB of old
// generation), all of it first allocated in the young generation. V8 doubles the young generation
// each time as much has survived scavenges as it holds (1 -> 16 MB semi-spaces, 32 MB committed) and
// gives it back only in a GC while little is being allocated, which an idle service seldom runs: the
// idle service kept about 20 MB it needed only while starting (figures in bench/RESULTS.md). Growth comes back, with V8's default factor, once start-up
// is over, so capture bursts grow it as before.
import v8 from 'node:v8';

const GROWTH_FLAG = '--semi-space-growth-factor';
/** V8's default (flag-definitions.h). */
const DEFAULT_GROWTH_FACTOR = 2;

/** Whether the process was started with its own growth factor (node flag or NODE_OPTIONS): then it is left alone. */
export function growthFactorGiven(execArgv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => arg.replace(/_/g, '-').startsWith(GROWTH_FLAG));
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
