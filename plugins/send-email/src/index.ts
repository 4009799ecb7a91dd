import { definePlugin } from '@capture/sdk';
import { sendEmail } from './send-email.js';
import { sendEmailSmtp } from './send-email-smtp.js';

export default definePlugin({
  name: '@capture/plugin-send-email',
  actions: [sendEmail, sendEmailSmtp],
});
