import { defineAction, numeric, z } from '@capture/sdk';

export const MAX_SLEEP_SECONDS = 30;

export const sleep = defineAction({
  type: 'sleep',
  title: 'Sleep',
  category: 'behaviour',
  description:
    'Pauses for a number of seconds (decimals allowed, at most 30). To prevent abuse a URL may sleep 100 / delay times per minute; beyond that Sleep has no effect. Queued, Sleep is not limited (it holds no capture open).',
  parameters: z.object({
    delay: numeric({ min: 0, max: MAX_SLEEP_SECONDS, message: `must be between 0 and ${MAX_SLEEP_SECONDS} seconds` }),
  }),
  async execute({ params, token, services, signal, timeLeftMs, log, queued }) {
    const ms = Math.round(params.delay * 1000);
    if (ms === 0) return log('Slept 0 s');
    // The limit protects captures held open; a queued run holds none (its own budget bounds it).
    if (!queued) {
      const minute = Math.floor(services.clock.now() / 60_000) * 60_000;
      const allowed = Math.max(1, Math.floor(100 / params.delay));
      const n = await services.counters.hit(`sleep:${token.uuid}`, minute, 60_000);
      if (n > allowed) return log(`Sleep skipped: this URL may sleep ${allowed} times a minute with a ${params.delay} s delay`);
    }
    const wait = Math.min(ms, timeLeftMs());
    const started = services.clock.now();
    await services.clock.sleep(wait, signal);
    log(`Slept ${((services.clock.now() - started) / 1000).toFixed(3).replace(/\.?0+$/, '')} s${wait < ms ? ' (cut short by the time budget)' : ''}`);
  },
});
