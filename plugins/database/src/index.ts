import { definePlugin } from '../../../core/sdk/index.js';
import { database } from './database.js';

export default definePlugin({
  name: '@capture/plugin-database',
  actions: [database],
});
