import { defineAction, z } from '@capture/sdk';

export const dontSave = defineAction({
  type: 'dont_save',
  title: "Don't Save",
  category: 'behaviour',
  // Only meaningful inline: it changes the answer to the capture or whether the capture is stored.
  queueable: false,
  description: 'The request is answered but not stored (useful after a condition, for high-volume URLs).',
  parameters: z.object({}),
  execute({ dontSave, log }) {
    dontSave();
    log('The request will not be saved');
  },
});
