// The keys modules provide to each other (core/composition.ts), one per service, typed. No name is
// also an SDK token's; the keys plugins see are mapped to their tokens in core/sdk-bridge.ts.
// Type-only imports of services, never of module files: importing this file loads none of the
// modules, and a module file importing it makes no circle.
import type { ActionRegistry } from './actions/registry.js';
import type { ActionRuntime } from './actions/runtime.js';
import type { ParameterSecrets } from './actions/secret-params.js';
import type { Sealer } from './auth/sealing.js';
import { defineKey } from './composition.js';
import type { DatabaseService } from './databases/service.js';
import type { ErrorLog } from './errorlog/service.js';
import type { ProviderService } from './providers/service.js';
import type { RealtimeBus } from './realtime/bus.js';
import type { RequestWaiters } from './realtime/waiters.js';
import type { JobQueue, Scheduler } from './scheduler/scheduler.js';
import type { ScheduleService } from './scheduler/service.js';
import type { GlobalVariables, Mailer, PerAccount } from '@capture/sdk';
import type { TemplateService } from './templates/service.js';
import type { WorkflowService } from './workflows/service.js';

/** A capture server's port, null when it is off. */
export interface PortInfo {
  port: number | null;
}

/** The error log recorder (errorlog module). */
export const ERROR_LOG = defineKey<ErrorLog>('errorLog');
/** The SMTP capture server's port, null when it is off (mail module). */
export const MAIL_INFO = defineKey<PortInfo>('mail');
/** The outgoing mail relay (mail module); plugins get it as the SDK's MAILER (core/sdk-bridge.ts). */
export const MAIL_RELAY = defineKey<Mailer>('mailRelay');
/** The job queue on Agenda (scheduler module). */
export const JOBS = defineKey<JobQueue>('jobs');
/** The schedule service and the scheduler (scheduler module; tests read it). */
export const SCHEDULES = defineKey<{ service: ScheduleService; scheduler: Scheduler }>('schedules');
/** The action types of the loaded plugins and core (plugins module). */
export const ACTION_TYPES = defineKey<ActionRegistry>('actionTypes');
/** The secret key, the sealer made from it, and the sealing of secret action parameters (plugins module). */
export const SECRETS = defineKey<{ key: string; sealer: Sealer; parameters: ParameterSecrets }>('secrets');
/** The accounts' global variables as actions see them (globals module); the SDK's GLOBAL_VARIABLES. */
export const GLOBALS = defineKey<PerAccount<GlobalVariables>>('globals');
/** Connected accounts (providers module); plugins get the SDK's PROVIDERS view of it. */
export const PROVIDER_SERVICE = defineKey<ProviderService>('providerService');
/** The per-account SQL databases (databases module); plugins get the SDK's DATABASES view of it. */
export const DATABASE_SERVICE = defineKey<DatabaseService>('databaseService');
/** Tokens' action chains (workflows module). */
export const WORKFLOWS = defineKey<WorkflowService>('workflows');
/** Action templates (templates module); plugins get the SDK's TEMPLATES view of it. */
export const TEMPLATE_SERVICE = defineKey<TemplateService>('templateService');
/** The action runtime (actions module). */
export const ACTIONS = defineKey<ActionRuntime>('actions');
/** The realtime event bus (realtime module). */
export const BUS = defineKey<RealtimeBus>('bus');
/** The callers waiting for a request (realtime module). */
export const WAITERS = defineKey<RequestWaiters>('waiters');
/** The DNS capture server's port, null when it is off (dns module). */
export const DNS_INFO = defineKey<PortInfo>('dns');
