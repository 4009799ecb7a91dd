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
