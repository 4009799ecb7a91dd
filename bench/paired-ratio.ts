// Ratios from paired rounds: in each round the service and its bare server are measured one right
// after the other, so a round's ratio compares the two under the same machine load, while rates
// alone swing 2-5x between rounds on a shared machine. What one run can say is the spread of
// those per-round ratios, and for two protocols measured in the same rounds, of their quotient.

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** Rounds that gave a figure (a round whose bare server answered nothing gives none). */
  rounds: number;
}

/** Median and range of the finite values; NaN throughout for none. */
export function spread(values: number[]): Spread {
  const xs = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (xs.length === 0) return { median: NaN, min: NaN, max: NaN, rounds: 0 };
  const mid = xs.length >> 1;
  const median = xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
  return { median, min: xs[0]!, max: xs[xs.length - 1]!, rounds: xs.length };
}

/** A round's capture/bare ratio; NaN when the bare server answered nothing. */
export const roundRatio = (capture: number, bare: number): number => (bare > 0 ? capture / bare : NaN);

export interface RatioComparison {
  /** Per-round ratio of the protocol under test, and of the one it is held against. */
  tested: Spread;
  reference: Spread;
  /** Per round, tested ratio / reference ratio: the comparison each round makes on its own. */
  quotient: Spread;
  /** Rounds whose quotient reached `tolerance`. */
  roundsMet: number;
  /** The goal: the median round's quotient reaches `tolerance`. */
  met: boolean;
}

/**
 * Holds per-round ratios of one protocol against another's from the same rounds (equal lengths,
 * round i of each measured in the same minute). The median round decides: one window caught by a
 * colleague's test run moves it by at most one place.
 */
export function compareRatios(tested: number[], reference: number[], tolerance: number): RatioComparison {
  if (tested.length !== reference.length) throw new Error(`compareRatios: ${tested.length} rounds against ${reference.length}`);
  const quotients = tested.map((t, i) => (reference[i]! > 0 ? t / reference[i]! : NaN));
  const quotient = spread(quotients);
  return {
    tested: spread(tested),
    reference: spread(reference),
    quotient,
    roundsMet: quotients.filter((q) => q >= tolerance).length,
    met: quotient.rounds > 0 && quotient.median >= tolerance,
  };
}

/** `0.52x (0.41-0.60x)`: a median and its range. */
export const fmtSpread = (s: Spread, unit = 'x'): string => (s.rounds === 0 ? 'n/a' : `${s.median.toFixed(2)}${unit} (${s.min.toFixed(2)}-${s.max.toFixed(2)}${unit})`);

/** A 95% interval: where the middle 95 of 100 resampled figures fell. */
export interface Interval {
  low: number;
  high: number;
}

/** A small seeded generator (mulberry32): the same rounds give the same interval in every report. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * How much a figure made from rounds is left open by those rounds: `figure` computed over `draws`
 * resamplings of the round numbers 0..rounds-1 (with replacement, a bootstrap), and the middle 95%
 * of its values. Null with fewer than 3 rounds or no finite figure. A goal whose bound lies inside
 * the interval is not decided by the run, whichever way its figure fell; rounds that drift together
 * (a machine slow for minutes) leave more open than this says.
 */
export function roundsInterval(rounds: number, figure: (picks: number[]) => number, draws = 2000): Interval | null {
  if (rounds < 3) return null;
  const random = seededRandom(rounds);
  const values: number[] = [];
  for (let d = 0; d < draws; d++) {
    const picks = Array.from({ length: rounds }, () => Math.floor(random() * rounds));
    const v = figure(picks);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  return { low: at(0.025), high: at(0.975) };
}
