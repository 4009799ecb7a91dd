// Typed service keys and the registry the composition root (core/server.ts) owns: a module declares
// the keys it provides, requires (start-up fails without a provider) and uses (optional: read when
// present); `orderModules` puts every provider before its readers and refuses, naming module and
// key, a missing provider or a cycle. No string-keyed map and no casts: a key carries its type.

/** A typed name for something one module provides to others (see core/service-keys.ts). */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: carries T so that `get(key)` is typed. */
  readonly __type?: (value: T) => T;
}

export function defineKey<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name }) as ServiceKey<T>;
}

// A key of any type: `ServiceKey<T>` is invariant in T, so lists of keys are typed with this.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyServiceKey = ServiceKey<any>;

/** Read access to what the started modules provide (the HTTP layer and tests see this). */
export interface ServiceLookup {
  get<T>(key: ServiceKey<T>): T | undefined;
}

/** What a module says about its keys; the composition root orders and checks modules by it. */
export interface ModuleDeclaration {
  name: string;
  /** Keys this module provides (with `ctx.provide`) during `start`. */
  provides?: readonly AnyServiceKey[];
  /** Keys whose provider must run and start first; start-up fails without one. */
  requires?: readonly AnyServiceKey[];
  /** Keys read when their provider runs (it then starts first); absent otherwise. */
  uses?: readonly AnyServiceKey[];
}

export class CompositionError extends Error {
  override name = 'CompositionError';
}

/**
 * The list completed with the default providers modules name for their required keys, when the
 * list has no provider of such a key (a test that starts the actions module alone gets the
 * workflows, templates... modules it cannot run without). Each default goes just before the module
 * that named it; the full list (core/modules.ts) needs none.
 */
export function withDefaults<M extends ModuleDeclaration & { defaults?(): readonly M[] }>(modules: readonly M[]): M[] {
  const list = [...modules];
  const provided = new Set<AnyServiceKey>(list.flatMap((m) => m.provides ?? []));
  for (let i = 0; i < list.length; i++) {
    const m = list[i]!;
    const missing = (m.requires ?? []).filter((k) => !provided.has(k));
    if (!missing.length || !m.defaults) continue;
    const added = m.defaults().filter((d) => (d.provides ?? []).some((k) => !provided.has(k)));
    for (const d of added) for (const k of d.provides ?? []) provided.add(k);
    list.splice(i, 0, ...added);
    // Back to the first added module, so its own requirements are completed too.
    i--;
  }
  return list;
}

/**
 * The modules in start order: each after the providers of the keys it requires or uses, otherwise
 * in the order given. Throws a CompositionError naming module and key on a required key nobody
 * provides, a key provided twice, or a cycle.
 */
export function orderModules<M extends ModuleDeclaration>(modules: readonly M[]): M[] {
  const providerOf = new Map<AnyServiceKey, M>();
  for (const m of modules) {
    for (const key of m.provides ?? []) {
      const other = providerOf.get(key);
      if (other) throw new CompositionError(`Modules "${other.name}" and "${m.name}" both provide "${key.name}"`);
      providerOf.set(key, m);
    }
  }
  // Edges: provider -> reader, with the key that makes them.
  const after = new Map<M, Array<{ provider: M; key: AnyServiceKey }>>();
  for (const m of modules) {
    const deps: Array<{ provider: M; key: AnyServiceKey }> = [];
    for (const key of m.requires ?? []) {
      const provider = providerOf.get(key);
      if (!provider) throw new CompositionError(`Module "${m.name}" requires "${key.name}", which no module provides`);
      if (provider !== m) deps.push({ provider, key });
    }
    for (const key of m.uses ?? []) {
      const provider = providerOf.get(key);
      if (provider && provider !== m) deps.push({ provider, key });
    }
    after.set(m, deps);
  }
  const ordered: M[] = [];
  const placed = new Set<M>();
  while (ordered.length < modules.length) {
    // The first module (in the order given) whose providers are all placed.
    const next = modules.find((m) => !placed.has(m) && after.get(m)!.every((d) => placed.has(d.provider)));
    if (!next)
      throw new CompositionError(
        `Modules depend on each other in a cycle: ${describeCycle(
          modules.filter((m) => !placed.has(m)),
          after,
        )}`,
      );
    ordered.push(next);
    placed.add(next);
  }
  return ordered;
}

/** "a needs x from b, b needs y from a" for one cycle among the modules left. */
function describeCycle<M extends ModuleDeclaration>(left: M[], after: Map<M, Array<{ provider: M; key: AnyServiceKey }>>): string {
  const path: M[] = [];
  let m = left[0]!;
  while (!path.includes(m)) {
    path.push(m);
    m = after.get(m)!.find((d) => left.includes(d.provider))!.provider;
  }
  const cycle = path.slice(path.indexOf(m));
  return cycle
    .map((x, i) => {
      const to = cycle[(i + 1) % cycle.length]!;
      const key = after.get(x)!.find((d) => d.provider === to)!.key;
      return `"${x.name}" needs "${key.name}" from "${to.name}"`;
    })
    .join(', ');
}

/** What modules provided, by key; the composition root owns it and drops a module's keys when it stops. */
export class ServiceRegistry implements ServiceLookup {
  readonly #values = new Map<AnyServiceKey, unknown>();

  /** `observer` hears each key set and deleted (the composition root bridges them to the SDK's tokens). */
  constructor(private readonly observer?: { set(key: AnyServiceKey, value: unknown): void; delete(key: AnyServiceKey): void }) {}

  get<T>(key: ServiceKey<T>): T | undefined {
    return this.#values.get(key) as T | undefined;
  }

  set<T>(key: ServiceKey<T>, value: T): void {
    this.#values.set(key, value);
    this.observer?.set(key, value);
  }

  delete(key: AnyServiceKey): void {
    this.#values.delete(key);
    this.observer?.delete(key);
  }
}

/** The part of a module's context that reads and provides keys, checked against its declaration. */
export interface ModuleServices {
  /** A key the module requires or uses (undefined when no running module provides it). */
  get<T>(key: ServiceKey<T>): T | undefined;
  /** A key the module requires: its provider has started, so it is there. */
  require<T>(key: ServiceKey<T>): T;
  /** Provides one of the module's declared keys. */
  provide<T>(key: ServiceKey<T>, value: T): void;
}

export function moduleServices(registry: ServiceRegistry, m: ModuleDeclaration): ModuleServices {
  const readable = new Set<AnyServiceKey>([...(m.requires ?? []), ...(m.uses ?? []), ...(m.provides ?? [])]);
  const check = (key: AnyServiceKey, what: string, allowed: boolean) => {
    if (!allowed) throw new CompositionError(`Module "${m.name}" ${what} "${key.name}" without declaring it`);
  };
  return {
    get(key) {
      check(key, 'reads', readable.has(key));
      return registry.get(key);
    },
    require(key) {
      check(key, 'requires', (m.requires ?? []).includes(key));
      const value = registry.get(key);
      if (value === undefined) throw new CompositionError(`Module "${m.name}" requires "${key.name}", which has not been provided`);
      return value;
    },
    provide(key, value) {
      check(key, 'provides', (m.provides ?? []).includes(key));
      registry.set(key, value);
    },
  };
}
