// The SDK's services as core provides them, through tsyringe only: core's own services are
// registered in the server's container (modules add theirs: global variables, providers,
// databases, mail, sandbox), and a run's `ctx.services` is resolved from the container of the
// plugin whose action runs, scoped to the token's account.
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createOutboundClient, resolveAllowed, type OutboundClient } from '../net/outbound.js';
import { instanceCachingFactory } from '@capture/sdk/container';

export { servicesWith } from '@capture/sdk/runner';
import {
  CLOCK,
  type Clock,
  COUNTERS,
  DATABASES,
  type DependencyContainer,
  GLOBAL_VARIABLES,
  type GlobalVariables,
  HTTP_CLIENT,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
  LOGGER,
  NETWORK,
  PROVIDERS,
  REQUESTS,
  type RunOwner,
  SERVICES,
  type Services,
  systemClock,
  TEMPLATES,
} from '@capture/sdk';
import type { Store, TokenRecord } from '../store/types.js';
import { requestReader } from './request-reader.js';

/** The run's owner, from its token. */
export function runOwner(token: Pick<TokenRecord, 'uuid' | 'user_id' | 'group_id'>): RunOwner {
  return { tokenId: token.uuid, userId: token.user_id, groupId: token.group_id };
}

/** `ctx.services` for a run: resolved from `container` (a plugin's, or the server's) for the owner's account. */
export function runServices(container: DependencyContainer, owner: RunOwner): Services {
  return container.resolve(SERVICES).forAccount(owner);
}

/** The SDK's HttpClient over core's outbound client (and its address policy). */
function policyHttpClient(outbound: OutboundClient): HttpClient {
  const viaClient = async (client: Pick<OutboundClient, 'request'>, req: HttpRequest): Promise<HttpResponse> => {
    const r = await client.request({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.body,
      timeoutMs: req.timeoutMs,
      signal: req.signal,
      maxRedirects: req.maxRedirects,
      maxBodyBytes: req.maxBodyBytes,
      insecureTls: req.insecureTls,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) headers[k] = v.join(', ');
    return { status: r.status, headers, body: r.body, url: r.url, truncated: r.truncated };
  };
  return {
    request: (req) => viaClient(outbound, req),
    session() {
      const s = outbound.session();
      return { request: (req) => viaClient(s, req), close: () => s.close() };
    },
  };
}

/**
 * Registers core's own services under the SDK's tokens: outgoing HTTP and other connections with
 * the outbound policy, the store's counters, the clock, the logger, the request reader, and
 * SERVICES, which assembles `ctx.services` from whichever container it is resolved in.
 */
export function registerCoreServices(container: DependencyContainer, core: { config: Config; store: Store; clock: Clock; logger: Logger }): void {
  const { config, store, clock, logger } = core;
  // Every request an action makes goes through the one outbound client and its policy.
  container.register(HTTP_CLIENT, { useFactory: instanceCachingFactory(() => policyHttpClient(createOutboundClient(config))) });
  const policy = { allowLoopback: config.OUTBOUND_ALLOW_LOOPBACK, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE };
  container.registerInstance(NETWORK, { resolve: (host: string) => resolveAllowed(host, policy) });
  container.registerInstance(COUNTERS, store.counters);
  container.registerInstance(CLOCK, clock);
  container.registerInstance(LOGGER, logger);
  container.registerInstance(REQUESTS, { forAccount: (owner) => requestReader(store, { uuid: owner.tokenId, user_id: owner.userId, group_id: owner.groupId }, clock) });
  // Not cached: `c` is the container resolving, so a plugin's own registrations win for its actions.
  container.register(SERVICES, { useFactory: (c) => ({ forAccount: (owner) => new AccountServices(c, owner) }) });
}

/**
 * `ctx.services` for one run, each service resolved from the container when first read: most
 * chains use one or two of them, and resolving all (with their account views) was a large part of
 * a short run. A class, not an object literal with getters: those are slow to create.
 */
class AccountServices implements Services {
  readonly #c: DependencyContainer;
  readonly #owner: RunOwner;
  #http?: HttpClient;
  #counters?: Services['counters'];
  #clock?: Clock;
  #logger?: Services['logger'];
  #net?: Services['net'];
  #globals?: GlobalVariables;
  #providers?: Services['providers'];
  #databases?: Services['databases'];
  #requests?: Services['requests'];
  #templates?: Services['templates'];
  constructor(c: DependencyContainer, owner: RunOwner) {
    this.#c = c;
    this.#owner = owner;
  }
  get http() {
    return (this.#http ??= this.#c.resolve(HTTP_CLIENT));
  }
  get counters() {
    return (this.#counters ??= this.#c.resolve(COUNTERS));
  }
  get clock() {
    return (this.#clock ??= this.#c.resolve(CLOCK));
  }
  get logger() {
    return (this.#logger ??= this.#c.resolve(LOGGER));
  }
  get net() {
    return (this.#net ??= this.#c.resolve(NETWORK));
  }
  get globals() {
    return (this.#globals ??= this.#c.resolve(GLOBAL_VARIABLES).forAccount(this.#owner));
  }
  get providers() {
    return (this.#providers ??= this.#c.resolve(PROVIDERS).forAccount(this.#owner));
  }
  get databases() {
    return (this.#databases ??= this.#c.resolve(DATABASES).forAccount(this.#owner));
  }
  get requests() {
    return (this.#requests ??= this.#c.resolve(REQUESTS).forAccount(this.#owner));
  }
  get templates() {
    return (this.#templates ??= this.#c.resolve(TEMPLATES).forAccount(this.#owner));
  }
}

/** The part of the store's GlobalVariableRepo this needs (kept structural: no import of core/store). */
export interface GlobalVariableStore {
  get(owner: string, name: string): Promise<{ id: number; value: string } | null>;
  set(owner: string, name: string, value: string, now: number): Promise<unknown>;
  all(owner: string): Promise<Record<string, string>>;
  delete(owner: string, id: number): Promise<boolean>;
}

/** What accountGlobals needs of a cache of `all` (core/globals/cache.ts). */
export interface GlobalsReadCache {
  all(owner: string, load: () => Promise<Record<string, string>>): Promise<Readonly<Record<string, string>>>;
  forget(owner: string): void;
}

const copyOf = (values: Readonly<Record<string, string>>): Record<string, string> => ({ ...values });

/**
 * One account's global variables as actions see them, over the store's repository. With `cache`,
 * `all` (read by every chain run) is served from it and this view's writes drop its entry.
 */
export function accountGlobals(store: GlobalVariableStore, owner: string, clock: Pick<Clock, 'now'> = systemClock, cache?: GlobalsReadCache): GlobalVariables {
  const changed = () => cache?.forget(owner);
  const load = () => store.all(owner);
  return {
    get: async (name) => (await store.get(owner, name))?.value ?? null,
    set: async (name, value) => {
      try {
        await store.set(owner, name, value, clock.now());
      } finally {
        changed();
      }
    },
    // A copy: the cached values are shared by every run.
    all: cache ? () => cache.all(owner, load).then(copyOf) : load,
    delete: async (name) => {
      const found = await store.get(owner, name);
      if (!found) return false;
      try {
        return await store.delete(owner, found.id);
      } finally {
        changed();
      }
    },
  };
}
