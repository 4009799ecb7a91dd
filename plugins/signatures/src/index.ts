import { definePlugin } from '@capture/sdk';
import { webhookSecretProvider } from './provider.js';
import { verifySignature } from './verify-signature.js';

export default definePlugin({
  name: '@capture/plugin-signatures',
  actions: [verifySignature],
  providers: [webhookSecretProvider],
});
