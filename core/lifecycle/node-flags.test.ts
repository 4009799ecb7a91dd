import { describe, expect, it } from 'vitest';
import { flagGiven, missingServiceFlags, SERVICE_NODE_FLAGS } from './node-flags.js';

describe("the service's node flags", () => {
  it('are all missing from a plain node', () => {
    expect(missingServiceFlags([], '')).toEqual(SERVICE_NODE_FLAGS);
  });

  it('leave out what node was given, as an argument or in NODE_OPTIONS, in either spelling and with any value', () => {
    expect(missingServiceFlags(['--max-semi-space-size=16'], '')).toEqual(['--single-threaded-gc']);
    expect(missingServiceFlags([], '--enable-source-maps --single_threaded_gc')).toEqual(['--max-semi-space-size=8']);
    expect(missingServiceFlags(['--single-threaded-gc'], '--max_semi_space_size=4')).toEqual([]);
  });

  it('match a flag by its whole name, not a prefix of it', () => {
    expect(flagGiven('--single-threaded-gc', ['--single-threaded-gc-scavenge'], '')).toBe(false);
    expect(flagGiven('--max-semi-space-size', ['--max-semi-space-size=8'], '')).toBe(true);
  });
});
