import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAX_SEMI_SPACE_MB } from './node-flags.js';
import { growthFactorGiven, maxSemiSpaceGiven } from './young-generation.js';

const MODULE = fileURLToPath(new URL('./young-generation.ts', import.meta.url));

// V8 flags are the whole process's: the holding runs in a child, never in the test worker.
// It reports the young generation's size (KB, committed) when held (loading tsx may have grown it
// already), after keeping many objects alive while held, and after more of them once released.
const CHILD = `
import v8 from 'node:v8';
const { holdYoungGeneration } = await import(${JSON.stringify(MODULE)});
const youngKb = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size >> 10;
const kept = [];
const survive = () => { for (let i = 0; i < 300_000; i++) kept.push({ i, text: 'x' + i, pair: [i, i + 1] }); };
const release = holdYoungGeneration();
const atHold = youngKb();
survive();
const held = youngKb();
release();
survive();
console.log(JSON.stringify({ atHold, held, released: youngKb() }));
`;

// Once released, objects kept a batch at a time between event-loop turns (as captures arrive): the
// most the young generation reached (KB, committed).
const CAPPED_CHILD = `
import v8 from 'node:v8';
const { holdYoungGeneration } = await import(${JSON.stringify(MODULE)});
const youngKb = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size >> 10;
const release = holdYoungGeneration();
release();
let kept = [];
let most = 0;
for (let turn = 0; turn < 300; turn++) {
  for (let i = 0; i < 5_000; i++) kept.push({ i, text: 'x' + i, pair: [i, i + 1] });
  if (kept.length > 400_000) kept = kept.slice(200_000);
  most = Math.max(most, youngKb());
  await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify({ most }));
`;

interface YoungSizes {
  atHold: number;
  held: number;
  released: number;
}

async function runChild(nodeArgs: string[], child = CHILD): Promise<YoungSizes> {
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', child], {
    env: { PATH: process.env.PATH },
  });
  return JSON.parse(stdout) as YoungSizes;
}

async function mostWhileKeeping(nodeArgs: string[]): Promise<number> {
  return ((await runChild(nodeArgs, CAPPED_CHILD)) as unknown as { most: number }).most;
}

describe('holding the young generation during start-up', () => {
  it('keeps it at its size while held and lets it grow once released', async () => {
    const { atHold, held, released } = await runChild([]);
    expect(held).toBe(atHold);
    // Unheld, this much kept data grows it to V8's most (16 MB semi-spaces, 32 MB committed).
    expect(released).toBeGreaterThan(2 * held);
  });

  it('leaves a growth factor given to node alone', async () => {
    const { atHold, held } = await runChild(['--semi-space-growth-factor=2']);
    expect(held).toBeGreaterThan(2 * atHold);
  });

  it('lets it grow once released only up to MAX_SEMI_SPACE_MB semi-spaces', async () => {
    const most = await mostWhileKeeping([]);
    expect(most).toBeGreaterThanOrEqual(MAX_SEMI_SPACE_MB * 1024);
    expect(most).toBeLessThanOrEqual(2 * MAX_SEMI_SPACE_MB * 1024);
  });

  it('leaves the bound to node when it was given one', async () => {
    expect(await mostWhileKeeping(['--max-semi-space-size=16'])).toBeGreaterThan(2 * MAX_SEMI_SPACE_MB * 1024);
  });

  it('sees the growth factor in node flags and NODE_OPTIONS, in either spelling', () => {
    expect(growthFactorGiven(['--semi-space-growth-factor=4'], '')).toBe(true);
    expect(growthFactorGiven([], '--max-old-space-size=512 --semi_space_growth_factor=3')).toBe(true);
    expect(growthFactorGiven(['--max-semi-space-size=8'], '--enable-source-maps')).toBe(false);
    expect(growthFactorGiven([], '')).toBe(false);
    expect(maxSemiSpaceGiven(['--max-semi-space-size=8'], '')).toBe(true);
    expect(maxSemiSpaceGiven([], '--max_semi_space_size=4')).toBe(true);
    expect(maxSemiSpaceGiven(['--semi-space-growth-factor=4'], '')).toBe(false);
  });
});
