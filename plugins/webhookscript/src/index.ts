import { definePlugin } from '../../../core/sdk/index.js';
import { script } from './script.js';

export default definePlugin({
  name: '@capture/plugin-webhookscript',
  actions: [script],
});
