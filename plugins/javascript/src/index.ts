import { definePlugin } from '@capture/sdk';
import { javascript } from './javascript.js';

export default definePlugin({
  name: '@capture/plugin-javascript',
  actions: [javascript],
});
