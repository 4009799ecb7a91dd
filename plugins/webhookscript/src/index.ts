import { definePlugin } from '@capture/sdk';
import { script } from './script.js';

export default definePlugin({
  name: '@capture/plugin-webhookscript',
  actions: [script],
});
