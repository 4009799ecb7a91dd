import { definePlugin } from '../../../core/sdk/index.js';
import { condition } from './condition.js';
import { conditions } from './conditions.js';
import { warmUp } from './math.js';
import { setVariable } from './set-variable.js';
import { storeGlobalVariable } from './store-global-variable.js';

export default definePlugin({
  name: '@capture/plugin-logic',
  actions: [condition, conditions, setVariable, storeGlobalVariable],
  register() {
    // mathjs costs about a second of the event loop to load: warm it up once the service has started
    // and answered its first requests, not during start-up. A failure resurfaces as an action error
    // on first use; a capture that needs it sooner loads it itself.
    setTimeout(() => void warmUp().catch(() => {}), 5_000).unref();
  },
});
