// Replay as a service module: the replay job on the scheduler (in-process when no scheduler runs)
// and the /token/{id}/replays routes. Uses JOBS (at start) and ACTIONS (per replay) when their
// modules run (the actions module's capture hook runs the actions).
import { ValidationError } from '../errors.js';
import { forwardRequest } from '../http/requests/forward.js';
import { replayRouter } from '../http/replay/replay.router.js';
import type { ModuleContext, ServiceModule } from '../service-module.js';
import { createOutboundClient } from '../net/outbound.js';
import { ACTIONS, JOBS } from '../service-keys.js';
import { REPLAY_JOB, ReplayService } from './service.js';

interface ReplayJobData {
  token: string;
  replay: string;
}

/** A replay's job may hold its lock this long between heartbeats (one per page of requests). */
const REPLAY_LOCK_MS = 10 * 60_000;

export function createReplayModule(): ServiceModule {
  return {
    name: 'replay',
    uses: [JOBS, ACTIONS],
    async start(ctx: ModuleContext) {
      const outbound = createOutboundClient(ctx.config);
      const replays = new ReplayService({
        store: ctx.store,
        clock: ctx.clock,
        logger: ctx.logger,
        actions: () => ctx.pipeline.actions,
        forward: (record, url, method) => forwardRequest(outbound, record, url, method),
        // The URL refused, invalid or unresolvable (422 from a single forward): every request would fail alike.
        isFatal: (err) => err instanceof ValidationError,
      });
      const jobs = ctx.get(JOBS);
      // Replays running in this process, waited for at shutdown (after being told to stop).
      const inProcess = new Set<Promise<void>>();
      const track = (p: Promise<void>) => {
        inProcess.add(p);
        void p.finally(() => inProcess.delete(p)).catch(() => {});
        return p;
      };
      if (jobs) {
        jobs.define<ReplayJobData>(REPLAY_JOB, (data, job) => track(replays.run(data.token, data.replay, () => job.touch())), { lockLifetimeMs: REPLAY_LOCK_MS, concurrency: 2 });
      }
      const start = async (r: { id: string; token_id: string }) => {
        if (jobs) {
          await jobs.enqueue<ReplayJobData>(REPLAY_JOB, { token: r.token_id, replay: r.id }, ctx.clock.now());
          return;
        }
        // Without a scheduler the replay runs in this process.
        void track(replays.run(r.token_id, r.id)).catch((err) => ctx.logger.warn('replay failed', { replay: r.id, error: String(err) }));
      };
      const runtime = () => ctx.get(ACTIONS);
      return {
        routers: [
          replayRouter(ctx, {
            replays,
            start,
            hasActions: async (token) => ((await runtime()?.workflows.steps(token)) ?? []).some((s) => !s.disabled),
          }),
        ],
        async stop() {
          replays.stopAll();
          await Promise.allSettled([...inProcess]);
        },
      };
    },
  };
}
