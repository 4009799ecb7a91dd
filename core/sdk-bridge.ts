// The one bridge between the host's keys (core/service-keys.ts), which modules provide to each
// other, and the SDK's injection tokens, which plugins resolve: one row per host service that
// plugins see. When a module provides a key of this table, the composition root (core/server.ts)
// registers the SDK's view of it in the server's container; a token whose key no running module
// provides resolves to the row's `absent` value, if it has one. Modules never register these
// tokens themselves, so each service is wired in one place and under one name per side.
import type { AnyServiceKey, ServiceKey } from './composition.js';
import { DATABASES, type DependencyContainer, GLOBAL_VARIABLES, type InjectionToken, MAILER, type Mailer, PROVIDERS, TEMPLATES } from '@capture/sdk';
import { DATABASE_SERVICE, GLOBALS, MAIL_RELAY, PROVIDER_SERVICE, TEMPLATE_SERVICE } from './service-keys.js';

interface BridgeRow<K, T> {
  key: ServiceKey<K>;
  token: InjectionToken<T>;
  /** What plugins get for the value provided under `key`. */
  view(value: K): T;
  /** What plugins get while no module provides `key` (unregistered without it). */
  absent?: T;
}

const row = <K, T>(r: BridgeRow<K, T>): BridgeRow<K, T> => r;

const noMailer: Mailer = { send: () => Promise.reject(new Error('Sending e-mail is not available: the mail module is not running')) };

// Account-bound services are scoped to the run's owning user (RunOwner.userId).
export const SDK_BRIDGE = [
  row({ key: GLOBALS, token: GLOBAL_VARIABLES, view: (globals) => globals }),
  row({ key: PROVIDER_SERVICE, token: PROVIDERS, view: (providers) => ({ forAccount: (owner) => providers.forAccount(owner.userId) }) }),
  row({ key: DATABASE_SERVICE, token: DATABASES, view: (databases) => ({ forAccount: (owner) => databases.forAccount(owner.userId) }) }),
  row({ key: TEMPLATE_SERVICE, token: TEMPLATES, view: (templates) => ({ forAccount: (owner) => templates.forAccount(owner.userId) }) }),
  row({ key: MAIL_RELAY, token: MAILER, view: (mailer) => mailer, absent: noMailer }),
] as const;

const byKey = new Map<AnyServiceKey, BridgeRow<unknown, unknown>>(SDK_BRIDGE.map((r) => [r.key, r as BridgeRow<unknown, unknown>]));

/** Registers the `absent` values, before any module starts. */
export function registerAbsentServices(container: DependencyContainer): void {
  for (const r of SDK_BRIDGE) if (r.absent !== undefined) container.registerInstance(r.token as InjectionToken<unknown>, r.absent);
}

/** Registers the SDK's view of a provided key, when the table has a row for it. */
export function bridgeProvided(container: DependencyContainer, key: AnyServiceKey, value: unknown): void {
  const r = byKey.get(key);
  if (r) container.registerInstance(r.token, r.view(value));
}

/** Puts a key's `absent` value back (or nothing) once its provider has stopped. */
export function bridgeWithdrawn(container: DependencyContainer, key: AnyServiceKey): void {
  const r = byKey.get(key);
  if (r?.absent !== undefined) container.registerInstance(r.token, r.absent);
}
