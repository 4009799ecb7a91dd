// The `script` action: runs WebhookScript, webhook.site's scripting language.
import { accountOf } from '@capture/sdk/fair-share';
import { defineAction, z } from '@capture/sdk';
import { AccountGate } from './account-gate.js';
import { DEFAULT_LIMITS, type Limits } from './lang/limits.js';
import { runScript } from './run.js';

export function createScriptAction(limits: Partial<Limits> = {}) {
  const gate = new AccountGate(limits.maxRunsPerAccount ?? DEFAULT_LIMITS.maxRunsPerAccount);
  return defineAction({
    type: 'script',
    title: 'WebhookScript',
    category: 'scripting',
    description:
      'Runs WebhookScript, a small language similar to JavaScript and PHP: variables, arrays (["key": value]), ' +
      'if/else, for (x in array), while, functions and closures, value.function() chaining. var(name) reads variables, ' +
      'set(name, value) exports one to later actions, store(name, value) saves a Global Variable; echo() writes to the output; ' +
      'respond(content, status, headers) answers and stops, stop() and dont_save() as the actions of those names; ' +
      'request()/http() send HTTP requests; action(type, parameters) runs another action type and returns the variables, ' +
      'delete(name) removes a Global Variable, delay(seconds, code) runs code later (up to 7 days) as a queued job; ' +
      'string, array, math, date, JSON, regex, hashing and file functions. ' +
      'A script may run 10 million steps and 5 s of processing time (waiting for HTTP not counted) and keeps up to 1 MiB ' +
      'of output (64 KiB per line); errors name their line.',
    parameters: z.object({
      script: z.string().max(1_000_000).describe('The WebhookScript code to run'),
    }),
    // A script is code: `$name$` in it is not a variable to replace (use var('name')).
    untemplated: ['script'],
    async execute(ctx, params) {
      const leave = await gate.enter(accountOf(ctx.token), ctx.signal);
      try {
        await runScript(params.script, ctx, limits);
      } finally {
        leave();
      }
    },
  });
}

export const script = createScriptAction();
