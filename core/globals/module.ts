// Global variables as a module: the /global-variables API, and the account-bound GLOBAL_VARIABLES
// service actions read and write (registered in the server's container for plugins).
import { globalsRouter } from '../http/globals/globals.router.js';
import { accountGlobals } from '../actions/services.js';
import { GLOBAL_VARIABLES, type GlobalVariables, type PerAccount, type RunOwner } from '../sdk/index.js';
import { GLOBALS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { globalsCacheOf } from './cache.js';

/** Whose global variables a run sees: its token owner's, or the token's own when anonymous. */
export function globalsOwner(owner: Pick<RunOwner, 'tokenId' | 'userId'>): string {
  return owner.userId !== null ? `user:${owner.userId}` : `token:${owner.tokenId}`;
}

export function createGlobalsModule(): ServiceModule {
  return {
    name: 'globals',
    provides: [GLOBALS],
    async start(ctx) {
      // Every chain run reads all of its account's variables: kept for a moment (cache.ts).
      const cache = globalsCacheOf(ctx.store.globals, ctx.clock);
      const globals: PerAccount<GlobalVariables> = { forAccount: (owner) => accountGlobals(ctx.store.globals, globalsOwner(owner), ctx.clock, cache) };
      ctx.container.registerInstance(GLOBAL_VARIABLES, globals);
      ctx.provide(GLOBALS, globals);
      return { routers: [globalsRouter(ctx)] };
    },
  };
}
