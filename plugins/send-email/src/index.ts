import { definePlugin } from '../../../core/sdk/index.js';
import { sendEmail } from './send-email.js';

export default definePlugin({
  name: '@capture/plugin-send-email',
  actions: [sendEmail],
});
