/**
 * Bounds shared by every store's request reads.
 *
 * COUNT_BOUND: a filtered request count stops once it passes this many matches
 * (the list then reports `totalCapped: true` and `total` = COUNT_BOUND) so that
 * a search over a million requests never scans them all just to count.
 * Unfiltered counts come from the token's counter and are always exact.
 */
export const COUNT_BOUND = 10_000;
