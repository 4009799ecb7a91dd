import { defineAction, z } from '@capture/sdk';

export const stop = defineAction({
  type: 'stop',
  title: 'Stop',
  category: 'behaviour',
  description: 'Stops running actions; the response built so far is sent.',
  parameters: z.object({}),
  execute({ stop, log }) {
    stop();
    log('Stopped');
  },
});
