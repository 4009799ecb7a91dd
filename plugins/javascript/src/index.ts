import { definePlugin } from '../../../core/sdk/index.js';
import { javascript } from './javascript.js';

export default definePlugin({
  name: '@capture/plugin-javascript',
  actions: [javascript],
});
