import { definePlugin } from '@capture/sdk';
import { redact } from './redact.js';

export default definePlugin({ name: '@capture/plugin-redaction', actions: [redact] });
