// Global variables as a module: the /global-variables API, and the account-bound view actions read
// and write, which plugins see as the SDK's GLOBAL_VARIABLES (core/sdk-bridge.ts).
import { globalsRouter } from '../http/globals/globals.router.js';
import { accountGlobals } from '../actions/services.js';
import type { GlobalVariables, PerAccount, RunOwner } from '@capture/sdk';
import { GLOBALS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { globalsCacheOf } from './cache.js';

/** Whose global variables a run sees: its token owner's, or the token's own when anonymous. */
export function globalsOwner(owner: Pick<RunOwner, 'tokenId' | 'userId'>): string {
  return owner.userId !== null ? `user:${owner.userId}` : `token:${owner.tokenId}`;
}

/** Past this many accounts' views kept, the module starts over (a bound, as the caches have). */
const MAX_VIEWS = 10_000;

export function createGlobalsModule(): ServiceModule {
  return {
    name: 'globals',
    provides: [GLOBALS],
    async start(ctx) {
      // Every chain run reads all of its account's variables: kept for a moment (cache.ts).
      const cache = globalsCacheOf(ctx.store.globals, ctx.clock);
      // One view per account, kept (it holds no state of its own): every chain run asks for one.
      const views = new Map<string, GlobalVariables>();
      const globals: PerAccount<GlobalVariables> = {
        forAccount: (owner) => {
          const key = globalsOwner(owner);
          let view = views.get(key);
          if (!view) {
            if (views.size >= MAX_VIEWS) views.clear();
            views.set(key, (view = accountGlobals(ctx.store.globals, key, ctx.clock, cache)));
          }
          return view;
        },
      };
      ctx.provide(GLOBALS, globals);
      return { routers: [globalsRouter(ctx)] };
    },
  };
}
