// Memory of the service (VmRSS of its process, /proc/<pid>/status). On a fresh service:
// idle after start-up (goal < 120 MB), the peak (VmHWM) during 50 concurrent 10 MB uploads, and how
// soon it is back under 200 MB (goal: within 60 s). On the big-token service: RSS while it holds
// BENCH_SEARCH_ROWS requests, sampled after seeding and after the searches (goal < 200 MB), and the
// largest WAL file seen while seeding and deleting (goal: never above 256 MB).
import { bigToken, closeBigToken } from '../big-token.js';
import { fmt, procMemMiB, quiet, startService, type BenchContext, type Goal, type Section, type SectionResult } from '../harness.js';

export const MEMORY_GOALS = { idleMiB: 120, afterUploadsMiB: 200, recoverWithinS: 60, bigTokenMiB: 200, walMiB: 256 };
const UPLOADS = 50;
/** 10 MB, under the default MAX_BODY_BYTES (10 MiB). */
const UPLOAD_BYTES = 10_000_000;

/** Seconds from the first sample until RSS is under `limit` (samples at `[seconds, MiB]`), or null. */
export function secondsUntilUnder(samples: Array<[number, number]>, limit: number): number | null {
  return samples.find(([, mib]) => mib < limit)?.[0] ?? null;
}

/** At most one sample per 10 s, and the last: enough for the report line. */
function thin(samples: Array<[number, number]>): Array<[number, number]> {
  return samples.filter(([s], i) => i === samples.length - 1 || Math.floor(s / 10) !== Math.floor((samples[i - 1]?.[0] ?? -10) / 10));
}

export const memorySection: Section = {
  name: 'memory',
  title: 'Memory: service RSS idle, after 50 x 10 MB uploads, and with the big token; largest WAL',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const runErrors: string[] = [];
    const svc = await startService({}, ctx.settings.serviceNodeArgs);
    let idle: number;
    let peak: number;
    const recovery: Array<[number, number]> = [];
    try {
      const pid = svc.proc.pid!;
      await quiet(pid, 10_000, 1000);
      idle = procMemMiB(pid);
      ctx.log(`memory: idle after start-up ${idle.toFixed(0)} MiB; ${UPLOADS} concurrent uploads of ${UPLOAD_BYTES / 1e6} MB`);

      const token = await svc.createToken();
      const body = Buffer.alloc(UPLOAD_BYTES, 'abcdefghij');
      const answers = await Promise.all(
        Array.from({ length: UPLOADS }, async () => {
          const res = await fetch(`${svc.url}/${token}`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      const failed = answers.filter((s) => s < 200 || s >= 300);
      if (failed.length) runErrors.push(`memory: ${failed.length} of ${UPLOADS} uploads answered ${[...new Set(failed)].join(', ')}`);
      peak = procMemMiB(pid, 'VmHWM');
      ctx.log(`memory: uploads answered, peak ${peak.toFixed(0)} MiB; watching RSS for up to ${MEMORY_GOALS.recoverWithinS} s`);
      const stored = await svc.storedCount(token);
      if (stored !== UPLOADS - failed.length) runErrors.push(`memory: ${stored} uploads stored, ${UPLOADS - failed.length} answered`);

      const started = performance.now();
      for (;;) {
        const s = (performance.now() - started) / 1000;
        const mib = procMemMiB(pid);
        recovery.push([Math.round(s * 10) / 10, mib]);
        if (mib < MEMORY_GOALS.afterUploadsMiB || s >= MEMORY_GOALS.recoverWithinS) break;
        await new Promise((r) => setTimeout(r, 1000));
      }
    } finally {
      await svc.stop();
    }
    const recoveredAfter = secondsUntilUnder(recovery, MEMORY_GOALS.afterUploadsMiB);
    const afterUploads = recovery.at(-1)?.[1] ?? NaN;

    const fixture = await bigToken(ctx);
    runErrors.push(...fixture.runErrors);
    const now = await fixture.service.storedCount(fixture.token);
    fixture.sampleRss('in the memory section', now);
    // "With the big token" is judged on the samples taken while it held every seeded request.
    const full = fixture.rss.filter((s) => s.stored >= fixture.rows);
    const bigMiB = full.length ? Math.max(...full.map((s) => s.mib)) : NaN;
    const walMiB = fixture.wal.maxBytes / 2 ** 20;
    await closeBigToken();

    const goals: Goal[] = [
      { name: 'idle RSS after start-up', target: `< ${MEMORY_GOALS.idleMiB} MB`, actual: `${idle.toFixed(0)} MiB`, pass: idle < MEMORY_GOALS.idleMiB },
      {
        name: `RSS back under ${MEMORY_GOALS.afterUploadsMiB} MB after ${UPLOADS} x 10 MB uploads`,
        target: `within ${MEMORY_GOALS.recoverWithinS} s`,
        actual: recoveredAfter === null ? `still ${afterUploads.toFixed(0)} MiB after ${MEMORY_GOALS.recoverWithinS} s` : `${recoveredAfter} s (${afterUploads.toFixed(0)} MiB)`,
        pass: recoveredAfter !== null,
      },
      {
        name: `RSS with ${fmt.int(fixture.rows)} stored requests`,
        target: `< ${MEMORY_GOALS.bigTokenMiB} MB`,
        actual: full.length ? `${bigMiB.toFixed(0)} MiB` : 'n/a (the token never held them all)',
        pass: bigMiB < MEMORY_GOALS.bigTokenMiB,
      },
      { name: 'largest WAL (seeding, deletes)', target: `<= ${MEMORY_GOALS.walMiB} MB`, actual: `${walMiB.toFixed(0)} MiB`, pass: walMiB <= MEMORY_GOALS.walMiB },
    ];
    return {
      metrics: {
        idleMiB: idle,
        uploads: { count: UPLOADS, bytes: UPLOAD_BYTES, peakMiB: peak, recovery, recoveredAfterS: recoveredAfter },
        bigToken: { rows: fixture.rows, samples: fixture.rss },
        walMaxBytesByPhase: fixture.wal.maxBytesByPhase,
      },
      goals,
      lines: [
        `fresh service: idle ${idle.toFixed(0)} MiB; peak ${peak.toFixed(0)} MiB during ${UPLOADS} concurrent ${UPLOAD_BYTES / 1e6} MB uploads; ` +
          `then ${thin(recovery)
            .map(([s, m]) => `${m.toFixed(0)} MiB at ${s} s`)
            .join(', ')}`,
        `big token: ${fixture.rss.map((s) => `${s.mib.toFixed(0)} MiB ${s.when} (${fmt.int(s.stored)} stored)`).join('; ')}`,
        `WAL peak: ${Object.entries(fixture.wal.maxBytesByPhase)
          .map(([p, b]) => `${p} ${(b / 2 ** 20).toFixed(0)} MiB`)
          .join(', ')}`,
      ],
      runErrors,
    };
  },
};
