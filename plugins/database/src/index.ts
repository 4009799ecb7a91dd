import { definePlugin } from '@capture/sdk';
import { database } from './database.js';

export default definePlugin({
  name: '@capture/plugin-database',
  actions: [database],
});
