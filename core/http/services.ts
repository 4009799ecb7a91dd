// What the HTTP layer is given by the composition root (core/server.ts).
import type { ServiceLookup } from '../composition.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';
import type { TokenService } from '../tokens/service.js';
import type { Clock } from '../util/time.js';
import type { Caller } from '../auth/access.js';

export interface HttpServices {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  tokens: TokenService;
  /** What the modules provided, by typed key (core/service-keys.ts), e.g. the realtime bus under BUS. */
  provided?: ServiceLookup;
}

export interface AppState {
  caller: Caller;
  requestId: string;
}
