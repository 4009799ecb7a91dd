// @capture/sdk/async: a heavy library imported on first use, and a promise that rejects when a
// signal aborts.
export { lazyImport } from './lazy.js';
export { untilAborted } from './abort.js';
