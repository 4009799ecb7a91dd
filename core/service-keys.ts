// The keys modules provide to each other (core/composition.ts), one per service, typed. Type-only
// imports: importing this file loads none of the modules.
import type { ActionRuntime } from './actions/module.js';
import { defineKey } from './composition.js';
import type { DnsInfo } from './dns/index.js';
import type { ErrorLog } from './errorlog/service.js';
import type { MailInfo } from './mail/index.js';
import type { RealtimeBus } from './realtime/bus.js';
import type { RequestWaiters } from './realtime/waiters.js';
import type { JobQueue, Scheduler } from './scheduler/scheduler.js';
import type { ScheduleService } from './scheduler/service.js';
import type { Mailer } from './sdk/mail.js';

/** The error log recorder (errorlog module). */
export const ERROR_LOG = defineKey<ErrorLog>('errorLog');
/** The SMTP capture server's port, null when it is off (mail module). */
export const MAIL_INFO = defineKey<MailInfo>('mail');
/** The outgoing mail relay (mail module). */
export const MAILER = defineKey<Mailer>('mailer');
/** The job queue on Agenda (scheduler module). */
export const JOBS = defineKey<JobQueue>('jobs');
/** The schedule service and the scheduler (scheduler module; tests read it). */
export const SCHEDULES = defineKey<{ service: ScheduleService; scheduler: Scheduler }>('schedules');
/** The action runtime (actions module). */
export const ACTIONS = defineKey<ActionRuntime>('actions');
/** The realtime event bus (realtime module). */
export const BUS = defineKey<RealtimeBus>('bus');
/** The callers waiting for a request (realtime module). */
export const WAITERS = defineKey<RequestWaiters>('waiters');
/** The DNS capture server's port, null when it is off (dns module). */
export const DNS_INFO = defineKey<DnsInfo>('dns');
