// One object of services with some replaced (an action's plugin's own, a run's timed HTTP client).
import type { Services } from '../services.js';

/** `base` with some services replaced; the others are read from `base` when asked for. */
class ServicesWith implements Services {
  readonly #base: Services;
  readonly #own: Partial<Services>;
  constructor(base: Services, own: Partial<Services>) {
    this.#base = base;
    this.#own = own;
  }
  get http() {
    return this.#own.http ?? this.#base.http;
  }
  get counters() {
    return this.#own.counters ?? this.#base.counters;
  }
  get clock() {
    return this.#own.clock ?? this.#base.clock;
  }
  get logger() {
    return this.#own.logger ?? this.#base.logger;
  }
  get net() {
    return this.#own.net ?? this.#base.net;
  }
  get globals() {
    return this.#own.globals ?? this.#base.globals;
  }
  get providers() {
    return this.#own.providers ?? this.#base.providers;
  }
  get databases() {
    return this.#own.databases ?? this.#base.databases;
  }
  get requests() {
    return this.#own.requests ?? this.#base.requests;
  }
  get templates() {
    return this.#own.templates ?? this.#base.templates;
  }
}

/**
 * `base` with some services replaced. Use this, not a spread: the services are getters on a
 * prototype (a spread would see none of them).
 */
export function servicesWith(base: Services, own: Partial<Services>): Services {
  return new ServicesWith(base, own);
}
