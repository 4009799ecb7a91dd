import { definePlugin } from '../../../core/sdk/index.js';
import { sendEmail } from './send-email.js';
import { sendEmailSmtp } from './send-email-smtp.js';

export default definePlugin({
  name: '@capture/plugin-send-email',
  actions: [sendEmail, sendEmailSmtp],
});
