import { definePlugin } from '@capture/sdk';
import { condition } from './condition.js';
import { conditions } from './conditions.js';
import { setVariable } from './set-variable.js';
import { storeGlobalVariable } from './store-global-variable.js';

export default definePlugin({
  name: '@capture/plugin-logic',
  actions: [condition, conditions, setVariable, storeGlobalVariable],
});
