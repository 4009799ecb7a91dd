// Optional parts of the service (action runtime and its services, scheduler, realtime, web page,
// e-mail, DNS) plug in here: each declares the typed keys it provides, requires and uses
// (core/composition.ts), is started by core/server.ts after the providers of those keys, may add
// API routers and capture hooks, and is stopped in reverse order on shutdown. The contract a module
// implements is in core/service-module.ts.
import type { ServiceModule } from './service-module.js';

export type { ModuleContext, ServiceModule, StartedModule } from './service-module.js';

/** The modules (core/server.ts orders them by their keys). Each entry is one import and one line. */
export async function loadModules(): Promise<ServiceModule[]> {
  const { createErrorLogModule } = await import('./errorlog/module.js');
  const { createMailModule } = await import('./mail/module.js');
  const { createDnsModule } = await import('./dns/module.js');
  const { createSchedulerModule } = await import('./scheduler/module.js');
  const { createPluginsModule } = await import('./plugins/module.js');
  const { createGlobalsModule } = await import('./globals/module.js');
  const { createDatabasesModule } = await import('./databases/module.js');
  const { createProvidersModule } = await import('./providers/module.js');
  const { createWorkflowsModule } = await import('./workflows/module.js');
  const { createTemplatesModule } = await import('./templates/module.js');
  const { createActionsModule } = await import('./actions/module.js');
  const { createReplayModule } = await import('./replay/module.js');
  const { createRealtimeModule } = await import('./realtime/module.js');
  const { createSamplesModule } = await import('./samples/module.js');
  const { web } = await import('./web/module.js');
  return [
    createErrorLogModule(),
    createMailModule(),
    createSchedulerModule(),
    createPluginsModule(),
    createGlobalsModule(),
    createDatabasesModule(),
    createProvidersModule(),
    createWorkflowsModule(),
    createTemplatesModule(),
    createActionsModule(),
    createReplayModule(),
    createRealtimeModule(),
    createSamplesModule(),
    web,
    createDnsModule(),
  ];
}
