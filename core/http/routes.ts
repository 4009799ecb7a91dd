// Every route object the service mounts, for /openapi.json (test/openapi.test.ts checks this list
// against what the routers serve).
import type { RouteDoc } from './route.js';
import { actionRoutes } from './actions/actions.router.js';
import { queueProfileRoutes } from './queue-profiles/queue-profiles.router.js';
import { databaseRoutes } from './databases/databases.router.js';
import { tableRoutes } from './databases/tables.router.js';
import { errorLogRoutes } from './errors/errors.router.js';
import { globalRoutes } from './globals/globals.router.js';
import { groupRoutes } from './groups/groups.router.js';
import { replayRoutes } from './replay/replay.router.js';
import { sampleRoutes } from './samples/samples.router.js';
import { opsRoutes } from './ops/ops.router.js';
import { sseRoutes } from './realtime/sse.js';
import { smeeRoutes } from './realtime/smee.js';
import { captureRoutes } from '../capture/capture.routes.js';
import { webRoutes } from '../web/module.js';
import { requestRoutes } from './requests/requests.router.js';
import { providerRoutes } from './providers/providers.router.js';
import { templateRoutes } from './templates/templates.router.js';
import { scheduleRoutes } from './schedules/schedules.router.js';
import { shareRoutes } from './tokens/share.router.js';
import { tokenRoutes } from './tokens/tokens.router.js';
import { userRoutes } from './users/users.router.js';

export const API_ROUTES: ReadonlyArray<RouteDoc> = [
  ...tokenRoutes,
  ...groupRoutes,
  ...globalRoutes,
  ...providerRoutes,
  ...templateRoutes,
  ...databaseRoutes,
  ...tableRoutes,
  ...errorLogRoutes,
  ...shareRoutes,
  ...requestRoutes,
  ...replayRoutes,
  ...sampleRoutes,
  ...sseRoutes,
  ...smeeRoutes,
  ...opsRoutes,
  ...webRoutes,
  ...captureRoutes,
  ...userRoutes,
  ...scheduleRoutes,
  ...actionRoutes,
  ...queueProfileRoutes,
];
