// The types of index.js, for TypeScript users of the plugin (its tests): the factory the loader
// calls with the SDK's root module.
import type * as sdk from '@capture/sdk';

declare const plugin: (api: typeof sdk) => sdk.PluginDefinition;
export default plugin;
