import { definePlugin } from '@capture/sdk';
import { authBasic } from './auth-basic.js';
import { dontSave } from './dont-save.js';
import { log } from './log.js';
import { modifyResponse } from './modify-response.js';
import { rateLimit } from './rate-limit.js';
import { sleep } from './sleep.js';
import { stop } from './stop.js';

export default definePlugin({
  name: '@capture/plugin-behaviour',
  actions: [dontSave, log, modifyResponse, rateLimit, stop, sleep, authBasic],
});
