// The composition root's ordering and checks of typed module keys (core/composition.ts), and that
// the service's own modules declare an order that starts providers first.
import { describe, expect, it } from 'vitest';
import { CompositionError, defineKey, moduleServices, orderModules, ServiceRegistry, withDefaults, type ModuleDeclaration } from './composition.js';
import { loadModules } from './modules.js';
import { startTestServer } from '../test/helpers/server.js';
import { ACTIONS, ERROR_LOG, JOBS, MAIL_RELAY } from './service-keys.js';

const A = defineKey<{ a: number }>('a');
const B = defineKey<string>('b');
const C = defineKey<number>('c');
const names = (ms: ModuleDeclaration[]) => ms.map((m) => m.name);

describe('orderModules', () => {
  it('puts providers before the modules that require or use their keys, else keeps the order given', () => {
    const ms: ModuleDeclaration[] = [
      { name: 'reader', requires: [A], uses: [B] },
      { name: 'plain' },
      { name: 'b-maker', provides: [B], requires: [C] },
      { name: 'a-maker', provides: [A] },
      { name: 'c-maker', provides: [C] },
    ];
    expect(names(orderModules(ms))).toEqual(['plain', 'a-maker', 'c-maker', 'b-maker', 'reader']);
  });

  it('runs a module that uses a key nobody provides, in place', () => {
    expect(names(orderModules([{ name: 'x', uses: [A] }, { name: 'y' }]))).toEqual(['x', 'y']);
  });

  it('refuses a required key without a provider, naming module and key', () => {
    expect(() => orderModules([{ name: 'replay', requires: [ACTIONS] }])).toThrow(new CompositionError('Module "replay" requires "actions", which no module provides'));
  });

  it('refuses a cycle, naming the modules and the keys that make it', () => {
    const ms: ModuleDeclaration[] = [{ name: 'free' }, { name: 'one', provides: [A], requires: [B] }, { name: 'two', provides: [B], uses: [C] }, { name: 'three', provides: [C], requires: [A] }];
    expect(() => orderModules(ms)).toThrow(CompositionError);
    expect(() => orderModules(ms)).toThrow('Modules depend on each other in a cycle: "one" needs "b" from "two", "two" needs "c" from "three", "three" needs "a" from "one"');
  });

  it('refuses a key provided by two modules', () => {
    expect(() =>
      orderModules([
        { name: 'p', provides: [A] },
        { name: 'q', provides: [A] },
      ]),
    ).toThrow('Modules "p" and "q" both provide "a"');
  });

  it('orders the service modules as they must start: error log and scheduler before actions, actions before replay', async () => {
    const order = names(orderModules(await loadModules()));
    expect(order).toEqual(['errorlog', 'mail', 'scheduler', 'plugins', 'globals', 'databases', 'providers', 'workflows', 'templates', 'actions', 'replay', 'realtime', 'samples', 'web', 'dns']);
    // Whatever order the list gives, providers start first.
    const reversed = names(orderModules([...(await loadModules())].reverse()));
    expect(reversed.indexOf('errorlog')).toBeLessThan(reversed.indexOf('scheduler'));
    expect(reversed.indexOf('scheduler')).toBeLessThan(reversed.indexOf('actions'));
    expect(reversed.indexOf('actions')).toBeLessThan(reversed.indexOf('replay'));
  });

  it('declares what the service modules read', async () => {
    const byName = new Map((await loadModules()).map((m) => [m.name, m]));
    expect(byName.get('actions')!.uses).toEqual(expect.arrayContaining([JOBS, ERROR_LOG, MAIL_RELAY]));
    expect(byName.get('replay')!.uses).toEqual(expect.arrayContaining([JOBS, ACTIONS]));
  });
});

describe('withDefaults', () => {
  interface Decl extends ModuleDeclaration {
    defaults?(): readonly Decl[];
  }
  const aMaker: Decl = { name: 'a-maker', provides: [A], requires: [C], defaults: () => [{ name: 'c-maker', provides: [C] }] };
  const reader: Decl = { name: 'reader', requires: [A, B], defaults: () => [aMaker, { name: 'b-default', provides: [B] }] };

  it("adds a module's default providers of the keys the list lacks, theirs too, before it", () => {
    expect(names(withDefaults([{ name: 'b-maker', provides: [B] }, reader]))).toEqual(['b-maker', 'c-maker', 'a-maker', 'reader']);
    expect(names(orderModules(withDefaults([reader])))).toEqual(['c-maker', 'a-maker', 'b-default', 'reader']);
  });

  it('adds nothing when the list provides every required key, and leaves a key without a default to orderModules', () => {
    const full: Decl[] = [{ name: 'a', provides: [A] }, { name: 'b', provides: [B] }, reader];
    expect(withDefaults(full)).toEqual(full);
    expect(() => orderModules(withDefaults([{ name: 'needy', requires: [C] }]))).toThrow('Module "needy" requires "c", which no module provides');
  });

  it('lets the actions module start alone with the modules it cannot run without', async () => {
    const { createActionsModule } = await import('./actions/module.js');
    expect(names(orderModules(withDefaults([createActionsModule()])))).toEqual(['plugins', 'globals', 'databases', 'providers', 'workflows', 'templates', 'actions']);
  });
});

describe('moduleServices', () => {
  it('gives a module typed access to the keys it declared, and only those', () => {
    const registry = new ServiceRegistry();
    const maker = moduleServices(registry, { name: 'maker', provides: [A] });
    const reader = moduleServices(registry, { name: 'reader', requires: [A], uses: [C] });
    expect(reader.get(C)).toBeUndefined();
    expect(() => reader.require(A)).toThrow('Module "reader" requires "a", which has not been provided');
    maker.provide(A, { a: 1 });
    expect(reader.require(A).a).toBe(1);
    expect(registry.get(A)).toEqual({ a: 1 });
    expect(() => maker.provide(B, 'x')).toThrow('Module "maker" provides "b" without declaring it');
    expect(() => reader.get(B)).toThrow('Module "reader" reads "b" without declaring it');
    registry.delete(A);
    expect(reader.get(A)).toBeUndefined();
  });
});

describe('start-up', () => {
  it('fails before any module starts when a required key has no provider', async () => {
    let started = false;
    const needy = { name: 'needy', requires: [ACTIONS], start: async () => ((started = true), {}) };
    const errorlog = { name: 'errorlog-stub', start: async () => ((started = true), {}) };
    await expect(startTestServer({}, { modules: [errorlog, needy] })).rejects.toThrow('Module "needy" requires "actions", which no module provides');
    expect(started).toBe(false);
  });

  it('lets the HTTP layer and tests read what modules provided, and drops it when they stop', async () => {
    const s = await startTestServer({}, { modules: [{ name: 'maker', provides: [A], start: async (ctx) => (ctx.provide(A, { a: 7 }), {}) }] });
    expect(s.provided.get(A)).toEqual({ a: 7 });
    expect(s.services.provided?.get(A)).toEqual({ a: 7 });
    await s.close();
    expect(s.provided.get(A)).toBeUndefined();
  });
});
