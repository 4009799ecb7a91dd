import { definePlugin } from '@capture/sdk';
import { rabbitmqGet } from './rabbitmq-get.js';
import { rabbitmqPublish } from './rabbitmq-publish.js';

export default definePlugin({
  name: '@capture/plugin-rabbitmq',
  actions: [rabbitmqPublish, rabbitmqGet],
});
