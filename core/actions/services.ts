import type { DependencyContainer } from 'tsyringe';
import { CLOCK, COUNTERS, GLOBAL_VARIABLES, HTTP_CLIENT, LOGGER, NETWORK, systemClock, type Clock, type GlobalVariables, type Services } from '../sdk/index.js';

/**
 * The services a chain run needs, from the container core registered them in (under the SDK's
 * tokens). Global variables belong to the token's account: pass that account's view in
 * `overrides.globals` (the container's GLOBAL_VARIABLES is only a fallback).
 */
export function servicesFromContainer(container: DependencyContainer, overrides: Partial<Services> = {}): Services {
  return {
    http: overrides.http ?? container.resolve(HTTP_CLIENT),
    globals: overrides.globals ?? container.resolve(GLOBAL_VARIABLES),
    counters: overrides.counters ?? container.resolve(COUNTERS),
    clock: overrides.clock ?? container.resolve(CLOCK),
    logger: overrides.logger ?? container.resolve(LOGGER),
    net: overrides.net ?? container.resolve(NETWORK),
    providers: overrides.providers ?? unavailable.providers,
    requests: overrides.requests ?? unavailable.requests,
    databases: overrides.databases ?? unavailable.databases,
  };
}

/** Account-scoped services have no container default: without an account there is nothing to read. */
const unavailable: Pick<Services, 'providers' | 'requests' | 'databases'> = {
  providers: { get: () => Promise.reject(new Error('Providers are not available here')), saveCredentials: () => Promise.reject(new Error('Providers are not available here')) },
  requests: { list: () => Promise.reject(new Error('Reading requests is not available here')) },
  databases: { query: () => Promise.reject(new Error('Databases are not available here')) },
};

/** The part of the store's GlobalVariableRepo this needs (kept structural: no import of core/store). */
export interface GlobalVariableStore {
  get(owner: string, name: string): Promise<{ id: number; value: string } | null>;
  set(owner: string, name: string, value: string, now: number): Promise<unknown>;
  all(owner: string): Promise<Record<string, string>>;
  delete(owner: string, id: number): Promise<boolean>;
}

/** One account's global variables as actions see them, over the store's repository. */
export function accountGlobals(store: GlobalVariableStore, owner: string, clock: Pick<Clock, 'now'> = systemClock): GlobalVariables {
  return {
    get: async (name) => (await store.get(owner, name))?.value ?? null,
    set: async (name, value) => void (await store.set(owner, name, value, clock.now())),
    all: () => store.all(owner),
    delete: async (name) => {
      const found = await store.get(owner, name);
      return found ? store.delete(owner, found.id) : false;
    },
  };
}
