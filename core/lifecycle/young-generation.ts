// Start-up keeps V8's young generation at its first size (idle RSS: the bench's memory section). Loading the service
// compiles every module and builds what lives as long as the process (about 25 MB of old
// generation), all of it first allocated in the young generation. V8 doubles the young generation
// each time as much has survived scavenges as it holds (1 -> 16 MB semi-spaces, 32 MB committed) and
// gives it back only in a GC while little is being allocated, which an idle service seldom runs: the
// idle service kept about 20 MB it needed only while starting (figures in bench/RESULTS.md). Growth comes back, with V8's default factor, once start-up
// is over, so capture bursts grow it, but only up to MAX_SEMI_SPACE_MB (node-flags.ts), what `npm start` and the
// image give node (--max-semi-space-size=8): a plain `node dist/core/main.js` kept
// 16 MB more after a burst of captures (the big token's RSS in the bench).
import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';
import { flagGiven, MAX_SEMI_SPACE_MB } from './node-flags.js';

const GROWTH_FLAG = '--semi-space-growth-factor';
const MAX_SEMI_FLAG = '--max-semi-space-size';
/** V8's default (flag-definitions.h). */
const DEFAULT_GROWTH_FACTOR = 2;

/** Whether the process was started with its own growth factor (node flag or NODE_OPTIONS): then it is left alone. */
export function growthFactorGiven(execArgv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return flagGiven(GROWTH_FLAG, execArgv, nodeOptions);
}

/** Whether the process was started with its own semi-space bound: then growth is not capped here. */
export function maxSemiSpaceGiven(execArgv: string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return flagGiven(MAX_SEMI_FLAG, execArgv, nodeOptions);
}

/** Committed bytes of the young generation (both semi-spaces). */
const youngBytes = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/**
 * Holds growth whenever the young generation has reached `maxSemiMb` semi-spaces, lets it grow
 * (V8's factor) while it is smaller: checked after every GC, as V8 grows it only in a scavenge and
 * reads the factor each time (so it may pass the bound once if one synchronous run of code
 * triggers two growths before the check). V8 shrinks it by itself when allocation stays low.
 */
function capGrowth(maxSemiMb: number): void {
  const maxBytes = 2 * maxSemiMb * 2 ** 20;
  let factor = 0;
  const check = () => {
    const want = youngBytes() >= maxBytes ? 1 : DEFAULT_GROWTH_FACTOR;
    if (want === factor) return;
    factor = want;
    v8.setFlagsFromString(`${GROWTH_FLAG}=${want}`);
  };
  new PerformanceObserver(check).observe({ entryTypes: ['gc'] });
  check();
}

/**
 * Stops the young generation from growing until the returned function is called (once start-up is
 * over; calling it again does nothing), then lets it grow up to MAX_SEMI_SPACE_MB semi-spaces. Call
 * it before the service's modules are imported: ESM loads and compiles a whole static import graph
 * before running any of it. A growth factor given to node leaves all of it alone; a semi-space
 * bound given to node replaces the cap.
 */
export function holdYoungGeneration(maxSemiMb = MAX_SEMI_SPACE_MB): () => void {
  if (growthFactorGiven()) return () => {};
  // A V8 flag set at run time: this one is read each time the young generation would grow.
  v8.setFlagsFromString(`${GROWTH_FLAG}=1`);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (maxSemiSpaceGiven()) v8.setFlagsFromString(`${GROWTH_FLAG}=${DEFAULT_GROWTH_FACTOR}`);
    else capGrowth(maxSemiMb);
  };
}
