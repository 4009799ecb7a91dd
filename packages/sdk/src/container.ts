// tsyringe, the SDK's dependency injection, through the one module that loads the Reflect metadata
// polyfill it requires before it loads (tsyringe throws at import without it). Code imports the
// container from here, never from 'tsyringe' itself (type-only imports excepted), so no entry point
// (server, CLI, scripts, tests, a third-party plugin's tests) has to remember the polyfill.
import 'reflect-metadata';

export { container, instanceCachingFactory } from 'tsyringe';
export type { DependencyContainer, InjectionToken } from 'tsyringe';
