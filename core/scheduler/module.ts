// The scheduler as a service module: Agenda on the store's database, the Schedules API, schedule
// documents applied from workflows/ at start-up, token cleanup as a recurring job, and a job queue
// for other modules.
//
// Provides JOBS (JobQueue: `define(name, handler, opts)` and `enqueue(name, data, runAt)`, e.g. for
// queued actions) and SCHEDULES ({service, scheduler}); uses MAIL_RELAY (per notification) and
// ERROR_LOG (at start) when their modules run.
import path from 'node:path';
import { REPO_ROOT } from '../util/paths.js';
import { schedulesRouter } from '../http/schedules/schedules.router.js';
import type { HttpServices } from '../http/services.js';
import { cleanupTokens, sweepExpired } from '../lifecycle/cleanup.js';
import type { ModuleContext, ServiceModule } from '../service-module.js';
import { createOutboundClient, type OutboundClient } from '../net/outbound.js';
import { ERROR_LOG, JOBS, MAIL_RELAY, SCHEDULES } from '../service-keys.js';
import { createNotifier, type MailerLike, type Notifier } from './notify.js';
import { createScheduler, type SchedulerOptions } from './scheduler.js';
import { ScheduleService } from './service.js';

export interface SchedulerModuleOptions extends Pick<SchedulerOptions, 'scheduleLockLifetimeMs' | 'cleanupEveryMs' | 'name'> {
  /** Folder of workflow documents applied at start-up; default the repository's workflows/. */
  workflowsDir?: string;
  /** Outgoing HTTP (tests may pass their own); default the policy-enforcing client. */
  http?: OutboundClient;
  /** Mailer for e-mail notifications; default the mail module's (MAIL_RELAY). */
  mailer?: MailerLike;
  /** Poll interval override (ms); default SCHEDULER_POLL_MS. */
  processEvery?: number;
}

export function createSchedulerModule(options: SchedulerModuleOptions = {}): ServiceModule {
  return {
    name: 'scheduler',
    provides: [JOBS, SCHEDULES],
    uses: [MAIL_RELAY, ERROR_LOG],
    async start(ctx: ModuleContext) {
      const { config, store, clock, logger } = ctx;
      const log = logger.child({ module: 'scheduler' });
      const http = options.http ?? createOutboundClient(config);
      let baseUrl = config.baseUrl;
      // Failed runs and TLS alerts also go to the account's error log (core/errorlog) when that module runs.
      const errorLog = ctx.get(ERROR_LOG);
      const notifier = createNotifier({
        store,
        http,
        clock,
        logger: log,
        mailer: () => options.mailer ?? ctx.get(MAIL_RELAY),
        windowMs: config.SCHEDULE_NOTIFY_WINDOW_SECONDS * 1000,
        baseUrl: () => baseUrl,
        tlsAlertSent: (notice) => errorLog?.scheduleTlsAlert(notice.schedule, notice.log),
      });
      const notifyAndLog: Notifier = {
        notify(notice) {
          errorLog?.scheduleFailure(notice.schedule, notice.log);
          return notifier.notify(notice);
        },
        tlsAlert: (notice) => notifier.tlsAlert(notice),
        idle: () => notifier.idle(),
      };
      const cleanup = async () => {
        await cleanupTokens(store, ctx.tokens, clock, log);
        await sweepExpired(store, clock);
      };
      const scheduler = await createScheduler(
        { store, clock, logger: log, http, notifier: notifyAndLog, cleanup, onRun: ctx.metrics.scheduleRun },
        {
          name: options.name,
          processEvery: options.processEvery ?? config.SCHEDULER_POLL_MS,
          process: config.SCHEDULER_ENABLED,
          scheduleLockLifetimeMs: options.scheduleLockLifetimeMs,
          cleanupEveryMs: options.cleanupEveryMs,
        },
      );
      const service = new ScheduleService(store, clock, scheduler);
      ctx.provide(JOBS, scheduler.jobs);
      ctx.provide(SCHEDULES, { service, scheduler });

      try {
        await service.applyDirectory(options.workflowsDir ?? path.join(REPO_ROOT, 'workflows'), log);
        const synced = await scheduler.sync();
        if (synced.planned || synced.removed) log.info('schedule jobs synced', synced);
        await scheduler.start();
      } catch (err) {
        await scheduler.stop().catch(() => undefined);
        throw err;
      }

      const services: HttpServices = { config, store, clock, logger, tokens: ctx.tokens };
      return {
        routers: [schedulesRouter(services, { service, scheduler })],
        listening(url) {
          baseUrl ??= url;
        },
        async stop() {
          await scheduler.stop();
        },
      };
    },
  };
}
